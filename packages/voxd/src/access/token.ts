/**
 * The bearer token in VOX_HOME/token: created once with mode 0600, kept
 * across restarts.
 *
 * Design note: the file is a secret that every client reads, so voxd trusts
 * it only in the shape it writes: a regular file (never a link, which could
 * point anywhere), with one name, owned by this user, holding one token of
 * TOKEN_PATTERN, readable by no one else. A token that group or others could
 * read may be known to them, so it is replaced, like anything else voxd can
 * safely replace (a link, a short or garbled token, a hard-linked file, a
 * pipe), and the warning says why; a mode without those bits is fixed. What
 * it cannot replace without deleting someone's data (a
 * directory, a file owned by another user) makes it refuse to start, saying
 * what to remove. The file is opened with O_NOFOLLOW and checked through its
 * descriptor, so a link swapped in between check and use is not followed.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename } from 'node:path';
import { readRegularFile } from '@vox/protocol';
import type { KeptFile } from './keeper.js';
import { moveAside } from './state-file.js';

/** What voxd writes: 32 random bytes in base64url. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Most bytes read from the token file: a token and a newline, with room to spare. */
const READ_LIMIT = 256;

/** The token file is unusable and replacing it would delete something that is not voxd's: voxd must not start. */
export class TokenFileError extends Error {}

export function ensureToken(path: string, warn: (msg: string) => void = () => {}): string {
  const existing = readExisting(path, warn);
  if (existing) return existing;
  const token = randomBytes(32).toString('base64url');
  try {
    // O_EXCL: never follows or overwrites whatever appeared meanwhile.
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    // Another voxd starting at the same instant wrote it first: use theirs, if it is sound.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readExisting(path, warn, false);
      if (theirs) return theirs;
    }
    throw err;
  }
}

/** The token in `path` when it is sound; undefined when there is none or it was removed to be replaced. */
function readExisting(path: string, warn: (msg: string) => void, replace = true): string | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (st.isDirectory()) {
    throw new TokenFileError(
      `${path} is a directory, not a token file; remove it (rmdir, or move it away) and start voxd again`,
    );
  }
  if (uid !== undefined && st.uid !== uid && !st.isSymbolicLink()) {
    throw new TokenFileError(`${path} belongs to another user (uid ${st.uid}); remove it and start voxd again`);
  }
  const problem = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isFile()
      ? 'is not a regular file'
      : st.nlink > 1
        ? `has ${st.nlink} names (a hard link)`
        : undefined;
  if (problem) return discard(path, `${problem}; voxd does not follow it`, warn, replace);

  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the lstat opens at once, and fstat refuses it.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT') return discard(path, 'changed while it was read', warn, replace);
    throw err;
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino) return discard(path, 'changed while it was read', warn, replace);
    const buf = Buffer.alloc(READ_LIMIT);
    const n = readSync(fd, buf, 0, READ_LIMIT, 0);
    const token = buf.subarray(0, n).toString('utf8').trim();
    if (!TOKEN_PATTERN.test(token)) {
      const what =
        token === ''
          ? 'is empty'
          : `does not hold a token voxd wrote (${n >= READ_LIMIT ? 'too long' : `${token.length} characters`})`;
      return discard(path, what, warn, replace);
    }
    const mode = fst.mode & 0o777;
    if (process.platform !== 'win32' && mode & 0o077) {
      const who = mode & 0o007 ? 'everyone' : 'its group';
      return discard(
        path,
        `was readable or writable by ${who} (mode ${mode.toString(8)}), so others may know it`,
        warn,
        replace,
      );
    }
    if (mode !== 0o600) {
      fchmodSync(fd, 0o600);
      warn(`the token file had mode ${mode.toString(8)}; voxd set it to 600`);
    }
    return token;
  } finally {
    closeSync(fd);
  }
}

function discard(path: string, why: string, warn: (msg: string) => void, replace: boolean): undefined {
  if (!replace) throw new TokenFileError(`${path} ${why}; remove it and start voxd again`);
  unlinkSync(path); // removes the name only: a link's target is untouched
  warn(`the token file ${why}; voxd replaced it with a new token (clients read the new one)`);
  return undefined;
}

/** The token file for keepFiles(): written again (0600, one name, this token) whenever it is not that. */
export function keptToken(path: string, token: string): KeptFile {
  return {
    name: basename(path),
    problem() {
      const read = readRegularFile(path, { maxBytes: READ_LIMIT });
      if (!read.ok) return read.problem === 'missing' ? 'was missing' : read.why;
      if (read.text.trim() !== token) return 'held another token';
      if ((read.mode & 0o777) !== 0o600 && process.platform !== 'win32')
        return `had mode ${(read.mode & 0o777).toString(8)}`;
      if (read.nlink > 1) return `had ${read.nlink} names (a hard link)`;
      return undefined;
    },
    restore() {
      const moved = moveAside(path);
      const tmp = `${path}.${process.pid}.tmp`;
      rmSync(tmp, { force: true });
      writeFileSync(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, path);
      return moved;
    },
  };
}
