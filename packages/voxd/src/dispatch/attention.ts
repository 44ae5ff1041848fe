/**
 * Attention (docs/attention.md): which session the person is in, and what
 * the others may say meanwhile.
 *
 * Design notes:
 * - The focus is the session the person last typed in (a new prompt: the
 *   narration cut or POST /v1/focus from the hooks), started or resumed,
 *   talked to (`vox talk`), answered by voice, or named (`vox focus`). A
 *   name without `#id` (`api`) covers every session of that project.
 * - With `attention: all` (the default) nothing is held: the focus is only
 *   shown. With `focus`, speech of a session that is not the focus is held
 *   (settled `held`, admission.ts) unless it needs the person: `important`
 *   (permission asks, questions) or `needsPerson` (a failure). Chimes are
 *   held only at `notification` (subagents, a session's end). A listen's
 *   own question never comes here (Dispatcher.hold). Before any focus is
 *   known, nothing is held.
 * - What is held is in the recall as missed (recall.ts), so a recap says it,
 *   and the pending digest is the recall's: it survives a restart.
 * - One digest at most per `digestMs`, never sooner than DIGEST_FIRST_MS
 *   after the first item it holds, and only at a quiet moment (nothing
 *   playing or queued). It says the newest DIGEST_MAX_ITEMS, counts the
 *   rest, and marks them all digested; the ones it said are heard (no
 *   longer missed), the ones it counted stay for `vox recap`. A recap says
 *   everything missed at once, so it takes the digest's place.
 * - Clock and timers are injected, so a test moves time instead of waiting.
 */
import type { AttentionMode, AttentionStatus, FocusReason, Priority } from '@vox/protocol';
import { randomUUID } from 'node:crypto';
import type { Admission } from './admission.js';
import { DIGEST_KEY, type Recall, type Recalled } from './recall.js';
import { spokenSession } from './recap.js';

/** A digest never comes sooner than this after the first item it holds. */
export const DIGEST_FIRST_MS = 30_000;
/** Items a digest says; older ones are counted. */
export const DIGEST_MAX_ITEMS = 4;
/** Characters of one item said. */
const ITEM_CHARS = 100;
/** Sessions listed in the status. */
const STATUS_SESSIONS = 20;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface AttentionOptions {
  mode: AttentionMode;
  digestMs: number;
  recall: Recall;
  clock?: () => number;
  timers?: Timers;
  /** Nothing plays and nothing is queued. */
  quiet(): boolean;
  /** Resolves at the next quiet moment. */
  idle(): Promise<void>;
  /** Where a digest is spoken. */
  admission: Pick<Admission, 'speech'>;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void } | undefined;
}

/** What attention.ts needs to know of a request. */
export interface Heard {
  session?: string | undefined;
  priority?: Priority | undefined;
  needsPerson?: boolean | undefined;
  kind: 'speech' | 'chime';
}

export class Attention {
  readonly mode: AttentionMode;
  readonly #o: AttentionOptions;
  readonly #clock: () => number;
  readonly #timers: Timers;
  #focus: { session: string; reason: FocusReason; at: number } | undefined;
  #lastDigestAt = Number.NEGATIVE_INFINITY;
  #timer: unknown;
  #timerAt: number | undefined;
  #waitingForQuiet = false;
  #closed = false;

  constructor(options: AttentionOptions) {
    this.#o = options;
    this.mode = options.mode;
    this.#clock = options.clock ?? Date.now;
    this.#timers = options.timers ?? REAL_TIMERS;
    // What was held before a restart is still due.
    this.schedule();
  }

  /** The person is in `session` now. */
  focus(session: string, reason: FocusReason): void {
    this.#focus = { session, reason, at: this.#clock() };
  }

  /** The session in focus, if any. */
  get focused(): string | undefined {
    return this.#focus?.session;
  }

  inFocus(session: string): boolean {
    const f = this.#focus?.session;
    if (f === undefined) return true;
    return session === f || (!f.includes('#') && session.split('#')[0] === f);
  }

  /** Why the request is held, or undefined: it is spoken. */
  holds(r: Heard): string | undefined {
    if (this.mode !== 'focus' || !r.session || this.inFocus(r.session)) return undefined;
    const p = r.priority ?? 'message';
    if (p === 'important' || r.needsPerson) return undefined;
    if (r.kind === 'chime' && p !== 'notification') return undefined;
    return `held: the person is in ${this.#focus!.session}; a digest or vox recap says it`;
  }

