/**
 * voxd's own settings: one YAML file in the user's config directory
 * (`voxd.yaml`), read at every voxd start, edited by `vox daemon config`.
 *
 * Design notes:
 * - The file decides, not the environment of whichever client happened to
 *   start voxd. `VOXD_*` variables still override it for a voxd run by hand
 *   or by a test harness; clients leave them out when they auto-start voxd.
 * - YAML (the format of `.vox/config.md`), read with the core schema: no tag
 *   can run code, and an unknown tag is a problem, not a string. JSON would
 *   lose the comments a person writes beside a setting.
 * - One strict SCHEMA and one DEFAULTS object; every problem of a file is
 *   collected with its file, line, key, value, the allowed values and the
 *   closest known key. Nothing is silently replaced by its default.
 * - Keys are dotted paths, so a section (`transcriber: {model: ...}`, read as
 *   `transcriber.model`) is one more SCHEMA entry.
 * - This module imports `yaml`, so it is its own entry
 *   (`@vox/protocol/settings`), never loaded on a client's hot path.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';
import { DEFAULT_HOST, DEFAULT_PORT, ENGINE_NAMES } from './defaults.js';
import { closest } from './closest.js';

const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
/** The closest candidate to a likely typo, after the synonyms (folded name -> candidate). */
function closestName<T extends string>(word: string, candidates: readonly T[], synonyms: Readonly<Record<string, T>> = {}): T | undefined {
  return (Object.hasOwn(synonyms, fold(word)) ? synonyms[fold(word)] : undefined) ?? closest(word, candidates, fold);
}

/** File name inside the settings directory. */
export const SETTINGS_FILE_NAME = 'voxd.yaml';

/**
 * The directory of voxd's settings: `VOX_CONFIG_HOME` when set (tests, or a
 * second setup), else `$XDG_CONFIG_HOME/vox` or `~/.config/vox` on Linux,
 * `~/Library/Application Support/vox` on macOS, `%APPDATA%\vox` on Windows.
 */
export function settingsDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = env.HOME || homedir()): string {
  if (env.VOX_CONFIG_HOME) return env.VOX_CONFIG_HOME;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'vox');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'vox');
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(xdg, 'vox');
}

export function settingsPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home?: string): string {
  return join(settingsDir(env, platform, home), SETTINGS_FILE_NAME);
}

