/**
 * Unpacking a voice model archive (.tar.bz2, .tar.gz or .tar) into a
 * directory, within bounds: the archive says what it holds, and a hostile one
 * (a decompression bomb, an archive of 100,000 entries) must cost no more
 * than a bounded amount of memory, disk and time.
 *
 * Design notes:
 * - Backpressure end to end: the file is read, decompressed (bzip2.ts, or
 *   zlib's gunzip) and parsed by node-tar only as fast as the files are
 *   written, so memory stays at a few blocks whatever the archive holds.
 * - Two bounds: the number of entries, and the bytes the files hold. Each
 *   entry's header declares its size before its data, so an entry past the
 *   bounds is refused before one byte of it is written (a 2 GiB bomb stops at
 *   its first header). The decompressed stream itself is counted too, so
 *   data that is no file (padding, junk after the end) is bounded as well.
 * - node-tar refuses absolute paths and `..`; links, devices and FIFOs are
 *   skipped (only files and directories are written).
 * - The decompressed data must be a tar (ustar magic): a tar compressed
 *   twice would be decompressed again by node-tar, outside these bounds.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { bunzip2, TooLargeError, TruncatedError } from './bzip2.js';

export { TooLargeError, TruncatedError } from './bzip2.js';

export interface UnpackLimits {
  /** Bytes the files may hold in all. */
  maxBytes: number;
  /** Entries (files, directories, skipped links) the archive may hold. */
  maxEntries: number;
}

/** A tar block: every entry costs at least one header block, and its data is padded to blocks. */
const BLOCK = 512;

/**
 * Counts what passes and fails past `max` bytes; checks the first block is a
 * tar's. Once node-tar has seen the archive's end (`ended()`), the rest is
 * counted but not passed on: node-tar would keep it, concatenating, forever.
 */
function tarGuard(max: number, ended: () => boolean): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (seen === 0 && chunk.length >= 262 && chunk.toString('latin1', 257, 262) !== 'ustar') {
        done(new Error('it holds no tar archive (no ustar header)'));
        return;
      }
      seen += chunk.length;
      if (seen > max) done(new TooLargeError(`it unpacks to more than ${max} bytes`));
      else done(null, ended() ? undefined : chunk);
    },
  });
}

function kindOf(archive: string): 'bzip2' | 'gzip' | 'tar' {
  const head = Buffer.alloc(3);
  const fd = openSync(archive, 'r');
  try {
    readSync(fd, head, 0, 3, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === 'BZh') return 'bzip2';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  return 'tar';
}

/**
 * Unpacks `archive` into `dir` within `limits`.
 *
 * @throws TooLargeError past a limit, TruncatedError when the archive ends early, or the decoder's or node-tar's error for damage
 */
export async function unpack(archive: string, dir: string, limits: UnpackLimits): Promise<void> {
  const require = createRequire(import.meta.url);
  const tar = require('tar') as typeof import('tar');
  // The decompressed stream: the files, a header per entry, padding, the two end blocks.
  const streamMax = limits.maxBytes + (limits.maxEntries + 2) * 2 * BLOCK + 64 * 1024;
  let entries = 0;
  let bytes = 0;
  let refused: Error | undefined;
  const extract = tar.x({
    cwd: dir,
    strict: true,
    filter: (_path, entry) => {
      const e = entry as { type?: string; size?: number };
      entries++;
      bytes += e.size ?? 0;
      if (!refused && entries > limits.maxEntries)
        refused = new TooLargeError(`it holds more than ${limits.maxEntries} entries`);
      if (!refused && bytes > limits.maxBytes)
        refused = new TooLargeError(`its files hold more than ${limits.maxBytes} bytes`);
      if (refused) {
        (extract as unknown as { abort(err: Error): void }).abort(refused);
        return false;
      }
      const type = e.type;
      return (
        type === undefined || type === 'File' || type === 'OldFile' || type === 'Directory' || type === 'ContiguousFile'
      );
    },
  });
  let eof = false;
  extract.on('eof', () => (eof = true));
  const guard = () => tarGuard(streamMax, () => eof);
  const sink = extract as unknown as NodeJS.WritableStream;
  const source = createReadStream(archive, { highWaterMark: 64 * 1024 });
  const kind = kindOf(archive);
  try {
    if (kind === 'bzip2')
      await pipeline(source, (input: AsyncIterable<Buffer>) => bunzip2(input, streamMax), guard(), sink);
    else if (kind === 'gzip') await pipeline(source, createGunzip(), guard(), sink);
    else await pipeline(source, guard(), sink);
  } catch (err) {
    if (refused) throw refused;
    const e = err as Error & { code?: string };
    if (e instanceof TruncatedError || e instanceof TooLargeError) throw e;
    if (e.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(e.message))
      throw new TruncatedError('the archive ends in the middle of its gzip data');
    if (/Truncated input/.test(e.message)) throw new TruncatedError('the archive ends in the middle of a file');
    throw err;
  }
  if (refused) throw refused;
}
