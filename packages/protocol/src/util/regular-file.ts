/**
 * Reading a small file that another process may have replaced with anything:
 * a FIFO (opening it blocking would wait for a writer for good), a link to
 * /dev/zero (reading it never ends), a directory, or a file of gigabytes. The
 * file is opened non-blocking (and, unless links are allowed, without
 * following one), checked through its descriptor to be a regular file, and
 * read up to a cap: every outcome is bounded in time and memory. voxd and the
 * client both read VOX_HOME's files, and voxd its settings file, through it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export type RegularFileRead =
  | {
      ok: true;
      text: string;
      size: number;
      mode: number;
      uid: number;
      nlink: number;
      ino: number;
      dev: number;
      mtimeMs: number;
    }
  | {
      ok: false;
      /** missing: no such file; kind: not a regular file; big: over the cap; error: could not be opened or read. */
      problem: 'missing' | 'kind' | 'big' | 'error';
      /** For people: "is a FIFO (named pipe)", "is 209715200 bytes, over the 256-byte cap", "cannot be read (EACCES)". */
      why: string;
    };

export interface RegularFileOptions {
  /** Most bytes accepted; a bigger file is refused without reading it whole. */
  maxBytes: number;
  /** Follow a symbolic link (a settings file a person links from a dotfiles repo). Default false: a link is refused. */
  followLinks?: boolean;
}

/** What a file that is not a regular one is, for messages. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export function readRegularFile(path: string, options: RegularFileOptions): RegularFileRead {
  // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for a writer.
  const flags =
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.followLinks ? 0 : (constants.O_NOFOLLOW ?? 0));
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, problem: 'missing', why: 'does not exist' };
    if (code === 'ELOOP') return { ok: false, problem: 'kind', why: 'is a symbolic link' };
    // A socket file cannot be opened at all.
    if (code === 'ENXIO') return { ok: false, problem: 'kind', why: 'is a socket or a device without a reader' };
    if (code === 'EISDIR') return { ok: false, problem: 'kind', why: 'is a directory' };
    return { ok: false, problem: 'error', why: `cannot be opened (${code ?? (err as Error).message})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, problem: 'kind', why: `is ${fileKind(st)}` };
    const cap = options.maxBytes;
    if (st.size > cap) return { ok: false, problem: 'big', why: `is ${st.size} bytes, over the ${cap}-byte cap` };
    // One byte more than the cap: a file that grew since fstat is caught too.
    const buf = Buffer.allocUnsafe(cap + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > cap) return { ok: false, problem: 'big', why: `is over the ${cap}-byte cap` };
    }
    return {
      ok: true,
      text: buf.toString('utf8', 0, n),
      size: n,
      mode: st.mode,
      uid: st.uid,
      nlink: st.nlink,
      ino: st.ino,
      dev: st.dev,
      mtimeMs: st.mtimeMs,
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') return { ok: false, problem: 'kind', why: 'is a directory' };
    return { ok: false, problem: 'error', why: `cannot be read (${code ?? (err as Error).message})` };
  } finally {
    closeSync(fd);
  }
}
