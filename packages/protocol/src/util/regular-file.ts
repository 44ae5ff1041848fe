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

/** The biggest piece read at once: under glibc's default mmap threshold. */
const CHUNK = 64 * 1024;

/** How many of the first `end` bytes of `buf` end on a whole UTF-8 character (a sequence cut at `end` is left out). */
function wholeCharacters(buf: Buffer, end: number): number {
  let lead = end - 1;
  // Back over continuation bytes (10xxxxxx) to the sequence's first byte, at most three.
  while (lead > end - 4 && lead > 0 && (buf[lead]! & 0xc0) === 0x80) lead--;
  const b = buf[lead]!;
  const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead + length > end ? lead : end;
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
    // Read in pieces of at most CHUNK bytes, so that no buffer reaches glibc's mmap threshold (128 KB): once
    // freed, a bigger one raises that threshold (and the trim threshold, to twice it) for the process's
    // life, and malloc then keeps megabytes it no longer uses (a /proc file's size is 0, and `vox mcp`
    // read its parent's command line with a 256 KB buffer; docs/benchmarks.md, "vox mcp PSS per session").
    // One byte more than the cap is asked for: a file that grew since fstat is caught too.
    const buf = Buffer.allocUnsafe(Math.min(cap + 1, st.size > 0 ? Math.max(st.size + 1, 1024) : CHUNK, CHUNK));
    let text = '';
    let n = 0;
    let held = 0;
    for (;;) {
      const got = readSync(fd, buf, held, buf.length - held, null);
      if (got === 0) break;
      n += got;
      if (n > cap) return { ok: false, problem: 'big', why: `is over the ${cap}-byte cap` };
      held += got;
      if (held === buf.length) {
        // Full: decode up to the last whole character, keep the bytes of one cut in two.
        const cut = wholeCharacters(buf, held);
        text += buf.toString('utf8', 0, cut);
        held = buf.copy(buf, 0, cut, held);
      }
    }
    text += buf.toString('utf8', 0, held);
    return {
      ok: true,
      text,
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
