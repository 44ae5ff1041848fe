/**
 * The live sessions `vox talk` can reach, and the texts waiting for them.
 *
 * A label belongs to the `vox mcp` that registered it: its first poll
 * (POST /v1/talk/wait) brings a secret (or is given one), and while that
 * registration lives only a poll that presents the secret takes its texts.
 * A session is live while its `vox mcp` long-polls or did within `liveMs`;
 * between two polls a text is held for the next one.
 *
 * Design notes:
 * - A registration lapses `liveMs` after its last poll (as liveness always
 *   did), or is free to a new secret at once when its poll hung up and none
 *   is open: a `vox mcp` that stops hangs up, so its restart (same label, new
 *   secret) gets the inbox and what it holds without waiting. A running
 *   session's poll never hangs up, so this frees nothing a thief could take.
 * - Junk cannot crowd out a new session. One client (one secret) holds at
 *   most `maxPerClient` labels, its least recently polled giving way (a
 *   /clear gives a session a new label). At most `maxIdle` registrations have
 *   no open poll; past that the one idle longest gives way. A registration
 *   with an open poll is never pushed out by another client's: each holds a
 *   connection, which voxd's connection limit bounds (connections.ts), so a
 *   new session's own poll always gets in. Per connection or per address
 *   would bound nothing (every client is 127.0.0.1, and one connection
 *   registers a label per poll); the secret is what tells clients apart, and
 *   a client that makes a new one per label is held by the idle bound.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ChannelGate } from '@vox/protocol';

interface Box {
  secret: string;
  held: string[];
  waiter?: (texts: string[], hungUp?: boolean) => void;
  seenAt: number;
  /** Its last poll hung up (its vox mcp stopped), and none has come since. */
  hungUp: boolean;
  /** Claude Code's channel gate as its vox mcp last reported it (an older one reports none). */
  channel?: ChannelGate;
}

export interface InboxOptions {
  clock?: () => number;
  liveMs?: number;
  maxHeld?: number;
  /** Most registrations without an open poll. */
  maxIdle?: number;
  /** Most labels one secret holds. */
  maxPerClient?: number;
}

export type Delivery = { delivered: string; channel?: ChannelGate } | { problem: string };

/** A poll's answer: the texts and the registration's secret, or why the label is not the poller's. */
export type Waited = { texts: string[]; secret: string } | { taken: string };

export class TalkInbox {
  readonly #boxes = new Map<string, Box>();
  readonly #clock: () => number;
  readonly #liveMs: number;
  readonly #maxHeld: number;
  readonly #maxIdle: number;
  readonly #maxPerClient: number;

  constructor(options: InboxOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#liveMs = options.liveMs ?? 60_000;
    this.#maxHeld = options.maxHeld ?? 16;
    this.#maxIdle = options.maxIdle ?? 256;
    this.#maxPerClient = options.maxPerClient ?? 4;
  }

  /** The live labels, sorted. */
  live(): string[] {
    this.#prune();
    return [...this.#boxes.keys()].sort();
  }

  /**
   * Resolves with the texts for `label`: at once when some are held, else at
   * the next one or after `waitMs` (empty). Takes nothing when the label is
   * registered to another secret.
   */
  wait(
    label: string,
    secret: string | undefined,
    waitMs: number,
    signal?: AbortSignal,
    channel?: ChannelGate,
  ): Promise<Waited> {
    this.#prune();
    const b = this.#claim(label, secret);
    if ('taken' in b) return Promise.resolve(b);
    b.seenAt = this.#clock();
    b.channel = channel;
    b.hungUp = false;
    b.waiter?.([]);
    if (b.held.length || waitMs === 0) return Promise.resolve({ texts: b.held.splice(0), secret: b.secret });
    return new Promise((resolve) => {
      const done = (texts: string[], hungUp = false) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        if (b.waiter === done) delete b.waiter;
        b.seenAt = this.#clock();
        b.hungUp = hungUp;
        resolve({ texts, secret: b.secret });
      };
      // A poll that hangs up gives nothing back: the texts stay held for the next.
      const abort = () => done([], true);
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
    return box.channel ? { ...label, channel: box.channel } : label;
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

  /** The box of `label` for a poll presenting `secret`: its own, a free one taken over, or a new one. */
  #claim(label: string, secret: string | undefined): Box | { taken: string } {
    const box = this.#boxes.get(label);
    if (box && secret !== undefined && sameSecret(secret, box.secret)) return box;
    if (box && (box.waiter || !box.hungUp))
      return {
        taken: secret === undefined ? 'this poll presented no secret' : 'this poll presented another secret',
      };
    const owner = secret ?? randomBytes(16).toString('hex');
    if (box) this.#boxes.delete(label);
    this.#fitClient(owner);
    this.#fitIdle();
    // A registration taken over keeps what it holds: the texts were said to this label.
    const next: Box = { secret: owner, held: box?.held ?? [], seenAt: this.#clock(), hungUp: false };
    this.#boxes.set(label, next);
    return next;
  }

  /** Room for one more label of `secret`: its least recently polled ones give way. */
  #fitClient(secret: string): void {
    const own = [...this.#boxes].filter(([, b]) => b.secret === secret);
    own.sort(([, a], [, b]) => a.seenAt - b.seenAt);
    while (own.length >= this.#maxPerClient) this.#drop(...own.shift()!);
  }

  /** Room for one more registration without an open poll: the one idle longest gives way. */
  #fitIdle(): void {
    const idle = [...this.#boxes].filter(([, b]) => !b.waiter);
    if (idle.length < this.#maxIdle) return;
    idle.sort(([, a], [, b]) => a.seenAt - b.seenAt);
    for (const entry of idle.slice(0, idle.length - this.#maxIdle + 1)) this.#drop(...entry);
  }

  #drop(label: string, box: Box): void {
    this.#boxes.delete(label);
    box.waiter?.([]);
  }

  #prune(): void {
    const now = this.#clock();
    for (const [label, box] of this.#boxes)
      if (!box.waiter && now - box.seenAt > this.#liveMs) this.#boxes.delete(label);
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
