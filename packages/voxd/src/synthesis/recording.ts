/**
 * Synthesis without playback, for POST /v1/synthesize: the same cleanup,
 * engine choice, fallback and cache as speech, returned as one WAV.
 */
import type { SynthesizeRequest } from '@vox/protocol';
import type { Synthesizer } from './synthesizer.js';
import type { AudioFormat } from '../audio/pcm.js';
import { VoxError } from '../errors.js';
import { applyGain, resample } from '../audio/pcm.js';
import type { PrepareFn } from '../text/preparer.js';
import { toWav } from '../audio/wav.js';

/** The wire type of POST /v1/synthesize. */
export type RecordingRequest = SynthesizeRequest;

export interface Recording {
  wav: Buffer;
  engine: string;
  fallbackReason?: string;
  text: string;
}

/**
 * The most PCM one recording may hold, in bytes: 32 MiB, some 12 minutes of
 * 22,050 Hz speech. Two recordings render at once, each with a copy or two of
 * its audio on the way to a WAV, so this bounds /v1/synthesize's memory.
 */
export const MAX_RECORDING_BYTES = 32 * 1024 * 1024;

export async function record(
  synthesizer: Synthesizer,
  prepare: PrepareFn,
  req: RecordingRequest,
  signal?: AbortSignal,
  maxBytes = MAX_RECORDING_BYTES,
): Promise<Recording> {
  // Past maxBytes the engine is stopped at once: no more audio is made, none kept.
  const cap = new AbortController();
  const synthSignal = signal ? AbortSignal.any([signal, cap.signal]) : cap.signal;
  let total = 0;
  const engine = await synthesizer.resolve(req.engine);
  const { text, sentences } = await prepare(req.text, {
    keepTags: engine.understandsTags(req.model),
    ...(req.maxChars ? { maxChars: req.maxChars } : {}),
  });
  let format: AudioFormat | undefined;
  const parts: Buffer[] = [];
  let used = engine.name;
  let fallbackReason: string | undefined;
  try {
    for (const sentence of sentences) {
      const r = await synthesizer.synthesize({
        text: sentence,
        engine,
        ...(req.voice ? { voice: req.voice } : {}),
        ...(req.rate ? { rate: req.rate } : {}),
        ...(req.model ? { model: req.model } : {}),
        ...(req.apiKey ? { apiKey: req.apiKey } : {}),
        signal: synthSignal,
      });
      used = r.engine;
      fallbackReason ??= r.fallbackReason;
      format ??= r.synthesis.format;
      for await (const chunk of r.synthesis.chunks) {
        const c =
          r.synthesis.format.sampleRate === format.sampleRate
            ? chunk
            : resample(chunk, r.synthesis.format.sampleRate, format.sampleRate);
        total += c.length;
        if (total > maxBytes) {
          cap.abort();
          parts.length = 0;
          const minutes = maxBytes / 2 / format.sampleRate / 60;
          throw new VoxError(
            'VOX_ERR_SYNTHESIZE_TOO_LARGE',
            Math.round(maxBytes / (1024 * 1024)),
            minutes >= 1 ? Math.round(minutes) : minutes.toFixed(2),
          );
        }
        parts.push(c);
      }
    }
  } catch (err) {
    // An engine that does not know the voice says so in its own words: the answer names the voice and the engine chosen.
    if ((err as { code?: string }).code === 'VOX_ERR_VOICE_UNKNOWN')
      throw new VoxError('VOX_ERR_VOICE_UNKNOWN', JSON.stringify(req.voice ?? ''), engine.name);
    throw err;
  }
  format ??= { sampleRate: 22050, channels: 1, bitDepth: 16 };
  const pcm = Buffer.concat(parts);
  // The same gain as speech: volume is part of the request, not a hint.
  if (req.volume !== undefined && req.volume < 1) applyGain(pcm, req.volume);
  return { wav: toWav(format, pcm), engine: used, text, ...(fallbackReason ? { fallbackReason } : {}) };
}

/**
 * How many recordings may be rendered at once, and wait for their turn. Each
 * rendering holds its whole PCM in memory (a 20,000-character text is some
 * 50 MB, and a few copies of it on the way to a WAV), so unbounded
 * concurrency meant unbounded memory: four such requests took voxd to 1 GB.
 * A waiting request holds only its body. Beyond both, a request is refused at
 * once (429).
 */
export const MAX_CONCURRENT_RECORDINGS = 2;
export const MAX_WAITING_RECORDINGS = 8;

export class RecordingSlots {
  #busy = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(
    readonly max = MAX_CONCURRENT_RECORDINGS,
    readonly maxWaiting = MAX_WAITING_RECORDINGS,
  ) {}

  /** Resolves with a release function once a slot is free; undefined at once when even the waiting line is full. */
  async take(): Promise<(() => void) | undefined> {
    if (this.#busy >= this.max) {
      if (this.#waiting.length >= this.maxWaiting) return undefined;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#busy++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next in line, or is freed.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#busy--;
    };
  }
}