/** Sink kinds voxd builds (voxd's sinks/create.ts; a test keeps them in step). */
export const AUDIO_SINK_KINDS = ['auto', 'audioio', 'speaker', 'command', 'file', 'null'] as const;
/** Player commands of the `command` sink (voxd's sinks/command.ts). */
export const AUDIO_PLAYERS = ['paplay', 'pw-play', 'aplay', 'afplay'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface DaemonSettings {
  /** Audio sink spec. Default `auto`: audioio, then speaker, then a player command. */
  audio: string;
  /** Default engine for requests that name none. Default `auto`. */
  engine: string;
  /** TCP port; 0 picks a free one. Default DEFAULT_PORT (8421). */
  port: number;
  /** Address to bind; loopback only. Default DEFAULT_HOST (127.0.0.1). */
  host: string;
  /** pino level of voxd.log. Default `info`. */
  logLevel: string;
  /** The microphone's recorder: `auto` (arecord, then rec, then sox, on PATH), one of those names, or a path to one. Default `auto`. */
  'listen.recorder': string;
  /** Root of an OpenAI-compatible transcription API (`.../v1`); '' means none (listen records only). Default ''. */
  'transcriber.url': string;
  /** The `model` field sent to the transcriber. Default `whisper-1`. */
  'transcriber.model': string;
  /** Longest wait for a transcript, in ms. Default 30000. */
  'transcriber.timeoutMs': number;
  /** A voice model with no synthesis for this long (ms) is unloaded (its host process exits); 0 keeps models loaded. Default 0. */
  'sherpa.idleUnloadMs': number;
}

export type SettingKey = keyof DaemonSettings;

export const SETTINGS_DEFAULTS: Readonly<DaemonSettings> = Object.freeze({
  audio: 'auto',
  engine: 'auto',
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  logLevel: 'info',
  'listen.recorder': 'auto',
  'transcriber.url': '',
  'transcriber.model': 'whisper-1',
  'transcriber.timeoutMs': 30_000,
  'sherpa.idleUnloadMs': 0,
});

/** The longest `sherpa.idleUnloadMs` (one day, in ms). */
export const MAX_IDLE_UNLOAD_MS = 86_400_000;

/** Recorder programs voxd knows the arguments of (voxd's capture.ts). */
export const RECORDERS = ['arecord', 'rec', 'sox'] as const;

export interface SettingRule {
  /** The YAML type, for docs and messages. */
  type: 'string' | 'integer';
  /** The environment variable that overrides the file. */
  env: string;
  /** voxd's flag that overrides both, if any. */
  flag?: string;
  /** What is allowed, in words; ends every "not allowed" message. */
  allowed: string;
  /** Undefined when allowed, else why not (a few words). */
  check(value: unknown): string | undefined;
}

const LOOPBACK = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

/** Why an audio spec is not one voxd can build, or undefined. */
export function audioSpecProblem(spec: string): string | undefined {
  const [kind = '', ...rest] = spec.split(':');
  const arg = rest.join(':');
  if (kind === 'auto' || kind === 'audioio' || kind === 'speaker' || kind === 'null') return arg || spec.includes(':') ? `"${kind}" takes nothing after it` : undefined;
  if (kind === 'command') {
    if (!spec.includes(':')) return undefined;
    return (AUDIO_PLAYERS as readonly string[]).includes(arg) ? undefined : `unknown player "${arg}" (players: ${AUDIO_PLAYERS.join(', ')})`;
  }
  if (kind === 'file') {
    const [dir = '', query = ''] = arg.split('?');
    if (!dir) return 'file: needs a directory, file:DIR';
    if (!isAbsolute(dir)) return `the directory "${dir}" is not an absolute path`;
    for (const [k, v] of new URLSearchParams(query)) {
      if (k !== 'realtime' || !['0', '1', 'true', 'false'].includes(v)) return `unknown option "${k}=${v}" (only realtime=0 or realtime=1)`;
    }
    return undefined;
  }
  const near = closestName(kind, AUDIO_SINK_KINDS);
  return `unknown sink "${kind}"${near ? ` (did you mean "${near}"?)` : ''}`;
}

const oneOf = (values: readonly string[]) => (v: unknown) => {
  if (typeof v === 'string' && values.includes(v)) return undefined;
  const near = typeof v === 'string' ? closestName(v, values) : undefined;
  return near ? `did you mean "${near}"?` : '';
};

/** The one strict schema: every key voxd.yaml may hold. */
export const SETTINGS_SCHEMA: { readonly [K in SettingKey]: SettingRule } = Object.freeze({
  audio: {
    type: 'string',
    env: 'VOXD_AUDIO',
    flag: '--audio',
    allowed: `${AUDIO_SINK_KINDS.map((k) => (k === 'command' ? 'command[:PLAYER]' : k === 'file' ? 'file:/ABSOLUTE/DIR[?realtime=0]' : k)).join(', ')} (PLAYER: ${AUDIO_PLAYERS.join(', ')})`,
    check: (v) => (typeof v === 'string' && v.trim() ? audioSpecProblem(v) : 'not a sink spec'),
  },
  engine: { type: 'string', env: 'VOXD_ENGINE', flag: '--engine', allowed: `one of ${ENGINE_NAMES.join(', ')}`, check: oneOf(ENGINE_NAMES) },
  port: {
    type: 'integer',
    env: 'VOXD_PORT',
    flag: '--port',
    allowed: 'an integer from 0 to 65535 (0 = any free port)',
    check: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'not a port'),
  },
  host: {
    type: 'string',
    env: 'VOXD_HOST',
    flag: '--host',
    allowed: 'a loopback address: 127.0.0.1 (or another 127.x.x.x), ::1 or localhost',
    check: (v) => (typeof v === 'string' && LOOPBACK.test(v) ? undefined : 'voxd serves the local user only, and refuses requests for any other host name'),
  },
  logLevel: { type: 'string', env: 'VOXD_LOG_LEVEL', allowed: `one of ${LOG_LEVELS.join(', ')}`, check: oneOf(LOG_LEVELS) },
  'listen.recorder': {
    type: 'string',
    env: 'VOXD_RECORDER',
    allowed: `auto, ${RECORDERS.join(', ')}, or an absolute path to one of them (its file name says which)`,
    check: (v) => (typeof v === 'string' ? recorderProblem(v) : 'not a recorder'),
  },
  'transcriber.url': {
    type: 'string',
    env: 'VOXD_TRANSCRIBER_URL',
    allowed: 'the http:// or https:// root of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1 ("" for none)',
    check: (v) => (typeof v === 'string' ? transcriberUrlProblem(v) : 'not a URL'),
  },
  'transcriber.model': {
    type: 'string',
    env: 'VOXD_TRANSCRIBER_MODEL',
    allowed: 'a model name the transcriber knows, e.g. whisper-1 (OpenAI) or Systran/faster-whisper-small (speaches)',
    check: (v) => (typeof v === 'string' && v.trim() && v.length <= 200 ? undefined : 'not a model name'),
  },
  'transcriber.timeoutMs': {
    type: 'integer',
    env: 'VOXD_TRANSCRIBER_TIMEOUT_MS',
    allowed: 'an integer from 100 to 600000 (ms)',
    check: (v) => (Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 600_000 ? undefined : 'out of range'),
  },
  'sherpa.idleUnloadMs': {
    type: 'integer',
    env: 'VOXD_SHERPA_IDLE_UNLOAD_MS',
    allowed: `0 (keep voice models loaded) or an integer from 100 to ${MAX_IDLE_UNLOAD_MS} (ms of no speech before a model is unloaded, e.g. 600000 for 10 minutes)`,
    check: (v) => {
      if (!Number.isInteger(v)) return typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*(?:ms|s|min|m|h)\s*$/i.test(v) ? 'a number of milliseconds, without a unit' : 'not an integer';
      const n = v as number;
      return n === 0 || (n >= 100 && n <= MAX_IDLE_UNLOAD_MS) ? undefined : 'out of range';
    },
  },
});

