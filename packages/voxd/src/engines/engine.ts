/**
 * The contract every speech engine meets. Engines produce signed 16-bit
 * little-endian mono PCM as an async stream, so playback can start before
 * synthesis ends. `assertEngine` checks the shape when an engine is loaded.
 */
import type { Voice } from '@vox/protocol';
import type { AudioFormat } from '../audio/pcm.js';
import { VoxError } from '../errors.js';

export interface SynthesisRequest {
  /** Text already cleaned for speech, for this engine: expressive tags only if it performs them (understandsTags). */
  text: string;
  voice?: string;
  /** Words per minute. */
  rate?: number;
  /** 0 to 1. */
  volume?: number;
  model?: string;
  /** Aborts synthesis (and any network call) promptly. */
  signal?: AbortSignal;
  /**
   * The first sentence of a playback: nothing of it is heard until its first
   * chunk. An engine that renders whole sentences may render a first phrase
   * on its own (text/phrase.ts) so that the audio starts sooner.
   */
  leading?: boolean;
}

export interface Synthesis {
  format: AudioFormat;
  /** s16le PCM chunks, in order. */
  chunks: AsyncIterable<Buffer>;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

export interface Engine {
  /** Registry name: `espeak`, `espeak-ng`, `say`, `openai`, `elevenlabs`. */
  readonly name: string;
  ready(): Promise<Readiness>;
  voices(): Promise<Voice[]>;
  synthesize(request: SynthesisRequest): Promise<Synthesis>;
  /**
   * Whether the engine has `voice`: false only when it is sure it has not (an
   * engine that cannot tell leaves this out). voxd asks it before it accepts a
   * request, so an unknown voice is refused at once (400), not failed later.
   */
  knowsVoice?(voice: string): Promise<boolean>;
  /** Whether bracketed expressive tags such as `[excited]` are performed rather than read aloud. */
  understandsTags(model?: string): boolean;
  /**
   * Whether `voice` is one of this engine's own (an installed model's speaker,
   * say). The automatic choice takes an engine that claims the request's voice
   * before the usual order, and passes over one that does not.
   */
  claims?(voice: string): boolean;
  /** Parameters besides text/voice/rate/volume that change the audio (for the cache key). */
  cacheParams?(request: SynthesisRequest): Record<string, string | number | undefined>;
  close(): Promise<void>;
}

/**
 * An engine's own failure (its process died, its output was broken, its model
 * would not load), in the engine's words: they become the utterance's reason
 * and the fallback's account, as they were before they had a code. The class
 * tells it apart from the registry's own VOX_ERR_SYNTHESIS_FAILED, whose text
 * is already whole: /v1/synthesize puts an engine's words inside the
 * catalogue's sentence (routes/synthesize.ts).
 */
export class EngineError extends VoxError {
  constructor(message: string) {
    super('VOX_ERR_SYNTHESIS_FAILED', { message });
  }
}

export function assertEngine(engine: unknown): asserts engine is Engine {
  const e = engine as Partial<Engine> | null;
  const missing = ['ready', 'voices', 'synthesize', 'understandsTags', 'close'].filter(
    (k) => typeof (e as Record<string, unknown> | null)?.[k] !== 'function',
  );
  if (!e || typeof e.name !== 'string' || missing.length > 0) {
    throw new TypeError(`not a vox engine: missing ${typeof e?.name !== 'string' ? 'name ' : ''}${missing.join(', ')}`);
  }
}
