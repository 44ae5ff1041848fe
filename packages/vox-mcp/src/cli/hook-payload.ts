/**
 * The payload of `vox hook`, read from stdin within its bounds whatever
 * arrives there: huge, deeply nested, endless, never closed, binary.
 *
 * Design notes:
 * - Read until the top-level object closes (json-object-scan.ts follows its
 *   structure as bytes arrive, in one pass), 1 s of silence, 2 s in all, or
 *   4 MiB: Claude Code does not always close stdin. Parsed once, at the end.
 * - Refused at once: input that is not an object from its first byte, nesting
 *   past MAX_DEPTH, more than MAX_VALUES values (a 4 MiB payload of `{},` costs
 *   JSON.parse over 200 MB; these bounds keep any payload's parse under ~100 MB).
 * - Every refusal is one sentence naming the bound, never the input's bytes.
 */
import type { CliContext } from './context.js';
import type { HookPayload } from '../hooks/event.js';
import { JsonObjectScan } from './json-object-scan.js';
import { readBounded } from './stdin.js';

/** stdin: wait this long for the first byte, and this long after the last one. */
const IDLE_MS = 1000;
/** stdin: give up after this long in all. */
const TOTAL_MS = 2000;
const MAX_BYTES = 4 * 1024 * 1024;
/** Claude Code's payloads nest a few levels (tool_input's own JSON a few more). */
export const MAX_DEPTH = 64;
/** Values of the whole payload: its members and elements, objects and arrays. */
export const MAX_VALUES = 100_000;

/** The payload (empty when stdin is a terminal, or sent nothing), or why there is none. */
export type PayloadRead = { payload: HookPayload } | { problem: string };

export async function readHookPayload(stdin: CliContext['stdin']): Promise<PayloadRead> {
  if (stdin.isTTY) return { payload: {} };
  const scan = new JsonObjectScan({ maxDepth: MAX_DEPTH, maxValues: MAX_VALUES });
  // Read directly, not through a PassThrough: the hook reads stdin on every event (bench/hook.mjs).
  const read = await readBounded(stdin, {
    firstByteMs: IDLE_MS,
    idleMs: IDLE_MS,
    maxBytes: MAX_BYTES,
    totalMs: TOTAL_MS,
    scan: (chunk) => scan.push(chunk),
  });
  const notObject = (why: string) => ({ problem: `the payload on stdin is not a JSON object (${why})` });
  switch (read.stop) {
    case 'refused':
      return { problem: `the payload on stdin is refused (${read.refused})` };
    case 'max':
      return { problem: `the payload on stdin is refused (it is over ${MAX_BYTES / 1024 / 1024} MiB)` };
    case 'complete':
      break;
    default:
      // Whitespace alone, or nothing: no payload (the event comes from the arguments).
      if (!/[^ \t\r\n]/.test(read.bytes.toString('latin1'))) return { payload: {} };
      if (read.stop === 'total') return notObject(`not complete within ${TOTAL_MS / 1000} s`);
      if (read.stop === 'end') return notObject('stdin closed before the object did');
      return notObject(`not complete, and nothing more came for ${IDLE_MS / 1000} s`);
  }
  try {
    // From its "{" to the bracket that closed it: if JSON.parse takes it, it is an object.
    return { payload: JSON.parse(read.bytes.toString('utf8')) as HookPayload };
  } catch (err) {
    return notObject((err as Error).message);
  }
}