/** Why a `listen.recorder` value is not one voxd can use, or undefined. */
export function recorderProblem(v: string): string | undefined {
  if (v === 'auto' || (RECORDERS as readonly string[]).includes(v)) return undefined;
  if (!isAbsolute(v)) {
    const near = closestName(v, ['auto', ...RECORDERS]);
    return near ? `did you mean "${near}"?` : 'a name must be one of the known recorders; anything else needs an absolute path';
  }
  const base = v.split(/[\\/]/).pop() ?? '';
  return (RECORDERS as readonly string[]).includes(base.replace(/\.exe$/i, '')) ? undefined : `the file name "${base}" is none of ${RECORDERS.join(', ')}, so voxd cannot tell which arguments it takes`;
}

/** Why a `transcriber.url` value is not usable, or undefined ('' is: no transcriber). */
export function transcriberUrlProblem(v: string): string | undefined {
  if (v === '') return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `"${u.protocol}" is not http: or https:`;
  if (u.username || u.password) return 'put the key in TRANSCRIBER_API_KEY (VOX_HOME/keys.env), not in the URL';
  if (/\/audio\/transcriptions\/?$/.test(u.pathname)) return 'give the API root, without /audio/transcriptions';
  return undefined;
}

export const SETTING_KEYS = Object.freeze(Object.keys(SETTINGS_SCHEMA) as SettingKey[]);

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS_SCHEMA, key);
}

/** One thing wrong with a setting, where it was found. */
export interface SettingsProblem {
  /** The file, or the variable or flag the value came from. */
  origin: string;
  line?: number;
  key?: string;
  value?: unknown;
  allowed?: string;
  message: string;
}

