/**
 * The engines voxd knows, how one is chosen, the cache in front of them, and
 * the fallback behind them.
 *
 * Design notes:
 * - The engines, which are cloud ones and `auto`'s order come from
 *   @vox/protocol's table (ENGINES); this module only builds each.
 * - `auto` picks the first ready of elevenlabs, openai, sherpa (an installed
 *   neural voice model), the system engine (espeak-ng; `say` on macOS) and the
 *   embedded engine. Cloud engines are "ready" when their key is set; no
 *   network call is made to find out. A request whose voice an engine claims
 *   (a model's speaker) goes to that engine, and an engine that claims voices
 *   is passed over for a voice it does not know (`en-us` stays with eSpeak).
 * - A named engine is used even when it is not ready: it then falls back, so
 *   the caller hears speech and is told why (`fallbackReason`), instead of
 *   getting an error that a hook would ignore anyway.
 * - Fallback happens only before the first audio: the first chunk is awaited
 *   here, so a 401, an exhausted 429, a 5xx, a timeout or a crash all land on
 *   the embedded engine. Once audio has played, a failure is rethrown: speaking
 *   the sentence again in another voice would repeat what was heard.
 * - The text comes prepared for the engine it names (tags kept only where
 *   that engine performs them: text/cleanup.ts strips them, once). The
 *   embedded fallback gets it without tags (stripped here: they may have been
 *   kept for the engine that failed), and without the voice and model (those
 *   name things of the failed engine).
 * - A request carrying its own `apiKey` is never cached (neither read nor
 *   written), and that key goes only to the cloud engine that was named.
 */
import { automaticEngines, CLOUD_ENGINES, ENGINES, homePaths, type EngineName, type Voice } from '@vox/protocol';
import { createCache, type Cache } from '../audio/cache.js';
import { VoxError } from '../errors.js';
import { createKeys, type Keys } from '../access/keys.js';
import { stripTags } from '../text/tags.js';
import { assertEngine, type Engine, type Synthesis, type SynthesisRequest } from './engine.js';
import { ElevenLabsEngine } from './elevenlabs.js';
import { EspeakNgEngine } from './espeak-ng.js';
import type { HttpClientOptions } from './http.js';
import { OpenAIEngine } from './openai.js';
import { SayEngine } from './say.js';
import { SherpaEngine } from './sherpa.js';

