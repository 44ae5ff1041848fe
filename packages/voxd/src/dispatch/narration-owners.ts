/**
 * Which path narrates each session's turn, so that a reply seen by two paths
 * is spoken once (docs/protocol.md, "POST /v1/narration", `source`). In
 * Claude Code the vox mod sees the model's text as it streams (`turn.step`)
 * in Claude Code's worker, while MessageDisplay and the transcript reach voxd
 * through `vox mcp` (which dedupes those two itself): the two processes
 * cannot see each other, voxd sees both. The first source to send a batch
 * of a session after its last cut (a new prompt) narrates the session until
 * the next cut; another source's batches are dropped, with why. The message
 * ids of the two paths differ, so a turn, not a message, is what is owned.
 *
 * Bounded: one entry per session, at most MAX_OWNED sessions (the oldest
 * forgotten first), and an owner that has sent nothing for OWNER_IDLE_MS
 * (its worker gone mid-turn) lets the other path narrate.
 */
import type { NarrationSource } from '@vox/protocol';

export const MAX_OWNED = 1024;
export const OWNER_IDLE_MS = 120_000;

interface Owner {
  source: NarrationSource;
  at: number;
}

export class NarrationOwners {
  readonly #owners = new Map<string, Owner>();
  readonly #max: number;
  readonly #idleMs: number;

  constructor(options: { max?: number; idleMs?: number } = {}) {
    this.#max = options.max ?? MAX_OWNED;
    this.#idleMs = options.idleMs ?? OWNER_IDLE_MS;
  }

  /** Undefined when `source` may narrate `session` now (it owns the turn, or takes it); else why not. */
  claim(session: string, source: NarrationSource, now = performance.now()): string | undefined {
    const owner = this.#owners.get(session);
    if (owner && owner.source !== source && now - owner.at < this.#idleMs)
      return `this turn of the session is narrated from ${describe(owner.source)}`;
    // Re-inserted, so that the map's order is the order of last use.
    this.#owners.delete(session);
    this.#owners.set(session, { source, at: now });
    if (this.#owners.size > this.#max) this.#owners.delete(this.#owners.keys().next().value!);
    return undefined;
  }

  /** A new prompt: the next turn goes to whichever path sends first. */
  cut(session: string): void {
    this.#owners.delete(session);
  }

  get size(): number {
    return this.#owners.size;
  }
}

function describe(source: NarrationSource): string {
  return source === 'mod'
    ? "the vox mod (the model's text as it streams)"
    : 'vox mcp (MessageDisplay or the transcript)';
}
