/**
 * The live sessions `vox talk` can reach, and the texts waiting for them.
 *
 * A session is live while its `vox mcp` long-polls (POST /v1/talk/wait) or
 * did within `liveMs`: between two polls a text is held for the next one.
 * Bounded: at most `maxSessions` sessions and `maxHeld` texts each.
 */

interface Box {
  held: string[];
  waiter?: (texts: string[]) => void;
  seenAt: number;
}

export interface InboxOptions {
  clock?: () => number;
  liveMs?: number;
  maxHeld?: number;
  maxSessions?: number;
}

export type Delivery = { delivered: string } | { problem: string };

export class TalkInbox {
  readonly #boxes = new Map<string, Box>();
  readonly #clock: () => number;
  readonly #liveMs: number;
  readonly #maxHeld: number;
  readonly #maxSessions: number;

  constructor(options: InboxOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#liveMs = options.liveMs ?? 60_000;
    this.#maxHeld = options.maxHeld ?? 16;
    this.#maxSessions = options.maxSessions ?? 256;
  }

  /** The live labels, sorted. */
  live(): string[] {
    this.#prune();
    return [...this.#boxes.keys()].sort();
  }

  /** Resolves with the texts for `label`: at once when some are held, else at the next one or after `waitMs` (empty). */
  wait(label: string, waitMs: number, signal?: AbortSignal): Promise<string[]> {
    this.#prune();
    let box = this.#boxes.get(label);
    if (!box) {
      if (this.#boxes.size >= this.#maxSessions) return Promise.resolve([]);
      box = { held: [], seenAt: this.#clock() };
      this.#boxes.set(label, box);
    }
    const b = box;
    b.seenAt = this.#clock();
    b.waiter?.([]);
    if (b.held.length || waitMs === 0) return Promise.resolve(b.held.splice(0));
    return new Promise((resolve) => {
      const done = (texts: string[]) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        if (b.waiter === done) delete b.waiter;
        b.seenAt = this.#clock();
        resolve(texts);
      };
      // A poll that hangs up gives nothing back: the texts stay held for the next.
      const abort = () => done([]);
      const timer = setTimeout(() => done([]), waitMs);
      signal?.addEventListener('abort', abort, { once: true });
      b.waiter = done;
    });
  }

  /** Sends `text` to the session `name` names (resolveSession). */
  deliver(name: string, text: string): Delivery {
    const label = this.resolve(name);
    if ('problem' in label) return label;
    const box = this.#boxes.get(label.delivered)!;
    if (box.waiter) box.waiter([...box.held.splice(0), text]);
    else if (box.held.length >= this.#maxHeld)
      return {
        problem: `session ${label.delivered} already holds ${this.#maxHeld} texts it has not taken; its vox mcp is not polling`,
      };
    else box.held.push(text);
    return label;
  }

  /** The live label `name` is: itself, or the one live label of project `name`. */
  resolve(name: string): Delivery {
    const live = this.live();
    const list = live.length
      ? `live sessions: ${live.join(', ')}`
      : 'no session is live (no vox mcp is running, or it is older than vox talk)';
    if (live.includes(name)) return { delivered: name };
    const matches = live.filter((l) => l.slice(0, l.lastIndexOf('#')).toLowerCase() === name.toLowerCase());
    if (matches.length === 1) return { delivered: matches[0]! };
    if (matches.length > 1)
      return { problem: `"${name}" is the project of ${matches.length} sessions; say the full label. ${list}` };
    return { problem: `no live session "${name}"; ${list}` };
  }

  /** Hands every waiting poll an empty answer (voxd is closing). */
  close(): void {
    for (const box of this.#boxes.values()) box.waiter?.([]);
  }

  #prune(): void {
    const now = this.#clock();
    for (const [label, box] of this.#boxes)
      if (!box.waiter && now - box.seenAt > this.#liveMs) this.#boxes.delete(label);
  }
}
