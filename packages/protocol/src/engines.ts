/**
 * The speech engines, in one table: voxd's registry builds one engine per row
 * (and its type refuses a row without one), takes the cloud set and `auto`'s
 * order from it; `vox doctor` looks for each cloud key; the request schemas,
 * `.vox/config.md` and `voxd.yaml` accept the names (ENGINE_NAMES); a test
 * checks that docs/engines.md names each. A small constant with no imports:
 * `vox say` loads it with the request schemas.
 */

export interface EngineInfo {
  readonly name: string;
  /** `cloud`: an API reached with a key (ready when the key is set); `local`: runs on this machine. */
  readonly kind: 'cloud' | 'local';
  /** A cloud engine's key: an environment variable, or a line of VOX_HOME/keys.env. */
  readonly key?: string;
  /** Its place in `auto`'s order (the first ready wins), lowest first. */
  readonly rank: number;
  /** Where `auto` considers it when not everywhere: the system engine is `say` on macOS, espeak-ng elsewhere. */
  readonly autoOn?: 'darwin' | 'not-darwin';
  /** The engine that is always there: last in `auto`'s order, and the fallback of every other. */
  readonly embedded?: true;
}

/** In the order messages list them (`use one of ...`). */
export const ENGINES = [
  { name: 'espeak', kind: 'local', rank: 5, embedded: true },
  { name: 'espeak-ng', kind: 'local', rank: 4, autoOn: 'not-darwin' },
  { name: 'say', kind: 'local', rank: 4, autoOn: 'darwin' },
  { name: 'sherpa', kind: 'local', rank: 3 },
  { name: 'openai', kind: 'cloud', key: 'OPENAI_API_KEY', rank: 2 },
  { name: 'elevenlabs', kind: 'cloud', key: 'ELEVENLABS_API_KEY', rank: 1 },
] as const satisfies readonly EngineInfo[];

export type EngineName = (typeof ENGINES)[number]['name'];

/** Engines a request, a project or voxd's settings may name; `auto` lets voxd choose. */
export const ENGINE_NAMES: readonly (EngineName | 'auto')[] = [...ENGINES.map((e) => e.name), 'auto'];

/** The names `auto` tries on `platform`, in order. */
export function automaticEngines(platform: string): EngineName[] {
  const mac = platform === 'darwin';
  return ENGINES.filter((e: EngineInfo) => !e.autoOn || (e.autoOn === 'darwin') === mac)
    .sort((a, b) => a.rank - b.rank)
    .map((e) => e.name);
}

/** The cloud engines, each with its key. */
export const CLOUD_ENGINES = ENGINES.filter(
  (e: EngineInfo): e is Extract<(typeof ENGINES)[number], { kind: 'cloud' }> => e.kind === 'cloud',
);

/** The key variable of cloud engine `name`. */
export function engineKey(name: (typeof CLOUD_ENGINES)[number]['name']): string {
  return CLOUD_ENGINES.find((e) => e.name === name)!.key;
}
