/**
 * Narration from Claude Code's transcript, where MessageDisplay did not give
 * the text (`narrate: stream`): on current models the prose between tool
 * calls may come as narration blocks for which MessageDisplay does not fire
 * (Claude Code's issue #93531), while the transcript (`transcript_path` in
 * every hook payload) still holds it. The hooks that do fire read its new
 * tail: PostToolUse, Stop and SubagentStop, and MessageDisplay's first batch
 * of a message (so a text only the transcript has is spoken before the next
 * one MessageDisplay gives). docs/claude-code.md, "Narration".
 *
 * Design notes:
 * - A turn starts at UserPromptSubmit: the transcript is marked at its end
 *   then (or from its start, when a session's first prompt comes before the
 *   file exists), so a resumed session's history is never read out. A
 *   transcript first seen later (this `vox mcp` started mid-turn) is read
 *   from its end.
 * - Only the assistant's own `text` blocks of the main thread: not tool
 *   calls, tool results, thinking, a subagent's lines (`isSidechain`), or
 *   the API errors Claude Code writes as `<synthetic>` messages; every other
 *   line type is skipped before it is parsed.
 * - Each text becomes one narration message of one batch (index 0, final),
 *   built as a MessageDisplay batch is (label, pronunciations, caps), and
 *   sent behind the session's earlier batches, so the reply keeps its order.
 * - What MessageDisplay gave is not narrated again, nor the reverse
 *   (told-texts.ts); at Stop, a final text the transcript does not show yet
 *   is taken from the payload's `last_assistant_message`.
 * - The path must be absolute and end in `.jsonl`; the file is read as
 *   transcript-tail.ts bounds it (a FIFO, a link, a huge or endless file).
 */
import { isAbsolute } from 'node:path';
import type { ResolvedConfig } from '../project/config-schema.js';
import type { HookPayload } from '../hooks/event.js';
import { narrationDelivery, type NarrationDelivery } from './narration.js';
import { ToldTexts } from './told-texts.js';
import { markEnd, readTail, TAIL_LIMITS, type TailLimits, type TailState } from './transcript-tail.js';

/** Transcripts followed at once by this process (a session has one; `/clear` starts another). */
export const MAX_TRANSCRIPTS = 8;

const tails = new Map<string, TailState>();

/** What this process's sessions have narrated, by either path. */
export const told = new ToldTexts();

/** The payload's transcript path, when it is one vox reads. */
export function transcriptPathOf(payload: HookPayload): string | undefined {
  const p = payload.transcript_path;
  if (typeof p !== 'string' || p.length > 4096 || p.includes('\0')) return undefined;
  return isAbsolute(p) && p.endsWith('.jsonl') ? p : undefined;
}

function keep(path: string, state: TailState): void {
  tails.delete(path);
  if (tails.size >= MAX_TRANSCRIPTS) tails.delete(tails.keys().next().value!);
  tails.set(path, state);
}

/** A new prompt: the turn's text starts after what the transcript holds now (`path`, when the payload has one). */
export function markTurn(session: string, path: string | undefined): void {
  told.newTurn(session);
  if (path) keep(path, markEnd(path));
}

export interface TranscriptText {
  /** Unique in the transcript: the line's uuid and the block's place. */
  key: string;
  text: string;
}

const KEY = /[^A-Za-z0-9_.:-]/g;

/** The assistant's text blocks of one transcript line; none for any other line. */
export function assistantTexts(line: Buffer): TranscriptText[] {
  // Most lines (attachments, API request records, tool results) are skipped unparsed.
  if (!line.includes('"assistant"') || !line.includes('"text"')) return [];
  let o: unknown;
  try {
    o = JSON.parse(line.toString('utf8'));
  } catch {
    return [];
  }
  if (!o || typeof o !== 'object') return [];
  const { type, isSidechain, message, uuid } = o as Record<string, unknown>;
  if (type !== 'assistant' || isSidechain === true || !message || typeof message !== 'object') return [];
  const m = message as Record<string, unknown>;
  if (m.role !== 'assistant' || m.model === '<synthetic>' || !Array.isArray(m.content)) return [];
  const id = (typeof uuid === 'string' && uuid) || (typeof m.id === 'string' && m.id) || '';
  if (!id) return [];
  const out: TranscriptText[] = [];
  m.content.forEach((b: unknown, i) => {
    const block = b as { type?: unknown; text?: unknown } | null;
    if (block?.type === 'text' && typeof block.text === 'string' && block.text.trim())
      out.push({ key: `t-${id.replace(KEY, '').slice(0, 100)}-${i}`, text: block.text });
  });
  return out;
}

/** The deliveries of a text told from the transcript: one message of one batch. */
function deliveryOf(t: TranscriptText, config: ResolvedConfig, session: string): NarrationDelivery | undefined {
  const payload: HookPayload = { message_id: t.key, index: '0', final: 'true', delta: t.text };
  return narrationDelivery('MessageDisplay', payload, config, session);
}

/**
 * The texts written to the transcript since the last read and not narrated
 * yet, as narration requests in their order. Never throws; bounded by
 * transcript-tail.ts.
 */
export function catchUp(
  path: string,
  config: ResolvedConfig,
  session: string,
  limits: TailLimits = TAIL_LIMITS,
): NarrationDelivery[] {
  const read = readTail(path, tails.get(path), limits);
  keep(path, read.state);
  const out: NarrationDelivery[] = [];
  for (const line of read.lines)
    for (const t of assistantTexts(line)) {
      if (!told.transcript(session, t.key, t.text)) continue;
      const d = deliveryOf(t, config, session);
      if (d) out.push(d);
    }
  return out;
}

let finals = 0;

/** At Stop: the turn's last text, when neither path has told it (the transcript not written yet). */
export function finalText(text: string, config: ResolvedConfig, session: string): NarrationDelivery | undefined {
  if (!text.trim() || !told.unheard(session, text)) return undefined;
  const t = { key: `stop-${Date.now().toString(36)}-${++finals}`, text };
  // As a text shown: its transcript line, when it comes, matches it.
  told.display(session, t.key, t.text);
  return deliveryOf(t, config, session);
}

/** Forget every transcript and text (tests). */
export function forgetTranscripts(): void {
  tails.clear();
  told.clear();
}
