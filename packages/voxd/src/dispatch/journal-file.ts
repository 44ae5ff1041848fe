/**
 * The journal's file on disk: 0600 like the token, never opened through a
 * link (one in its place is replaced), and read in bounded pieces: a file
 * of any size costs at most a chunk and a line of memory beyond what is
 * replayed (journal-records.ts bounds that). Writing it is JournalWriter's
 * (journal-writer.ts); what goes in it is journal.ts's.
 */
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, readSync, rmSync } from 'node:fs';
import type { JournalReader, Replay } from './journal-records.js';

/** A line longer than this is no record voxd wrote (a text of MAX_TEXT_CHARS, escaped, is far less): skipped unread. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Feed the journal at `path` to `reader` line by line, reading at most
 * `maxReadBytes` of it (what lies past that is reported, not read): memory
 * stays bounded whatever the file is. Problems with the file itself are
 * added to `problems`.
 */
export function readJournalFile(path: string, reader: JournalReader, maxReadBytes: number, problems: string[]): Replay {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) {
      problems.push(`the journal ${path} was a symbolic link; it was replaced, not followed`);
      rmSync(path, { force: true });
    } else if (!st.isFile()) {
      problems.push(
        `the journal ${path} is not a regular file; voxd refuses speech (503 VOX_ERR_JOURNAL_UNWRITABLE) until it is removed`,
      );
    } else {
      return readLines(path, reader, maxReadBytes, problems);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT')
      problems.push(`the journal could not be read (${e.code ?? e.message}); nothing was replayed`);
  }
  return reader.finish();
}

function readLines(path: string, reader: JournalReader, maxReadBytes: number, problems: string[]): Replay {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  const buf = Buffer.alloc(CHUNK_BYTES);
  let carry: Buffer[] = [];
  let carryBytes = 0;
  /** Inside a line too long to hold: drop bytes until its newline. */
  let skipping = false;
  let n = 0;
  let at = 0;
  try {
    while (at < maxReadBytes) {
      const got = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, maxReadBytes - at), at);
      if (got === 0) break;
      at += got;
      let from = 0;
      for (let nl = buf.indexOf(10, from); nl !== -1 && nl < got; nl = buf.indexOf(10, from)) {
        n++;
        if (skipping) {
          skipping = false;
          problems.push(`journal line ${n} is longer than ${MAX_LINE_BYTES} bytes; it was skipped`);
        } else {
          const part = buf.subarray(from, nl);
          reader.line((carryBytes ? Buffer.concat([...carry, part]) : part).toString('utf8'), n);
        }
        carry = [];
        carryBytes = 0;
        from = nl + 1;
      }
      if (from < got && !skipping) {
        carry.push(Buffer.from(buf.subarray(from, got)));
        carryBytes += got - from;
        if (carryBytes > MAX_LINE_BYTES) {
          skipping = true;
          carry = [];
          carryBytes = 0;
        }
      }
    }
    const size = fstatSync(fd).size;
    if (size > at) {
      problems.push(
        `the journal was ${size} bytes; voxd read the first ${at} (twice its cap and more) and left the rest unread: requests recorded there are not replayed`,
      );
      return reader.finish();
    }
  } finally {
    closeSync(fd);
  }
  if (skipping) {
    problems.push(`the journal's last line is longer than ${MAX_LINE_BYTES} bytes; it was skipped`);
    return reader.finish();
  }
  return reader.finish(Buffer.concat(carry).toString('utf8'));
}

/** Open for appending, 0600, never through a link; a looser mode is tightened. */
export function openAppend(path: string): number {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    if (process.platform !== 'win32' && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch {
    // mode is best effort on odd filesystems
  }
  return fd;
}

/** Make a rename durable (Linux, macOS); not possible on Windows, where it is skipped. */
export function syncDir(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
