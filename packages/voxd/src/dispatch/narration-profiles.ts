/**
 * How each session narrates, as its `vox mcp` declared it (POST
 * /v1/narration/session, docs/protocol.md): the vox mod's batches (`source:
 * mod`, from Claude Code's `turn.step`) are taken only for a session declared
 * narrating, and made what vox mcp would have sent for the same text.
 *
 * Design notes:
 * - One reader of the project's `.vox/config.md`: `vox mcp` reads and
 *   validates it, and applies it to its own batches (MessageDisplay, the
 *   transcript); the mod, in Claude Code's worker, cannot load vox's parser,
 *   so voxd applies the declaration to the mod's batches instead. Rejected:
 *   the mod reading the config itself (a second parser and validator).
 * - Not declared (a session with no `vox mcp`, or a voxd started since the
 *   session's last prompt) is not narrating: a mod batch is dropped with why,
 *   and claims nothing, so vox mcp's own path narrates that turn as before.
 * - Bounded: at most MAX_PROFILES sessions, the least recently declared
 *   forgotten first; a table is bounded by the request's schema.
 */
import { applyPronunciations, type NarrationRequest, type NarrationSessionRequest } from '@vox/protocol';

export const MAX_PROFILES = 1024;

export const NOT_DECLARED =
  "no vox mcp has declared how this session narrates (its project's .vox/config.md; voxd learns it at the session's next prompt)";

/** A mod batch as vox mcp would have sent it, or why it is not narrated. */
export type ModBatch = { request: NarrationRequest } | { reason: string };

export class NarrationProfiles {
  readonly #profiles = new Map<string, Readonly<NarrationSessionRequest>>();
  readonly #max: number;

  constructor(options: { max?: number } = {}) {
    this.#max = options.max ?? MAX_PROFILES;
  }

  /** What the session's `vox mcp` read in its project's config; replaces what it said before. */
  declare(profile: NarrationSessionRequest): void {
    this.#profiles.delete(profile.session);
    this.#profiles.set(profile.session, Object.freeze({ ...profile }));
    if (this.#profiles.size > this.#max) this.#profiles.delete(this.#profiles.keys().next().value!);
  }

  /** The mod's batch with the session's declared voice, label and pronunciations; or why it is dropped. */
  modBatch(request: NarrationRequest): ModBatch {
    const p = this.#profiles.get(request.session);
    if (!p) return { reason: NOT_DECLARED };
    if (!p.narrates)
      return { reason: `its project does not narrate${p.reason ? ` (${p.reason})` : ''}, as its vox mcp declared` };
    let delta = applyPronunciations(request.delta, p.pronunciations ?? []);
    // As vox mcp does for a message's first batch: a line of its own, so a reply that opens with a fence still does.
    if (p.announce && request.index === 0) delta = `${p.announce}:\n${delta}`;
    const { session, message, index, final, source } = request;
    const out: NarrationRequest = { session, message, index, final, delta, source };
    // The declaration's voice, not the batch's: the project's config is the one truth.
    for (const k of ['voice', 'rate', 'volume', 'engine', 'model'] as const)
      if (p[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = p[k];
    return { request: out };
  }

  get size(): number {
    return this.#profiles.size;
  }
}
