/**
 * `file:DIR` — each utterance becomes its own numbered WAV in DIR, so tests can
 * count playbacks and measure them. By default it takes the audio's
 * real duration, like a device, so stopping and interrupting cut the file at
 * the point where playback stopped. `?realtime=0` writes at once.
 */
import { accessSync, constants, mkdirSync, readdirSync, statSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioFormat } from '../audio/pcm.js';
import { bytesForMs, sleepUntil, slices } from '../audio/pcm.js';
import { WAV_HEADER_BYTES, wavHeader } from '../audio/wav.js';
import { SinkError, type PlayResult, type Sink, type SinkState } from './sink.js';

/** Granularity of real-time pacing, in ms: a stop cuts the file within one slice. */
const SLICE_MS = 20;

export class FileSink implements Sink {
  readonly name: string;
  readonly dir: string;
  readonly realtime: boolean;
  #counter: number;
  #lastError: string | undefined;

  constructor(dir: string, options: { realtime?: boolean } = {}) {
    this.dir = dir;
    this.realtime = options.realtime ?? true;
    this.name = `file:${dir}${this.realtime ? '' : '?realtime=0'}`;
    mkdirSync(dir, { recursive: true });
    // Continue numbering after files left by an earlier run.
    this.#counter = readdirSync(dir).filter((f) => /^\d+-.*\.wav$/.test(f)).length;
  }

  state(): SinkState {
    return {
      name: this.name,
      ok: this.#lastError === undefined,
      detail: this.dir,
      ...(this.#lastError
        ? {
            lastError: this.#lastError,
            fix: `create the directory ${this.dir} again, or choose another with VOXD_AUDIO=file:DIR`,
          }
        : {}),
    };
  }

  /** The directory must still exist and be writable (it is not re-created: a removed one is a mistake to report). */
  async check(): Promise<SinkState> {
    try {
      // Not reported: caught just below, which words the state.
      if (!statSync(this.dir).isDirectory()) throw new Error('not a directory');
      accessSync(this.dir, constants.W_OK);
      this.#lastError = undefined;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.#lastError = `the file sink's directory ${this.dir} ${e.code === 'ENOENT' ? 'does not exist' : e.code === 'EACCES' ? 'is not writable' : `cannot be used (${e.message})`}`;
    }
    return this.state();
  }

  async play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    meta: { id: string },
  ): Promise<PlayResult> {
    this.#counter += 1;
    const path = join(this.dir, `${String(this.#counter).padStart(4, '0')}-${meta.id}.wav`);
    let fh;
    try {
      fh = await open(path, 'w');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.#lastError =
        e.code === 'ENOENT'
          ? `the file sink's directory ${this.dir} does not exist`
          : `cannot write ${path}: ${e.message}`;
      throw new SinkError(this.#lastError);
    }
    let bytes = 0;
    let firstAudioAt: number | undefined;
    let start = 0;
    try {
      await fh.write(wavHeader(format, 0), 0, WAV_HEADER_BYTES, 0);
      for await (const slice of slices(chunks, bytesForMs(SLICE_MS, format))) {
        if (signal.aborted) break;
        if (firstAudioAt === undefined) {
          firstAudioAt = performance.now();
          start = firstAudioAt;
        }
        await fh.write(slice, 0, slice.length, WAV_HEADER_BYTES + bytes);
        bytes += slice.length;
        if (this.realtime) await sleepUntil(start + (bytes / 2 / format.sampleRate) * 1000, signal);
      }
      // Cut: the header at once and the close left to finish, so a stop's silence does not wait on two
      // round trips through libuv's pool (on a loaded machine, tens of ms at p95: bench/barge-in.mjs).
      if (signal.aborted) writeSync(fh.fd, wavHeader(format, bytes), 0, WAV_HEADER_BYTES, 0);
      else await fh.write(wavHeader(format, bytes), 0, WAV_HEADER_BYTES, 0);
      this.#lastError = undefined;
    } catch (err) {
      this.#lastError = (err as Error).message;
      await fh.close();
      throw err;
    }
    if (signal.aborted) void fh.close().catch(() => {});
    else await fh.close();
    return { aborted: signal.aborted, bytes, ...(firstAudioAt !== undefined ? { firstAudioAt } : {}) };
  }

  async close(): Promise<void> {}
}
