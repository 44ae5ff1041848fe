/**
 * What voxd.yaml may hold: every key, its type, default and allowed values
 * (one strict SETTINGS_SCHEMA, one frozen SETTINGS_DEFAULTS), and the checks
 * of a value. No I/O, no `yaml`: settings/file.ts reads the file.
 */
import { isAbsolute } from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORT } from '../defaults.js';
import { ENGINE_NAMES } from '../engines.js';
import { closest } from '../util/closest.js';
import { ATTENTION_MODES } from '../wire/attention.js';

const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
/** The closest candidate to a likely typo, after the synonyms (folded name -> candidate). */
export function closestName<T extends string>(
  word: string,
  candidates: readonly T[],
  synonyms: Readonly<Record<string, T>> = {},
): T | undefined {
  return (Object.hasOwn(synonyms, fold(word)) ? synonyms[fold(word)] : undefined) ?? closest(word, candidates, fold);
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
  /** End-pointing: `auto` (Silero VAD when its model is installed and sherpa-onnx-node loads, else energy), `silero` or `energy`. Default `auto`. */
  'listen.vad': string;
  /** Barge-in by voice while vox speaks (for headsets; docs/talk-back.md "Barge-in"): `voice` or `off`. Default `off`. */
  'listen.bargeIn': string;
  /** Which transcriber: `auto` (a local model in VOX_HOME/asr when one is installed, else the server), `server` or `local`. Default `auto`. */
  'transcriber.kind': string;
  /** Root of an OpenAI-compatible transcription API (`.../v1`); '' means none (listen records only). Default ''. */
  'transcriber.url': string;
  /** The `model` field sent to the transcriber. Default `whisper-1`. */
  'transcriber.model': string;
  /** Longest wait for a transcript, in ms. Default 30000. */
  'transcriber.timeoutMs': number;
  /** A voice model with no synthesis for this long (ms) is unloaded (its host process exits); 0 keeps models loaded. Default 0. */
  'sherpa.idleUnloadMs': number;
  /** `all`: every session speaks; `focus`: a session the person is not in speaks only when it needs them (docs/attention.md). Default `all`. */
  attention: string;
  /** `attention: focus`: at most one digest of what was held per this many ms. Default 180000. */
  digestMs: number;
  /** Local times between which all speech is held and asks are only chimed, `HH:MM-HH:MM` (may cross midnight); '' for none. Default ''. */
  'quiet.hours': string;
  /** While another program records from the microphone, hold speech (`auto`: watch it with pactl, else /proc/asound) or not (`off`). Default `auto`. */
  'quiet.microphone': string;
}

export type SettingKey = keyof DaemonSettings;

export const SETTINGS_DEFAULTS: Readonly<DaemonSettings> = Object.freeze({
  audio: 'auto',
  engine: 'auto',
  port: DEFAULT_PORT,
  host: DEFAULT_HOST,
  logLevel: 'info',
  'listen.recorder': 'auto',
  'listen.vad': 'auto',
  'listen.bargeIn': 'off',
  'transcriber.kind': 'auto',
  'transcriber.url': '',
  'transcriber.model': 'whisper-1',
  'transcriber.timeoutMs': 30_000,
  'sherpa.idleUnloadMs': 0,
  attention: 'all',
  digestMs: 180_000,
  'quiet.hours': '',
  'quiet.microphone': 'auto',
});

/** The shortest `digestMs`: a digest never comes sooner than 30 s after the first item it holds anyway. */
export const MIN_DIGEST_MS = 30_000;

/** The longest `sherpa.idleUnloadMs` (one day, in ms). */
export const MAX_IDLE_UNLOAD_MS = 86_400_000;

/** The values of `listen.vad` (voxd's listen/silero.ts). */
export const VAD_MODES = ['auto', 'silero', 'energy'] as const;
/** The values of `listen.bargeIn` (voxd's listen/voice-barge-in.ts). */
export const BARGE_IN_MODES = ['off', 'voice'] as const;
/** The values of `transcriber.kind` (voxd's listen/transcription.ts). */
export const TRANSCRIBER_KINDS = ['auto', 'server', 'local'] as const;

/** The values of `quiet.microphone` (voxd's quiet/mic-watch.ts). */
export const QUIET_MICROPHONE_MODES = ['auto', 'off'] as const;

/** A quiet hours window in minutes after local midnight; `start` > `end` crosses midnight. */
export interface QuietWindow {
  start: number;
  end: number;
}

