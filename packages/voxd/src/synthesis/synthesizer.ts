/**
 * What the dispatcher and /v1/synthesize need of the engines: the engine for
 * a request, chosen once (resolve), then audio from it (synthesize). The
 * registry (engines/registry.ts) provides it; singleEngine() is one engine
 * alone, for tests and benches.
 */
import type { Engine, Synthesis, SynthesisRequest } from '../engines/engine.js';
import { VoxError } from '../errors.js';

export interface Synthesizer {
  resolve(requested?: string, voice?: string): Promise<Engine>;
  /**
   * `engine`: what resolve() gave for this request; the text is prepared for it (tags only if it performs them).
   * `cacheOnly`: the audio must come from the synthesis cache (a replay), else this fails.
   */
  synthesize(request: SynthesisRequest & { engine: Engine; apiKey?: string; cacheOnly?: boolean }): Promise<{
    engine: string;
    fallbackReason?: string;
    cached?: boolean;
    synthesis: Synthesis;
  }>;
}

/** A synthesizer over one engine: used until the registry picks among several. */
export function singleEngine(engine: Engine): Synthesizer {
  return {
    async resolve(requested) {
      if (requested && requested !== 'auto' && requested !== engine.name) {
        throw new VoxError('VOX_ERR_ENGINE_UNKNOWN', JSON.stringify(requested), engine.name);
      }
      return engine;
    },
    async synthesize({ engine: _resolved, cacheOnly, ...request }) {
      if (cacheOnly)
        throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', { message: 'there is no synthesis cache to replay from' });
      return { engine: engine.name, synthesis: await engine.synthesize(request) };
    },
  };
}
