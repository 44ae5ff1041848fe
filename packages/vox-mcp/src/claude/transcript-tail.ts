/**
 * The new tail of a Claude Code transcript (a JSONL file another process
 * appends to): the complete lines written since the last read, each handed
 * out once. Narration reads it from the hooks that fire (claude/transcript-narration.ts).
 *
 * Design notes:
 * - Bounded like every file vox reads (@vox/protocol's util/regular-file.ts):
 *   opened O_NONBLOCK (a FIFO opens at once instead of waiting for a writer)
 *   and O_NOFOLLOW (a link, to /dev/zero or anywhere, is refused), checked
 *   through its descriptor to be a regular file, and read at most
 *   `maxReadBytes` a call, up to the size fstat gave (a file that grows while
 *   it is read waits for the next call), within `maxReadMs`.
 * - Never a line twice: the state keeps the offset read up to and the bytes
 *   of a line not yet ended (a writer mid-line), so the next call starts
 *   where this one stopped. A line longer than `maxLineBytes` is dropped
 *   unread up to its newline, so memory stays bounded per transcript.
 * - A file more than `maxBehindBytes` ahead of the offset (something writes
 *   without end) is skipped to its end: narration speaks the reply as it is
 *   written, never a backlog from minutes ago.
 * - A file replaced (another inode) or truncated starts again from its end,
 *   as a file first seen does: what it held before is an old turn's.
 * - Synchronous on purpose: the `vox mcp` process is single-threaded, so
 *   two hooks never read the same transcript at once and the offset needs
 *   no lock; each call's work is bounded by the byte cap.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { fileKind } from '@vox/protocol';

export interface TailLimits {
  /** Most bytes one call reads. */
  maxReadBytes: number;
  /** Longest line kept; a longer one is skipped. */
  maxLineBytes: number;
  /** Past this much unread, the file is skipped to its end. */
  maxBehindBytes: number;
  /** Time one call may spend reading, in ms (checked between chunks). */
  maxReadMs: number;
}

export const TAIL_LIMITS: Readonly<TailLimits> = Object.freeze({
  maxReadBytes: 4 * 1024 * 1024,
  maxLineBytes: 512 * 1024,
  maxBehindBytes: 16 * 1024 * 1024,
  maxReadMs: 50,
});

const CHUNK = 64 * 1024;

/** Where a transcript was read up to. `ino` -1: the file that appears next is read from its start. */
export interface TailState {
  dev: number;
  ino: number;
  offset: number;
  /** The start of a line not yet ended (at most maxLineBytes). */
  partial: Buffer | undefined;
  /** Inside a line over the cap: dropped up to its newline. */
  skipping: boolean;
}

export interface TailRead {
  /** Complete lines, without their newline, in file order. */
  lines: Buffer[];
  state: TailState;
  /** Why nothing could be read (not a regular file, a link, missing, ...). */
  problem?: string;
  /** What happened to the offset: `reset` (replaced or truncated: from its end), `skipped` (too far behind). */
  moved?: 'reset' | 'skipped';
}

const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

function openProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'ELOOP') return 'is a symbolic link';
  return `cannot be opened (${code ?? (err as Error).message})`;
}

/**
 * Where a new turn starts: the file's end now, or, when it does not exist yet
 * (a session's first prompt), the start of the file that appears.
 */
export function markEnd(path: string): TailState {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch {
    return { dev: -1, ino: -1, offset: 0, partial: undefined, skipping: false };
  }
  try {
    const st = fstatSync(fd);
    return atEnd(st.dev, st.ino, st.isFile() ? st.size : 0, fd);
  } finally {
    closeSync(fd);
  }
}

/** The state at `size`: mid-line when the byte before it is not a newline. */
function atEnd(dev: number, ino: number, size: number, fd: number): TailState {
  let skipping = false;
  if (size > 0) {
    const last = Buffer.alloc(1);
    skipping = readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
  }
  return { dev, ino, offset: size, partial: undefined, skipping };
}

/** The complete lines written since `state` (a file first seen: none, from its end). Never throws. */
export function readTail(path: string, state: TailState | undefined, limits: TailLimits = TAIL_LIMITS): TailRead {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (err) {
    return { lines: [], state: state ?? markEnd(path), problem: openProblem(err) };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { lines: [], state: state ?? markEnd(path), problem: `is ${fileKind(st)}` };
    if (!state) return { lines: [], state: atEnd(st.dev, st.ino, st.size, fd) };
    let s: TailState = state;
    if (s.ino === -1) s = { dev: st.dev, ino: st.ino, offset: 0, partial: undefined, skipping: false };
    if (s.ino !== st.ino || s.dev !== st.dev || st.size < s.offset)
      return { lines: [], state: atEnd(st.dev, st.ino, st.size, fd), moved: 'reset' };
    if (st.size - s.offset > limits.maxBehindBytes)
      return { lines: [], state: atEnd(st.dev, st.ino, st.size, fd), moved: 'skipped' };
    return readLines(fd, s, Math.min(st.size, s.offset + limits.maxReadBytes), limits);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = `cannot be read (${code ?? (err as Error).message})`;
    return {
      lines: [],
      state: state ?? { dev: -1, ino: -1, offset: 0, partial: undefined, skipping: false },
      problem: why,
    };
  } finally {
    closeSync(fd);
  }
}

function readLines(fd: number, s: TailState, end: number, limits: TailLimits): { lines: Buffer[]; state: TailState } {
  const lines: Buffer[] = [];
  const deadline = Date.now() + limits.maxReadMs;
  let offset = s.offset;
  let skipping = s.skipping;
  const parts: Buffer[] = s.partial ? [s.partial] : [];
  let partLen = s.partial?.length ?? 0;
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, end - offset)));
  while (offset < end && (offset === s.offset || Date.now() < deadline)) {
    const got = readSync(fd, buf, 0, Math.min(buf.length, end - offset), offset);
    if (got === 0) break;
    offset += got;
    let from = 0;
    for (let nl = buf.indexOf(0x0a, 0); nl !== -1 && nl < got; nl = buf.indexOf(0x0a, from)) {
      if (!skipping && partLen + (nl - from) <= limits.maxLineBytes) {
        parts.push(Buffer.from(buf.subarray(from, nl)));
        lines.push(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      }
      parts.length = 0;
      partLen = 0;
      skipping = false;
      from = nl + 1;
    }
    if (from < got && !skipping) {
      if (partLen + (got - from) > limits.maxLineBytes) {
        skipping = true;
        parts.length = 0;
        partLen = 0;
      } else {
        parts.push(Buffer.from(buf.subarray(from, got)));
        partLen += got - from;
      }
    }
  }
  const partial = partLen ? (parts.length === 1 ? parts[0]! : Buffer.concat(parts)) : undefined;
  return { lines, state: { dev: s.dev, ino: s.ino, offset, partial, skipping } };
}
