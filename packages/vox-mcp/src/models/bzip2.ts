/**
 * bzip2 decompression with backpressure and a bound on what it produces.
 *
 * Design note: unbzip2-stream's own stream (a `through` stream) queues every
 * block it can decode, whatever the reader takes, and collects each block's
 * output in a JS array of numbers (up to ~45 MB of output per block, 8 bytes
 * a number): a 1,652-byte archive that unpacks to 2 GiB took 5.1 GB of memory.
 * Its block decoder (lib/bzip2.js, which checks each block's CRC) is fine, so
 * it is used here by a generator that decodes one block at a time, writes the
 * output into 64 KiB buffers, and decodes the next block only when the reader
 * has taken the last: memory stays at one block (its 3.6 MB table and at most
 * one block's output). The output is counted as it is made; past `maxBytes`
 * the decoder stops in the middle of the block.
 */
import { createRequire } from 'node:module';

interface Bzip2Lib {
  header(bits: BitReader): number;
  decompress(bits: BitReader, out: (byte: number) => void, buf: Int32Array, size: number, crc: number): number | null;
}
interface BitReader {
  (n: number | null): number;
  bytesRead: number;
}

/** The input ended before the bzip2 stream did. */
export class TruncatedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TruncatedError';
  }
}

/** The output passed its bound. */
export class TooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TooLargeError';
  }
}

const OUT_CHUNK = 64 * 1024;
/** Enough input for any one block (as unbzip2-stream waits for): 900 kB of block, and its tables. */
const BLOCK_INPUT = 25_000 + 100_000 * 9;

/**
 * Decompresses a bzip2 file (several concatenated streams are one file, as
 * bzip2 writes them), yielding its bytes in chunks of up to 64 KiB.
 *
 * @throws TruncatedError when the input ends inside a stream; TooLargeError past maxBytes; the decoder's Error (a CRC mismatch) for damage
 */
export async function* bunzip2(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  const require = createRequire(import.meta.url);
  const bz2 = require('unbzip2-stream/lib/bzip2') as Bzip2Lib;
  const bitIterator = require('unbzip2-stream/lib/bit_iterator') as (next: () => Buffer) => BitReader;

  const queue: Buffer[] = [];
  let buffered = 0;
  let ended = false;
  const input = source[Symbol.asyncIterator]();
  let bits: BitReader | undefined;
  /** Reads input until a whole block is buffered past what was decoded (or the input ends). */
  const fill = async () => {
    while (!ended && buffered - (bits?.bytesRead ?? 0) < BLOCK_INPUT) {
      const r = await input.next();
      if (r.done) ended = true;
      else {
        queue.push(r.value);
        buffered += r.value.length;
      }
    }
  };

  let produced = 0;
  let out = Buffer.allocUnsafe(OUT_CHUNK);
  let used = 0;
  const ready: Buffer[] = [];
  const write = (byte: number) => {
    out[used++] = byte;
    if (used === OUT_CHUNK) {
      produced += used;
      if (produced > maxBytes) throw new TooLargeError(`it unpacks to more than ${maxBytes} bytes`);
      ready.push(out);
      out = Buffer.allocUnsafe(OUT_CHUNK);
      used = 0;
    }
  };
  const table = new Int32Array(100_000 * 9);
  let blockSize = 0;
  let crc = 0;
  let streams = 0;
  await fill();
  if (buffered === 0) throw new Error('the file is empty');
  // Made once there is input: it takes its first buffer at once.
  bits = bitIterator(() => {
    const next = queue.shift();
    if (!next) throw new TruncatedError('the archive ends in the middle of its bzip2 data');
    return next;
  });
  for (;;) {
    await fill();
    if (buffered === bits.bytesRead && ended) break;
    if (!blockSize) {
      blockSize = bz2.header(bits);
      crc = 0;
      streams++;
      continue;
    }
    const next = bz2.decompress(bits, write, table, 100_000 * blockSize, crc);
    if (next === null) {
      // The end of one stream: another may follow.
      blockSize = 0;
    } else crc = next;
    if (used) {
      produced += used;
      if (produced > maxBytes) throw new TooLargeError(`it unpacks to more than ${maxBytes} bytes`);
      ready.push(out.subarray(0, used));
      out = Buffer.allocUnsafe(OUT_CHUNK);
      used = 0;
    }
    while (ready.length) yield ready.shift()!;
  }
  if (blockSize || streams === 0) throw new TruncatedError('the archive ends in the middle of its bzip2 data');
}
