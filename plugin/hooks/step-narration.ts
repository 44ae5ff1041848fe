/**
 * Narration from `turn.step` (the vox mod; VOX_CLAUDE_MOD_NARRATION=off turns
 * it off): the model's text as it streams, cut into POST /v1/narration
 * batches as MessageDisplay's are: completed lines only, a block's rest with
 * its last batch. One message per text block of a step (its id from the turn,
 * the step and the block). voxd speaks a turn from one source only (the mod
 * or vox mcp, whichever sent first since the last prompt), so nothing the two
 * both saw is spoken twice (docs/protocol.md, `source`); and it speaks the
 * mod's batches only for a session whose `vox mcp` declared it narrating, with
 * the project's voice, label and pronunciations: the mod never reads the
 * project's config, vox mcp is its one reader.
 *
 * Pure: the mod feeds it chunks and posts what it returns. Bounded: a block
 * holds at most MAX_OPEN_CHARS not yet sent (past it the open text goes as
 * it is), and a step at most MAX_BLOCKS open blocks.
 */

/** A batch as the mod POSTs it (NarrationRequest of @vox/protocol, restated: the mod cannot import it). */
export interface StepBatch {
  session: string;
  message: string;
  index: number;
  final: boolean;
  delta: string;
  source: 'mod';
}

/** voxd's NARRATION_MAX_DELTA_CHARS is 65,536; a batch stays well under it. */
export const MAX_OPEN_CHARS = 16_384;
const MAX_BLOCKS = 64;

interface Block {
  message: string;
  next: number;
  open: string;
}

/** The message id voxd takes (`^[A-Za-z0-9_.:-]+$`, at most 128). */
export function messageOf(turnId: string, step: number, block: number): string {
  const turn = turnId.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 80) || 'turn';
  return `mod.${turn}.${step}.${block}`;
}

export class StepNarration {
  readonly #blocks = new Map<number, Block>();

  constructor(
    readonly session: string,
    readonly turnId: string,
    readonly step: number,
  ) {}

  /** A text chunk of block `index`: the batch of the lines it completed, if any. */
  text(index: number, text: string): StepBatch | undefined {
    let b = this.#blocks.get(index);
    if (!b) {
      if (this.#blocks.size >= MAX_BLOCKS) return undefined;
      b = { message: messageOf(this.turnId, this.step, index), next: 0, open: '' };
      this.#blocks.set(index, b);
    }
    b.open += text;
    const end = b.open.length > MAX_OPEN_CHARS ? b.open.length : b.open.lastIndexOf('\n') + 1;
    if (end === 0) return undefined;
    const delta = b.open.slice(0, end);
    b.open = b.open.slice(end);
    return this.#batch(b, delta, false);
  }

  /** The response is whole (its stop chunk, or the stream ended): each block's last batch. */
  end(): StepBatch[] {
    const out = [...this.#blocks.values()].map((b) => this.#batch(b, b.open, true));
    this.#blocks.clear();
    return out;
  }

  #batch(b: Block, delta: string, final: boolean): StepBatch {
    return { session: this.session, message: b.message, index: b.next++, final, delta, source: 'mod' };
  }
}

/**
 * The label the mod narrates under: the one voxd knows for the session's
 * current id (after `/clear` the session has a new id, and `vox mcp` narrates
 * under the new label; voxd keeps one source per label's turn), else the
 * folder's name and the short id, as `vox mcp` names it.
 */
export function stepLabel(known: readonly string[], cwd: string, shortId: string): string {
  const current = known.find((l) => l.endsWith(`#${shortId}`));
  if (current) return current;
  const name = (cwd.replace(/\/+$/, '').split('/').pop() ?? '').replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40);
  return `${name || 'claude'}#${shortId}`;
}

/**
 * Whether the mod narrates: unless VOX_CLAUDE_MOD_NARRATION=off, and never a
 * subagent's steps. Whether the project narrates is voxd's to say, by what
 * the session's `vox mcp` declared.
 */
export function narratesSteps(setting: string | undefined, agentId: string | undefined): boolean {
  return setting !== 'off' && !agentId;
}

/**
 * The turn whose batches voxd drops whole (`untilCut` in its answer: another
 * path narrates it, or the project does not narrate): the rest of it is not
 * sent, so a session that does not narrate costs voxd one batch a turn.
 */
export class DroppedTurns {
  #turn: string | undefined;

  /** Whether a batch of `turn` is still worth sending. */
  sends(turn: string): boolean {
    return this.#turn !== turn;
  }

  /** voxd's answer to a batch of `turn`. */
  answered(turn: string, answer: unknown): void {
    if ((answer as { untilCut?: unknown } | undefined)?.untilCut === true) this.#turn = turn;
  }
}