  /** Held items not yet digested, oldest first. */
  pending(): Recalled[] {
    return this.#o.recall.held();
  }

  /** When the next digest is due, while something is held. */
  dueAt(): number | undefined {
    const first = this.pending()[0];
    if (!first) return undefined;
    return Math.max(first.at + DIGEST_FIRST_MS, this.#lastDigestAt + this.#o.digestMs);
  }

  /** Something may have been held (or a restart kept some): the digest is set for when it is due. */
  schedule(): void {
    if (this.#closed || this.#waitingForQuiet) return;
    const due = this.dueAt();
    if (due === this.#timerAt) return;
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#timer = undefined;
    this.#timerAt = due;
    if (due === undefined) return;
    this.#timer = this.#timers.set(() => void this.#due(), Math.max(0, due - this.#clock()));
  }

  async #due(): Promise<void> {
    this.#timer = undefined;
    this.#timerAt = undefined;
    if (this.#closed) return;
    const due = this.dueAt();
    if (due === undefined) return;
    if (due > this.#clock()) return this.schedule();
    if (!this.#o.quiet()) {
      this.#waitingForQuiet = true;
      await this.#o.idle();
      this.#waitingForQuiet = false;
      return this.#due();
    }
    await this.digest();
  }

  /** Say the digest now (when something is pending); resolves with what it said, or undefined. */
  async digest(): Promise<string | undefined> {
    const items = this.pending();
    if (items.length === 0) return undefined;
    const text = digestText(spokenSession(this.#focus?.session), items);
    this.#lastDigestAt = this.#clock();
    let taken = false;
    try {
      const dedupKey = `${DIGEST_KEY}${randomUUID()}`;
      taken = (await this.#o.admission.speech({ text, priority: 'message', dedupKey })).response.status === 'queued';
    } catch (err) {
      this.#o.log?.warn({ err: (err as Error).message }, 'digest not spoken');
    }
    if (taken) {
      const said = items.slice(-DIGEST_MAX_ITEMS);
      this.#o.recall.heard(
        said.map((r) => r.n),
        items.at(-1)!.n,
      );
      this.#o.log?.info({ items: items.length, said: said.length }, 'digest spoken');
    }
    this.schedule();
    return taken ? text : undefined;
  }

  status(): AttentionStatus {
    const counts = new Map<string, number>();
    for (const r of this.pending()) counts.set(r.session ?? '', (counts.get(r.session ?? '') ?? 0) + 1);
    const held = [...counts]
      .map(([session, n]) => ({ session, held: n }))
      .sort((a, b) => b.held - a.held)
      .slice(0, STATUS_SESSIONS);
    const due = this.dueAt();
    const f = this.#focus;
    return {
      mode: this.mode,
      focus: f?.session ?? null,
      ...(f ? { reason: f.reason, since: new Date(f.at).toISOString() } : {}),
      held,
      ...(due !== undefined ? { digestDueAt: new Date(due).toISOString() } : {}),
    };
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * "While you were in api: web: Finished the migration. docs: docs is waiting
 * for your input." The newest DIGEST_MAX_ITEMS of `items` (oldest first),
 * grouped by session, each cut at ITEM_CHARS; the rest counted.
 */
export function digestText(focus: string, items: readonly Recalled[]): string {
  const said = items.slice(-DIGEST_MAX_ITEMS);
  const groups = new Map<string, string[]>();
  for (const r of said) {
    const name = spokenSession(r.session);
    const list = groups.get(name) ?? [];
    groups.delete(name);
    groups.set(name, [...list, sentence(r.text)]);
  }
  const parts = [`While you were in ${focus}:`];
  for (const [name, list] of groups) parts.push(`${name}: ${list.join(' ')}`);
  const more = items.length - said.length;
  if (more > 0) parts.push(`And ${more} more; vox recap says them.`);
  return parts.join(' ');
}

function sentence(text: string): string {
  let t = text.replace(/\s+/g, ' ').trim();
  if (t.length > ITEM_CHARS) t = `${t.slice(0, ITEM_CHARS).replace(/\s+\S*$/, '')}…`;
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}
