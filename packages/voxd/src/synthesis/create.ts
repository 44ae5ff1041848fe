/**
 * Wires the speech side of voxd: the engine registry (with the cache and the
 * embedded fallback). `VOXD_ENGINE` sets the daemon's
 * default engine for requests that name none (default: automatic).
 */
import type { Voice } from '@vox/protocol';
import type { Synthesizer } from './synthesizer.js';
import type { Engine } from '../engines/engine.js';
import { createEngineRegistry, type EngineRegistry, type RegistryLog } from '../engines/registry.js';
import type { SherpaEngine } from '../engines/sherpa.js';

export interface SynthesisSetup {
  synthesizer: Synthesizer & { voices(engine?: string): Promise<Voice[]> };
  registry: EngineRegistry;
  close(): Promise<void>;
}

export async function createSynthesis(options: {
  env: NodeJS.ProcessEnv;
  home: string;
  embedded: Engine;
  log: RegistryLog;
  cache?: false;
  /** The sherpa engine, built with voxd's settings; default one with the defaults. */
  sherpa?: SherpaEngine;
}): Promise<SynthesisSetup> {
  const registry = createEngineRegistry({
    env: options.env,
    home: options.home,
    embedded: options.embedded,
    log: options.log,
    ...(options.cache === false ? { cache: false as const } : {}),
    ...(options.sherpa ? { sherpa: options.sherpa } : {}),
  });
  const fallbackDefault =
    options.env.VOXD_ENGINE && options.env.VOXD_ENGINE !== 'auto' ? options.env.VOXD_ENGINE : undefined;
  if (fallbackDefault && !registry.names().includes(fallbackDefault)) {
    // Can't happen from voxd: the settings check refused any engine not in ENGINE_NAMES at the edge; kept for direct callers.
    throw new Error(
      `VOXD_ENGINE=${fallbackDefault} is not an engine; use one of ${registry.names().join(', ')} or auto`,
    );
  }
  const resolve = (requested?: string, voice?: string) =>
    registry.resolve(requested && requested !== 'auto' ? requested : fallbackDefault, voice);
  return {
    registry,
    synthesizer: {
      resolve,
      synthesize: (request) => registry.synthesize(request),
      voices: async (engine) => (await resolve(engine)).voices(),
    },
    close: () => registry.close(),
  };
}