export interface RegistryLog {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export interface EngineRegistryOptions {
  /** Keys, base URLs and PATH are read from here. */
  env: NodeJS.ProcessEnv;
  /** VOX_HOME: `keys.env` and `cache/` live here. */
  home: string;
  /** The always-available engine (`espeak`), used last and as the fallback. */
  embedded: Engine;
  /** The synthesis cache; default one in `VOX_HOME/cache` (200 MB); `false` for none. */
  cache?: Cache | false;
  log?: RegistryLog;
  /** Default process.platform; picks the system engine. */
  platform?: NodeJS.Platform;
  /** Timeouts and retries of the cloud engines' HTTP clients. */
  http?: HttpClientOptions;
  /** The sherpa engine; default one on `VOX_HOME/models`. */
  sherpa?: SherpaEngine;
}

export interface RegistrySynthesis {
  /** The engine that actually produced the audio. */
  engine: string;
  /** Why it is not the one asked for, e.g. `openai: 401 unauthorized (check OPENAI_API_KEY)`. */
  fallbackReason?: string;
  /** True when the audio came from the cache. */
  cached: boolean;
  synthesis: Synthesis;
}

export interface EngineRegistry {
  /** Every known engine name, in automatic order, `say` included on any platform. */
  names(): string[];
  get(name: string): Engine | undefined;
  /**
   * The engine for a request: `auto`/undefined picks the first ready one (for
   * `voice`, when given: see the design notes); a known name gives that
   * engine, ready or not. Unknown names throw an error with
   * `code: 'VOX_ERR_ENGINE_UNKNOWN'`.
   */
  resolve(requested?: string, voice?: string): Promise<Engine>;
  /**
   * `engine`: the engine resolve() gave for the request (the dispatcher and
   * /v1/synthesize pass it, so it is resolved once), or a name to resolve
   * here. The text is prepared for that engine.
   */
  synthesize(
    request: SynthesisRequest & { engine: Engine | string; apiKey?: string; cacheOnly?: boolean },
  ): Promise<RegistrySynthesis>;
  /** Voices of the named engine, or of the automatic one. */
  voices(engine?: string): Promise<Voice[]>;
  readonly keys: Keys;
  /** Waits for cache writes, then closes every engine (the embedded one too) and the cache. Idempotent. */
  close(): Promise<void>;
}

const CLOUD = new Set<string>(CLOUD_ENGINES.map((e) => e.name));
const EMBEDDED = ENGINES.find((e) => 'embedded' in e)!.name;
/** Size of the chunks a cache hit is replayed in: ~0.7 s at 22050 Hz. */
const REPLAY_CHUNK_BYTES = 32 * 1024;

export function createEngineRegistry(options: EngineRegistryOptions): EngineRegistry {
  assertEngine(options.embedded);
  const { env, log } = options;
  const embedded = options.embedded;
  const platform = options.platform ?? process.platform;
  const keys = createKeys({ env, home: options.home, platform });
  for (const warning of keys.warnings()) log?.warn({ path: keys.path }, warning);

  // One per row of the table (a row without one, or one without a row, fails to compile), in this order:
  // names() and the unknown-engine message list them so.
  const http = options.http ? { http: options.http } : {};
  const build: { [N in EngineName]: () => Engine } = {
    elevenlabs: () => new ElevenLabsEngine({ keys, env, ...http }),
    openai: () => new OpenAIEngine({ keys, env, ...http }),
    'espeak-ng': () => new EspeakNgEngine({ env, platform }),
    say: () => new SayEngine({ env, platform }),
    sherpa: () => options.sherpa ?? new SherpaEngine({ home: options.home, env }),
    espeak: () => embedded,
  };
  const engines = new Map<string, Engine>();
  for (const make of Object.values(build)) {
    const e = make();
    engines.set(e.name, e);
  }
  const automatic = automaticEngines(platform).map((name) => (name === EMBEDDED ? embedded.name : name));

  const cache: Cache | undefined =
    options.cache === false
      ? undefined
      : (options.cache ?? createCache({ dir: homePaths(options.home).cache, ...(log ? { log } : {}) }));
  const writes = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;

  function known(name: string): Engine {
    const engine = engines.get(name);
    if (!engine)
      throw new VoxError('VOX_ERR_ENGINE_UNKNOWN', JSON.stringify(name), [...engines.keys(), 'auto'].join(', '));
    return engine;
  }

  const isReady = async (engine: Engine) => (await engine.ready().catch(() => ({ ready: false }))).ready;

  async function resolve(requested?: string, voice?: string): Promise<Engine> {
    if (requested && requested !== 'auto') return known(requested);
    if (voice) {
      for (const name of automatic) {
        const engine = engines.get(name)!;
        if (engine.claims?.(voice) && (await isReady(engine))) return engine;
      }
    }
    for (const name of automatic) {
      const engine = engines.get(name)!;
      if (voice && engine.claims && !engine.claims(voice)) continue;
      if (await isReady(engine)) return engine;
    }
    return embedded;
  }

  const keyOf = (engine: Engine, req: SynthesisRequest) =>
    cache?.key({
      engine: engine.name,
      model: req.model,
      voice: req.voice,
      rate: req.rate,
      volume: req.volume,
      params: engine.cacheParams?.(req),
      text: req.text,
    });

  /** One try on one engine: the cache, else the engine up to its first chunk. */
  async function attempt(
    engine: Engine,
    req: SynthesisRequest & { apiKey?: string },
    cacheable: boolean,
  ): Promise<RegistrySynthesis> {
    const key = cacheable ? keyOf(engine, req) : undefined;
    if (key && cache) {
      const hit = await cache.get(key).catch(() => undefined);
      if (hit)
        return {
          engine: engine.name,
          cached: true,
          synthesis: { format: hit.format, chunks: replay(hit.pcm, req.signal) },
        };
    }
    const synthesis = await engine.synthesize(req);
    const it = synthesis.chunks[Symbol.asyncIterator]();
    const first = await it.next();
    const onComplete =
      key && cache
        ? (parts: Buffer[]) => {
            const w = cache.put(key, synthesis.format, parts).finally(() => writes.delete(w));
            writes.add(w);
          }
        : undefined;
    return {
      engine: engine.name,
      cached: false,
      synthesis: { format: synthesis.format, chunks: rejoin(first, it, req.signal, onComplete) },
    };
  }

  /** A replay: the audio the cache holds for `req` on `engine`, never synthesized anew. */
  async function cached(engine: Engine, req: SynthesisRequest): Promise<RegistrySynthesis> {
    // The audio just played may still be on its way to the cache.
    await Promise.allSettled([...writes]);
    const key = keyOf(engine, req);
    const hit = key && cache ? await cache.get(key).catch(() => undefined) : undefined;
    if (!hit)
      throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', {
        message: `the audio of "${req.text.slice(0, 60)}" is no longer in the cache, and a replay never synthesizes`,
      });
    return {
      engine: engine.name,
      cached: true,
      synthesis: { format: hit.format, chunks: replay(hit.pcm, req.signal) },
    };
  }

  async function synthesize(
    request: SynthesisRequest & { engine: Engine | string; apiKey?: string; cacheOnly?: boolean },
  ): Promise<RegistrySynthesis> {
    const given = typeof request.engine === 'object';
    const engine = typeof request.engine === 'object' ? request.engine : await resolve(request.engine, request.voice);
    if (request.cacheOnly) {
      const { engine: _e, apiKey: _k, cacheOnly: _c, ...base } = request;
      return cached(engine, base);
    }
    // A caller's key goes only to the cloud engine it named, never to whichever `auto` found.
    // An engine resolved already counts as named, as its name did before (the dispatcher passed the name resolve() gave).
    const named = given || (request.engine !== undefined && request.engine !== 'auto');
    const ownKey = request.apiKey && named && CLOUD.has(engine.name) ? request.apiKey : undefined;
    const { engine: _name, apiKey: _key, cacheOnly: _cache, ...base } = request;
    const req: SynthesisRequest & { apiKey?: string } = ownKey ? { ...base, apiKey: ownKey } : base;
    // A request with its own key is never cached, even when the key went unused.
    const cacheable = request.apiKey === undefined;

    if (engine !== embedded && !ownKey) {
      const r = await engine.ready().catch((err: Error) => ({ ready: false as const, reason: err.message }));
      if (!r.ready) return fallback(`${engine.name}: not ready (${r.reason})`, req, cacheable);
    }
    try {
      return await attempt(engine, req, cacheable);
    } catch (err) {
      if (request.signal?.aborted || engine === embedded) throw err;
      return fallback(`${engine.name}: ${(err as Error).message}`, req, cacheable);
    }
  }

  async function fallback(
    reason: string,
    req: SynthesisRequest & { apiKey?: string },
    cacheable: boolean,
  ): Promise<RegistrySynthesis> {
    log?.warn({ engine: embedded.name, reason }, 'engine failed before audio; falling back');
    const { voice: _v, model: _m, apiKey: _k, ...rest } = req;
    try {
      return {
        ...(await attempt(embedded, { ...rest, text: stripTags(req.text) }, cacheable)),
        fallbackReason: reason,
      };
    } catch (err) {
      throw new VoxError('VOX_ERR_SYNTHESIS_FAILED', {
        message: `${reason}; the fallback ${embedded.name} failed too: ${(err as Error).message}`,
      });
    }
  }

  return {
    keys,
    names: () => [...engines.keys()],
    get: (name) => engines.get(name),
    resolve,
    synthesize,
    async voices(name) {
      const engine = name && name !== 'auto' ? known(name) : await resolve();
      return engine.voices();
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...writes]);
        const errors: unknown[] = [];
        for (const engine of [...engines.values()].reverse()) {
          await engine.close().catch((err: unknown) => errors.push(err));
        }
        await cache?.close().catch((err: unknown) => errors.push(err));
        if (errors.length)
          log?.warn({ errors: errors.map((e) => (e as Error).message) }, 'errors while closing engines');
      })();
      return closing;
    },
  };
}

/** The first chunk (already read) then the rest; hands the whole audio to `onComplete` when it ran to the end unaborted. */
async function* rejoin(
  first: IteratorResult<Buffer>,
  it: AsyncIterator<Buffer>,
  signal: AbortSignal | undefined,
  onComplete?: (parts: Buffer[]) => void,
): AsyncGenerator<Buffer> {
  const parts: Buffer[] = [];
  let complete = false;
  try {
    let r = first;
    while (!r.done) {
      if (onComplete) parts.push(r.value);
      yield r.value;
      r = await it.next();
    }
    complete = true;
  } finally {
    if (!complete) await it.return?.();
  }
  if (onComplete && !signal?.aborted && parts.length > 0) onComplete(parts);
}

async function* replay(pcm: Buffer, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  for (let i = 0; i < pcm.length; i += REPLAY_CHUNK_BYTES) {
    if (signal?.aborted) return;
    yield pcm.subarray(i, i + REPLAY_CHUNK_BYTES);
  }
}
