/**
 * PCM as voxd carries it (signed 16-bit little-endian mono, the engines' and
 * sinks' common format), and small helpers shared by the player and the sinks.
 */

export interface AudioFormat {
  /** Samples per second, e.g. 22050 or 24000. */
  sampleRate: number;
  /** Always 1 (mono). */
  channels: 1;
  /** Always 16 (signed little-endian). */
  bitDepth: 16;
}

/** Duration in ms of `bytes` of PCM in `format`. */
export function pcmDurationMs(bytes: number, format: AudioFormat): number {
  return (bytes / 2 / format.channels / format.sampleRate) * 1000;
}

/** Scale s16le samples by `gain` (0–1) in place. */
export function applyGain(chunk: Buffer, gain: number): Buffer {
  if (gain >= 1) return chunk;
  for (let i = 0; i + 1 < chunk.length; i += 2) {
    chunk.writeInt16LE(Math.round(chunk.readInt16LE(i) * gain), i);
  }
  return chunk;
}

/** Bytes of PCM that last `ms` milliseconds, rounded down to whole samples. */
export function bytesForMs(ms: number, format: AudioFormat): number {
  const samples = Math.floor((format.sampleRate * ms) / 1000);
  return samples * format.channels * 2;
}

/** Re-slice a stream of chunks into slices of at most `maxBytes` (kept sample-aligned). */
export async function* slices(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let carry: Buffer | undefined;
  for await (const chunk of chunks) {
    let buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = undefined;
    while (buf.length >= maxBytes) {
      yield buf.subarray(0, maxBytes);
      buf = buf.subarray(maxBytes);
    }
    // Keep an odd trailing byte for the next chunk so samples stay aligned.
    if (buf.length % 2 === 1) {
      carry = buf.subarray(buf.length - 1);
      buf = buf.subarray(0, buf.length - 1);
    }
    if (buf.length > 0) yield buf;
  }
}

/** Sleep until `deadline` (performance.now() ms), or until the signal aborts. */
export function sleepUntil(deadline: number, signal: AbortSignal): Promise<void> {
  const ms = deadline - performance.now();
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Linear resampling of s16le mono PCM; used only when engines of one utterance differ in rate. */
export function resample(chunk: Buffer, from: number, to: number): Buffer {
  if (from === to) return chunk;
  const inSamples = chunk.length >> 1;
  const outSamples = Math.floor((inSamples * to) / from);
  const out = Buffer.alloc(outSamples * 2);
  for (let i = 0; i < outSamples; i++) {
    const pos = (i * from) / to;
    const j = Math.floor(pos);
    const a = chunk.readInt16LE(Math.min(j, inSamples - 1) * 2);
    const b = chunk.readInt16LE(Math.min(j + 1, inSamples - 1) * 2);
    out.writeInt16LE(Math.round(a + (b - a) * (pos - j)), i * 2);
  }
  return out;
}

/**
 * Keeps writes to a device at most `leadMs` ahead of real time. A player's pipe
 * would otherwise take seconds of audio at once, and the dispatcher would
 * believe a sentence heard that is still in the pipe (it resumes an
 * interrupted utterance from the sentence being written).
 */
export class Pacer {
  #start: number | undefined;
  #bytes = 0;
  constructor(
    private readonly format: AudioFormat,
    private readonly leadMs = 250,
  ) {}

  /** Call after writing `bytes`; resolves when the next write is due. */
  wrote(bytes: number, signal: AbortSignal): Promise<void> {
    this.#start ??= performance.now();
    this.#bytes += bytes;
    const playedUntil = this.#start + (this.#bytes / 2 / this.format.channels / this.format.sampleRate) * 1000;
    return sleepUntil(playedUntil - this.leadMs, signal);
  }
}
