/**
 * The journal's file on disk: 0600 like the token, never opened through a
 * link (one in its place is replaced), and set aside rather than read when
 * it is something voxd did not write.
 */
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, readSync, renameSync, rmSync } from 'node:fs';

/** A file bigger than this is not voxd's journal: it is set aside, not read. */
const MAX_READ_BYTES = 256 * 1024 * 1024;

/** The text of the journal at `path` ('' when there is none or it cannot be read), and what was wrong with the file. */
export function readJournalFile(path: string): { text: string; problems: string[] } {
  const problems: string[] = [];
  let text = '';
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) {
      problems.push(`the journal ${path} was a symbolic link; it was replaced, not followed`);
      rmSync(path, { force: true });
    } else if (!st.isFile()) {
      problems.push(`the journal ${path} is not a regular file; voxd runs without a journal (a restart loses what is queued) until it is removed`);
    } else if (st.size > MAX_READ_BYTES) {
      const aside = `${path}.too-big`;
      renameSync(path, aside);
      problems.push(`the journal was ${st.size} bytes, too big to be voxd's; it was moved to ${aside} and not replayed`);
    } else {
      text = readNoFollow(path, st.size);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT') problems.push(`the journal could not be read (${e.code ?? e.message}); nothing was replayed`);
  }
  return { text, problems };
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

function readNoFollow(path: string, size: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at).toString('utf8');
  } finally {
    closeSync(fd);
  }
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
