/**
 * The log of voice decisions: VOX_HOME/logs/voice-decisions.jsonl, one JSON
 * line a voice turn, rotated past 1 MB (one older file kept, `.1`). A decision
 * is returned only once its line is written (voice-turn.ts), so whatever is
 * planted where the log goes must neither block the question nor take its
 * line elsewhere:
 * - the logs directory must be a directory of the user's, not a link (lstat);
 * - the log is opened O_NOFOLLOW (a link, even a dangling one pointing outside
 *   VOX_HOME, is refused, never created through), O_NONBLOCK (a FIFO with no
 *   reader is refused at once instead of waiting for one), O_APPEND, O_CREAT
 *   with mode 0600, and its descriptor must then be a regular file of the
 *   user's with no other name (a FIFO with a reader, a device, a hard link);
 * - the rotation renames the log the descriptor was checked on, and rename
 *   moves a link itself, never its target.
 * Anything else throws, saying what is there.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileKind, homePaths, voxHome } from '@vox/protocol';

/** The log is rotated past this size. */
const LOG_MAX_BYTES = 1024 * 1024;
const FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** Appends one outcome to VOX_HOME/logs/voice-decisions.jsonl and returns its path; throws when it cannot. */
export function logDecision(env: NodeJS.ProcessEnv, entry: Record<string, unknown>): string {
  const dir = homePaths(voxHome(env)).logs;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const d = lstatSync(dir);
  if (!d.isDirectory()) throw new Error(`${dir} is ${fileKind(d)}, not a directory`);
  if (!mine(d.uid)) throw new Error(`${dir} is not the user's`);
  const file = join(dir, 'voice-decisions.jsonl');
  let fd = openLog(file);
  try {
    if (fstatSync(fd).size > LOG_MAX_BYTES) {
      renameSync(file, `${file}.1`);
      closeSync(fd);
      fd = -1;
      // A new log in its place, checked as the first was.
      fd = openLog(file);
    }
    const line = Buffer.from(`${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
    // One write with O_APPEND: lines of concurrent hooks never interleave.
    const n = writeSync(fd, line);
    if (n !== line.length) throw new Error(`${file}: wrote ${n} of ${line.length} bytes`);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  return file;
}

/** The log, opened to append and checked to be a regular file of the user's with one name. */
function openLog(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, FLAGS, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ELOOP'
        ? 'is a symbolic link'
        : code === 'ENXIO'
          ? 'is a FIFO or a device with no reader'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be opened (${code ?? (err as Error).message})`;
    throw new Error(`${file} ${why}`);
  }
  const st = fstatSync(fd);
  const why = !st.isFile()
    ? `is ${fileKind(st)}`
    : !mine(st.uid)
      ? "is not the user's"
      : st.nlink !== 1
        ? 'has another name too (a hard link)'
        : undefined;
  if (why) {
    closeSync(fd);
    throw new Error(`${file} ${why}, not a regular file of the user's`);
  }
  return fd;
}

function mine(uid: number): boolean {
  return process.getuid === undefined || uid === process.getuid();
}