/** `HH:MM-HH:MM` (24-hour local times, different) as minutes, or undefined. */
export function parseQuietHours(spec: string): QuietWindow | undefined {
  const m = /^\s*([01]?\d|2[0-3]):([0-5]\d)\s*-\s*([01]?\d|2[0-3]):([0-5]\d)\s*$/.exec(spec);
  if (!m) return undefined;
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  return start === end ? undefined : { start, end };
}

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
  if (kind === 'auto' || kind === 'audioio' || kind === 'speaker' || kind === 'null')
    return arg || spec.includes(':') ? `"${kind}" takes nothing after it` : undefined;
  if (kind === 'command') {
    if (!spec.includes(':')) return undefined;
    return (AUDIO_PLAYERS as readonly string[]).includes(arg)
      ? undefined
      : `unknown player "${arg}" (players: ${AUDIO_PLAYERS.join(', ')})`;
  }
  if (kind === 'file') {
    const [dir = '', query = ''] = arg.split('?');
    if (!dir) return 'file: needs a directory, file:DIR';
    if (!isAbsolute(dir)) return `the directory "${dir}" is not an absolute path`;
    for (const [k, v] of new URLSearchParams(query)) {
      if (k !== 'realtime' || !['0', '1', 'true', 'false'].includes(v))
        return `unknown option "${k}=${v}" (only realtime=0 or realtime=1)`;
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
  engine: {
    type: 'string',
    env: 'VOXD_ENGINE',
    flag: '--engine',
    allowed: `one of ${ENGINE_NAMES.join(', ')}`,
    check: oneOf(ENGINE_NAMES),
  },
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
    check: (v) =>
      typeof v === 'string' && LOOPBACK.test(v)
        ? undefined
        : 'voxd serves the local user only, and refuses requests for any other host name',
  },
  logLevel: {
    type: 'string',
    env: 'VOXD_LOG_LEVEL',
    allowed: `one of ${LOG_LEVELS.join(', ')}`,
    check: oneOf(LOG_LEVELS),
  },
  'listen.recorder': {
    type: 'string',
    env: 'VOXD_RECORDER',
    allowed: `auto, ${RECORDERS.join(', ')}, or an absolute path to one of them (its file name says which)`,
    check: (v) => (typeof v === 'string' ? recorderProblem(v) : 'not a recorder'),
  },
  'listen.vad': {
    type: 'string',
    env: 'VOXD_VAD',
    allowed: `one of ${VAD_MODES.join(', ')} (auto: Silero VAD when its model is installed, else energy)`,
    check: oneOf(VAD_MODES),
  },
  'listen.bargeIn': {
    type: 'string',
    env: 'VOXD_BARGE_IN',
    allowed: `one of ${BARGE_IN_MODES.join(', ')} (voice: the microphone is open while vox speaks, and the user's voice cuts it; for headsets)`,
    check: oneOf(BARGE_IN_MODES),
  },
  'transcriber.kind': {
    type: 'string',
    env: 'VOXD_TRANSCRIBER_KIND',
    allowed: `one of ${TRANSCRIBER_KINDS.join(', ')} (auto: a local model in VOX_HOME/asr when one is installed, else transcriber.url)`,
    check: oneOf(TRANSCRIBER_KINDS),
  },
  'transcriber.url': {
    type: 'string',
    env: 'VOXD_TRANSCRIBER_URL',
    allowed:
      'the http:// or https:// root of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1 ("" for none)',
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
    check: (v) =>
      Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 600_000 ? undefined : 'out of range',
  },
  'sherpa.idleUnloadMs': {
    type: 'integer',
    env: 'VOXD_SHERPA_IDLE_UNLOAD_MS',
    allowed: `0 (keep voice models loaded) or an integer from 100 to ${MAX_IDLE_UNLOAD_MS} (ms of no speech before a model is unloaded, e.g. 600000 for 10 minutes)`,
    check: (v) => {
      if (!Number.isInteger(v))
        return typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*(?:ms|s|min|m|h)\s*$/i.test(v)
          ? 'a number of milliseconds, without a unit'
          : 'not an integer';
      const n = v as number;
      return n === 0 || (n >= 100 && n <= MAX_IDLE_UNLOAD_MS) ? undefined : 'out of range';
    },
  },
  attention: {
    type: 'string',
    env: 'VOXD_ATTENTION',
    allowed: `one of ${ATTENTION_MODES.join(', ')} (focus: a session the person is not in speaks only when it needs them; the rest waits for a digest)`,
    check: oneOf(ATTENTION_MODES),
  },
  digestMs: {
    type: 'integer',
    env: 'VOXD_DIGEST_MS',
    allowed: `an integer from ${MIN_DIGEST_MS} to 3600000 (ms between two digests of held speech, e.g. 180000 for 3 minutes)`,
    check: (v) =>
      Number.isInteger(v) && (v as number) >= MIN_DIGEST_MS && (v as number) <= 3_600_000 ? undefined : 'out of range',
  },
  'quiet.hours': {
    type: 'string',
    env: 'VOXD_QUIET_HOURS',
    allowed: 'two different 24-hour local times, HH:MM-HH:MM, e.g. 22:00-07:00 (across midnight), or "" for none',
    check: (v) => (typeof v === 'string' && (v === '' || parseQuietHours(v)) ? undefined : 'not a window'),
  },
  'quiet.microphone': {
    type: 'string',
    env: 'VOXD_QUIET_MICROPHONE',
    allowed: `one of ${QUIET_MICROPHONE_MODES.join(', ')} (auto: hold speech while another program records from the microphone)`,
    check: oneOf(QUIET_MICROPHONE_MODES),
  },
});

/** Why a `listen.recorder` value is not one voxd can use, or undefined. */
export function recorderProblem(v: string): string | undefined {
  if (v === 'auto' || (RECORDERS as readonly string[]).includes(v)) return undefined;
  if (!isAbsolute(v)) {
    const near = closestName(v, ['auto', ...RECORDERS]);
    return near
      ? `did you mean "${near}"?`
      : 'a name must be one of the known recorders; anything else needs an absolute path';
  }
  const base = v.split(/[\\/]/).pop() ?? '';
  return (RECORDERS as readonly string[]).includes(base.replace(/\.exe$/i, ''))
    ? undefined
    : `the file name "${base}" is none of ${RECORDERS.join(', ')}, so voxd cannot tell which arguments it takes`;
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
