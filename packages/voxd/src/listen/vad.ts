/**
 * End-pointing by voice activity, on the energy of 20 ms frames of s16le mono.
 *
 * Design note: a frame is voiced when its RMS is above both an absolute floor
 * (-40 dBFS) and three times the noise floor, which is learnt from the
 * unvoiced frames (a quiet room and a fan differ by more than any fixed
 * threshold). Speech starts after 60 ms of voiced frames in a row (a click is
 * not speech) and ends after `silenceMs` without a voiced frame, so the pauses
 * between words do not end it. This is the fallback: Silero VAD (silero.ts)
 * tells speech from a fan, a keyboard or music, which energy cannot, and is
 * used when its model is installed (the setting `listen.vad`).
 */
import type { ListenEnd } from '@vox/protocol';

export const FRAME_MS = 20;
/** -40 dBFS: quieter than this is never speech. */
export const ABSOLUTE_FLOOR = 0.01;
const NOISE_FACTOR = 3;
/** Voiced frames in a row before speech counts as started. */
const ONSET_FRAMES = 3;

export interface EndPointerOptions {
  sampleRate: number;
  /** Trailing silence that ends speech, in ms. */
  silenceMs: number;
  /** No speech by then ends the listen as `timeout`, in ms. */
  startTimeoutMs: number;
  /** Hard maximum, in ms of audio. */
  maxMs: number;
}

/** What the listener asks of an end-pointer, energy or Silero. */
export interface EndPointer {
  /** Audio seen so far, in ms. */
  readonly elapsedMs: number;
  /** From the start of speech to its end, in ms; 0 before speech. */
  readonly speechMs: number;
  /** Where the user's speech ended, in ms from the start. */
  readonly speechEndMs: number | undefined;
  readonly ended: ListenEnd | undefined;
  /** Feed PCM; returns how the listen ended once it has (and keeps returning that). */
  push(chunk: Buffer): ListenEnd | undefined;
}

export type EndPointerFactory = (options: EndPointerOptions) => EndPointer;

export class EnergyEndPointer implements EndPointer {
  readonly #frameBytes: number;
  readonly #o: EndPointerOptions;
  #pending = Buffer.alloc(0);
  #frames = 0;
  #noise = ABSOLUTE_FLOOR / NOISE_FACTOR;
  #run = 0;
  /** Frame index where speech started, and one past the last voiced frame. */
  #start: number | undefined;
  #lastVoiced = 0;
  #ended: ListenEnd | undefined;

  constructor(options: EndPointerOptions) {
    this.#o = options;
    this.#frameBytes = Math.round((options.sampleRate * FRAME_MS) / 1000) * 2;
  }

  /** Audio seen so far, in ms. */
  get elapsedMs(): number {
    return this.#frames * FRAME_MS;
  }

  /** From the first voiced frame to the last, in ms; 0 before speech. */
  get speechMs(): number {
    return this.#start === undefined ? 0 : (this.#lastVoiced - this.#start) * FRAME_MS;
  }

  /** Where the last voiced frame ended, in ms from the start (the end of the user's speech). */
  get speechEndMs(): number | undefined {
    return this.#start === undefined ? undefined : this.#lastVoiced * FRAME_MS;
  }

  get ended(): ListenEnd | undefined {
    return this.#ended;
  }

  /** Feed PCM; returns how the listen ended once it has (and keeps returning that). */
  push(chunk: Buffer): ListenEnd | undefined {
    if (this.#ended) return this.#ended;
    let buf = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    let at = 0;
    while (buf.length - at >= this.#frameBytes) {
      this.#frame(buf.subarray(at, at + this.#frameBytes));
      at += this.#frameBytes;
      if (this.#ended) break;
    }
    this.#pending = Buffer.from(buf.subarray(at));
    buf = Buffer.alloc(0);
    return this.#ended;
  }

  #frame(frame: Buffer): void {
    let sum = 0;
    const n = frame.length / 2;
    for (let i = 0; i < frame.length; i += 2) {
      const v = frame.readInt16LE(i) / 32768;
      sum += v * v;
    }
    const rms = Math.sqrt(sum / n);
    const voiced = rms > Math.max(ABSOLUTE_FLOOR, this.#noise * NOISE_FACTOR);
    this.#frames += 1;
    if (voiced) {
      this.#run += 1;
      if (this.#start === undefined && this.#run >= ONSET_FRAMES) this.#start = this.#frames - ONSET_FRAMES;
      if (this.#start !== undefined) this.#lastVoiced = this.#frames;
    } else {
      this.#run = 0;
      // The noise floor follows quiet frames quickly and loud ones slowly.
      this.#noise = this.#noise * 0.95 + Math.max(rms, 1e-5) * 0.05;
    }
    const ms = this.#frames * FRAME_MS;
    if (this.#start !== undefined && (this.#frames - this.#lastVoiced) * FRAME_MS >= this.#o.silenceMs)
      this.#ended = 'silence';
    else if (this.#start === undefined && ms >= this.#o.startTimeoutMs) this.#ended = 'timeout';
    else if (ms >= this.#o.maxMs) this.#ended = 'max';
  }
}