/** Every problem of one read, in one error (STYLE.md habit 8). */
export class SettingsError extends Error {
  override name = 'SettingsError';
  constructor(readonly problems: SettingsProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

export function formatProblem(p: SettingsProblem): string {
  return `${p.origin}${p.line ? `:${p.line}` : ''}: ${p.message}`;
}

function show(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** A problem for an unknown key, naming the closest known one. */
export function unknownSettingProblem(key: string, origin: string, line?: number): SettingsProblem {
  const near = closestName(key, SETTING_KEYS, { sink: 'audio', output: 'audio', device: 'audio', level: 'logLevel', loglevel: 'logLevel', address: 'host', provider: 'engine', tts: 'engine' });
  return {
    origin,
    line,
    key,
    allowed: SETTING_KEYS.join(', '),
    message: `unknown key "${key}"; ${near ? `did you mean "${near}"?` : `known keys: ${SETTING_KEYS.join(', ')}`}`,
  };
}

/** Checks one value. Undefined when it is allowed. */
export function checkSetting(key: string, value: unknown, origin: string, line?: number): SettingsProblem | undefined {
  if (!isSettingKey(key)) return unknownSettingProblem(key, origin, line);
  const rule = SETTINGS_SCHEMA[key];
  if (value === null || value === undefined) {
    const quote = key === 'audio' ? ' (YAML reads a bare null as no value: write audio: "null" for the sink that discards audio)' : '';
    return { origin, line, key, value: null, allowed: rule.allowed, message: `${key} has no value${quote}; give ${rule.allowed}, or delete the line to use the default` };
  }
  const why = rule.check(value);
  if (why === undefined) return undefined;
  return { origin, line, key, value, allowed: rule.allowed, message: `${key}: ${show(value)} is not allowed${why ? ` (${why})` : ''}; use ${rule.allowed}` };
}

/**
 * A value typed as text (a command-line argument, an environment variable),
 * converted to the key's type: digits become a number for an integer key.
 * Anything else stays text, so checkSetting names it as it was written.
 */
export function settingFromText(key: SettingKey, text: string): unknown {
  if (SETTINGS_SCHEMA[key].type === 'integer' && /^\s*-?\d+\s*$/.test(text)) return Number(text);
  return text;
}

export interface ParsedSettings {
  values: Partial<DaemonSettings>;
  /** 1-based line of each key that was set. */
  lines: Partial<Record<SettingKey, number>>;
  problems: SettingsProblem[];
}

/** Parse and check the text of a settings file. Never throws; problems are collected. */
export function parseSettings(text: string, file: string): ParsedSettings {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: false, lineCounter });
  const out: ParsedSettings = { values: {}, lines: {}, problems: [] };
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  for (const e of [...doc.errors, ...doc.warnings]) {
    out.problems.push({ origin: file, line: lineOf(e.pos[0]), message: `YAML: ${e.message.split('\n')[0]}` });
  }
  if (doc.errors.length) return out;
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return out;
  if (!isMap(root)) {
    out.problems.push({ origin: file, line: lineOf(root.range?.[0]), message: 'the file must hold "key: value" lines (a YAML map)' });
    return out;
  }
  const walk = (map: YAMLMap<unknown, unknown>, prefix: string) => {
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const key = `${prefix}${isScalar(keyNode) ? String(keyNode.value) : String(keyNode)}`;
      const line = lineOf(keyNode?.range?.[0]);
      const valueNode = pair.value as Node | null;
      if (isMap(valueNode) && !isSettingKey(key)) {
        // A section: its keys are `section.key`.
        if (SETTING_KEYS.some((k) => k.startsWith(`${key}.`))) walk(valueNode, `${key}.`);
        else out.problems.push(unknownSettingProblem(key, file, line));
        continue;
      }
      const value = valueNode === null ? null : valueNode.toJSON();
      const problem = checkSetting(key, value, file, line);
      if (problem) out.problems.push(problem);
      else {
        (out.values as Record<string, unknown>)[key] = value;
        if (line !== undefined) out.lines[key as SettingKey] = line;
      }
    }
  };
  walk(root, '');
  return out;
}

export interface SettingsFile extends ParsedSettings {
  path: string;
  /** False when there is no file (then every value is a default). */
  exists: boolean;
  /** The text as read, '' without a file. */
  text: string;
}

/** Read and check the settings file. A missing file is no problem; an unreadable one is. */
export function readSettingsFile(path: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { path, exists: false, text: '', values: {}, lines: {}, problems: [] };
    return { path, exists: true, text: '', values: {}, lines: {}, problems: [{ origin: path, message: `cannot read the settings file: ${code ?? (err as Error).message}` }] };
  }
  return { path, exists: true, text, ...parseSettings(text, path) };
}

/** Where a value in effect came from. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface ResolvedSettings {
  values: DaemonSettings;
  sources: Record<SettingKey, SettingSource>;
  problems: SettingsProblem[];
}

/**
 * The settings in effect: voxd's flags, else the environment, else the file,
 * else the default. Every problem (the file's, the environment's, the flags')
 * is collected.
 */
export function resolveSettings(input: { env: NodeJS.ProcessEnv; file: Pick<SettingsFile, 'values' | 'problems'>; flags?: Partial<Record<SettingKey, string>> }): ResolvedSettings {
  const values = { ...SETTINGS_DEFAULTS } as Record<SettingKey, unknown>;
  const sources = Object.fromEntries(SETTING_KEYS.map((k) => [k, 'default'])) as Record<SettingKey, SettingSource>;
  const problems = [...input.file.problems];
  for (const key of SETTING_KEYS) {
    const rule = SETTINGS_SCHEMA[key];
    const flag = input.flags?.[key];
    const fromEnv = input.env[rule.env];
    let chosen: { value: unknown; source: SettingSource; origin: string } | undefined;
    if (flag !== undefined) chosen = { value: settingFromText(key, flag), source: 'flag', origin: rule.flag ?? key };
    else if (fromEnv !== undefined && fromEnv !== '') chosen = { value: settingFromText(key, fromEnv), source: 'env', origin: rule.env };
    else if (input.file.values[key] !== undefined) chosen = { value: input.file.values[key], source: 'file', origin: 'file' };
    if (!chosen) continue;
    if (chosen.source !== 'file') {
      const problem = checkSetting(key, chosen.value, chosen.origin);
      if (problem) {
        problems.push(problem);
        continue;
      }
    }
    values[key] = chosen.value;
    sources[key] = chosen.source;
  }
  return { values: values as unknown as DaemonSettings, sources, problems };
}
