/**
 * The schema of `.vox/config.md` (docs/config.md): every key, the rule each
 * value must meet, and the frozen DEFAULTS beside it (CONTRIBUTING.md): one
 * strict SCHEMA, nothing silently replaced by its default.
 */
import { join } from 'node:path';
import {
  ENGINE_NAMES,
  DEFAULT_DEDUP_SECONDS,
  MAX_ONCE_SECONDS,
  MAX_RATE_WPM,
  MAX_TEXT_CHARS,
  MIN_ONCE_SECONDS,
  MIN_RATE_WPM,
  PRIORITIES,
  PRONUNCIATION_LIMITS,
  type Priority,
} from '@vox/protocol';
import type { Pronunciation } from './pronunciations.js';

/** Where the config lives, relative to a project directory. */
export const CONFIG_DIR = '.vox';
export const CONFIG_FILE = join(CONFIG_DIR, 'config.md');

export const ENGINES = ENGINE_NAMES;
export type Engine = (typeof ENGINES)[number];

/** How Claude Code hooks speak: not at all, on notable events, or on every event. */
// Verbosity: quiet < normal < chatty. `continuous` is chatty's older name, still accepted.
export const NOTIFY_MODES = ['off', 'quiet', 'normal', 'chatty', 'continuous'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

/** How a reply is read: its first sentences when the turn ends, sentence by sentence while it is written, or not at all. */
export const NARRATE_MODES = ['summary', 'stream', 'off'] as const;
export type NarrateMode = (typeof NARRATE_MODES)[number];

/** Longest `announce` label, in characters. */
export const MAX_ANNOUNCE_CHARS = 50;

/** The caps on the pronunciations table (docs/config.md): @vox/protocol's, which voxd's schema of a declared table checks too. */
export { PRONUNCIATION_LIMITS };

export interface ConfigValues {
  /** Voice name for the engine. Default: unset, the engine's own default voice. */
  voice?: string;
  /** Speech rate in words per minute, MIN_RATE_WPM..MAX_RATE_WPM. Default 175. */
  rate: number;
  /** Volume from 0 (silent) to 1 (full). Default 1. */
  volume: number;
  /** Speech engine; `auto` lets voxd choose. Default `auto`. */
  engine: Engine;
  /** Engine model (e.g. `tts-1` for openai). Default: unset, the engine's default. */
  model?: string;
  /** `false` plays chimes instead of speech. Default true. */
  speak: boolean;
  /** What the hooks say. Default `normal`. */
  notify: NotifyMode;
  /** How the reply is read (docs/config.md#narrate). Default `summary`. */
  narrate: NarrateMode;
  /** Duplicate window in seconds, MIN_ONCE_SECONDS..MAX_ONCE_SECONDS. Default DEFAULT_DEDUP_SECONDS. */
  dedup: number;
  /** Prefix speech with the project name (`true`) or this label. Default false. */
  announce: boolean | string;
  /** Default priority of this project's speech. Default `message`. */
  priority: Priority;
  /** Longest text spoken, in characters, 1..MAX_TEXT_CHARS. Default: unset, voxd's limit. */
  maxChars?: number;
  /** Hooks announce permission and input prompts in `claude -p` runs, where nobody can answer them. Default false. */
  unattendedPrompts: boolean;
  /** PermissionRequest hooks announce the ask and take a spoken allow / deny / always (docs/talk-back.md). Default false. */
  approveByVoice: boolean;
}

export type ConfigKey = keyof ConfigValues;

/** One key of the schema. */
export interface KeyRule {
  /** The YAML type, for docs and messages. */
  type: string;
  /** What is allowed, in words; ends every "invalid value" message. */
  allowed: string;
  /** True when the key has no default value (the engine or voxd decides). */
  optional: boolean;
  check(value: unknown): boolean;
}

/** Booleans in YAML 1.1 but text in YAML 1.2, which vox reads: a likely slip for true/false. */
export const YAML11_BOOLEAN = /^(?:y|yes|n|no|on|off)$/i;

const isNumberIn = (min: number, max: number) => (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
const isIntegerIn = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && isNumberIn(min, max)(v);
const isStringOf = (max: number) => (v: unknown) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
const isOneOf = (values: readonly string[]) => (v: unknown) => typeof v === 'string' && values.includes(v);

/** The one strict schema: every key `.vox/config.md` may hold. */
export const SCHEMA: { readonly [K in ConfigKey]: KeyRule } = Object.freeze({
  voice: {
    type: 'string',
    allowed: 'a voice name of 1 to 100 characters (list them with "vox voices")',
    optional: true,
    check: isStringOf(100),
  },
  rate: {
    type: 'number',
    allowed: `a number of words per minute from ${MIN_RATE_WPM} to ${MAX_RATE_WPM}`,
    optional: false,
    check: isNumberIn(MIN_RATE_WPM, MAX_RATE_WPM),
  },
  volume: { type: 'number', allowed: 'a number from 0 (silent) to 1 (full)', optional: false, check: isNumberIn(0, 1) },
  engine: { type: 'string', allowed: `one of ${ENGINES.join(', ')}`, optional: false, check: isOneOf(ENGINES) },
  model: { type: 'string', allowed: 'a model name of 1 to 100 characters', optional: true, check: isStringOf(100) },
  speak: {
    type: 'boolean',
    allowed: 'true (speak) or false (play chimes instead)',
    optional: false,
    check: (v) => typeof v === 'boolean',
  },
  notify: {
    type: 'string',
    allowed: `one of ${NOTIFY_MODES.join(', ')}`,
    optional: false,
    check: isOneOf(NOTIFY_MODES),
  },
  narrate: {
    type: 'string',
    allowed: `one of ${NARRATE_MODES.join(', ')}`,
    optional: false,
    check: isOneOf(NARRATE_MODES),
  },
  dedup: {
    type: 'number',
    allowed: `a number of seconds from ${MIN_ONCE_SECONDS} to ${MAX_ONCE_SECONDS}`,
    optional: false,
    check: isNumberIn(MIN_ONCE_SECONDS, MAX_ONCE_SECONDS),
  },
  announce: {
    type: 'boolean or string',
    allowed: `false, true (say the project name) or a label of 1 to ${MAX_ANNOUNCE_CHARS} characters (not yes, no, on or off)`,
    optional: false,
    check: (v) => typeof v === 'boolean' || (isStringOf(MAX_ANNOUNCE_CHARS)(v) && !YAML11_BOOLEAN.test(v as string)),
  },
  priority: { type: 'string', allowed: `one of ${PRIORITIES.join(', ')}`, optional: false, check: isOneOf(PRIORITIES) },
  maxChars: {
    type: 'integer',
    allowed: `a whole number of characters from 1 to ${MAX_TEXT_CHARS}`,
    optional: true,
    check: isIntegerIn(1, MAX_TEXT_CHARS),
  },
  unattendedPrompts: {
    type: 'boolean',
    allowed: 'true (announce prompts in claude -p runs too) or false',
    optional: false,
    check: (v) => typeof v === 'boolean',
  },
  approveByVoice: {
    type: 'boolean',
    allowed: 'true (answer permission prompts and elicitation choices by voice) or false',
    optional: false,
    check: (v) => typeof v === 'boolean',
  },
});

/** Keys only a person sets (the file, or "vox config set"): the model's configure tool does not offer them. */
export const PERSON_ONLY_KEYS: readonly ConfigKey[] = Object.freeze(['approveByVoice']);

/** Every key, in the order of the schema (and of `vox config`). */
export const CONFIG_KEYS = Object.freeze(Object.keys(SCHEMA) as ConfigKey[]);

/** The values used for every key a file does not set. Optional keys are present and undefined. */
export const DEFAULTS: Readonly<ConfigValues> = Object.freeze({
  voice: undefined,
  rate: 175,
  volume: 1,
  engine: 'auto',
  model: undefined,
  speak: true,
  notify: 'normal',
  narrate: 'summary',
  dedup: DEFAULT_DEDUP_SECONDS,
  announce: false,
  priority: 'message',
  maxChars: undefined,
  unattendedPrompts: false,
  approveByVoice: false,
});

/** Where a value came from: `'default'` or the config file's path. */
export type ConfigSource = 'default' | (string & {});

export interface ResolvedConfig {
  /** The file that was read; undefined when none was found. */
  file?: string;
  /** The directory holding `.vox/`, or the working directory when there is no file. */
  projectDir: string;
  /** basename of projectDir when a file was found, else of the repository root (`.git`) above cwd, else of cwd. */
  projectName: string;
  values: Readonly<ConfigValues>;
  sources: Readonly<Record<ConfigKey, ConfigSource>>;
  pronunciations: readonly Pronunciation[];
}

/** One thing wrong with a config file. */
