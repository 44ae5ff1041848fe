/**
 * Synthesis without playback, for POST /v1/synthesize: the same cleanup,
 * engine choice, fallback and cache as speech, returned as one WAV.
 */
import type { SynthesizeRequest } from '@vox/protocol';
import type { Synthesizer } from './dispatcher.js';
import type { AudioFormat } from './engines/engine.js';
import { resample } from './pcm.js';
import type { PrepareFn } from './text/preparer.js';
import { toWav } from './wav.js';

/** The wire type of POST /v1/synthesize. */
export type RecordingRequest = SynthesizeRequest;

export interface Recording {
  wav: Buffer;
  engine: string;
  fallbackReason?: string;
  text: string;
}

export async function record(
  synthesizer: Synthesizer,
  prepare: PrepareFn,
  req: RecordingRequest,
  signal?: AbortSignal,
): Promise<Recording> {
  const engine = await synthesizer.resolve(req.engine);
  const { text, sentences } = await prepare(req.text, { keepTags: engine.understandsTags(req.model), ...(req.maxChars ? { maxChars: req.maxChars } : {}) });
  let format: AudioFormat | undefined;
  const parts: Buffer[] = [];
  let used = engine.name;
  let fallbackReason: string | undefined;
  for (const sentence of sentences) {
    const r = await synthesizer.synthesize({
      text: sentence,
      engine: engine.name,
      ...(req.voice ? { voice: req.voice } : {}),
      ...(req.rate ? { rate: req.rate } : {}),
      ...(req.model ? { model: req.model } : {}),
      ...(req.apiKey ? { apiKey: req.apiKey } : {}),
      ...(signal ? { signal } : {}),
    });
    used = r.engine;
    fallbackReason ??= r.fallbackReason;
    format ??= r.synthesis.format;
    for await (const chunk of r.synthesis.chunks) {
      parts.push(r.synthesis.format.sampleRate === format.sampleRate ? chunk : resample(chunk, r.synthesis.format.sampleRate, format.sampleRate));
    }
  }
  format ??= { sampleRate: 22050, channels: 1, bitDepth: 16 };
  return { wav: toWav(format, Buffer.concat(parts)), engine: used, text, ...(fallbackReason ? { fallbackReason } : {}) };
}
