/**
 * Idle waits: a session's idle prompt ("api is waiting for your input",
 * `idlePrompt: true`) is said once per wait. Claude Code re-fires it about
 * every 60 s while a session waits; the prompt's duplicate window (`once`,
 * ten minutes from vox's hooks) keeps the repeats quiet, and a second
 * reminder comes only when that window has run out. The wait ends when the
 * session does anything else: it speaks, chimes or narrates (it works, so
 * someone prompted it), or its narration is cut (UserPromptSubmit). Then
 * the window is forgotten here, so the next wait is said again.
 *
 * Kept in memory: after a restart the journal restores the window (dedup),
 * but not the wait, so the next wait after a restart may stay quiet until
 * the window runs out (at most `once`).
 */
import type { DuplicateFilter } from './dedup.js';

/** Sessions whose wait is remembered at once; the oldest is forgotten past it. */
const MAX_WAITS = 4096;

export class IdleWaits {
  readonly #dedup: DuplicateFilter;
  /** Session → the duplicate key of its idle prompt, oldest first. */
  readonly #waits = new Map<string, string>();

  constructor(dedup: DuplicateFilter) {
    this.#dedup = dedup;
  }

  /** `session`'s idle prompt (duplicate key `key`) came: it waits. */
  waiting(session: string, key: string): void {
    this.#waits.delete(session);
    this.#waits.set(session, key);
    if (this.#waits.size > MAX_WAITS) this.#waits.delete(this.#waits.keys().next().value!);
  }

  /** `session` did something else: its wait is over, and its idle prompt is said again next time. */
  end(session: string): void {
    const key = this.#waits.get(session);
    if (key === undefined) return;
    this.#waits.delete(session);
    this.#dedup.drop(key);
  }
}
