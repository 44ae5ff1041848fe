/**
 * Problems of a setting: one per thing wrong, each with where it was found,
 * the value and what is allowed; SettingsError carries every problem of one
 * read at once.
 */
import { closestName, isSettingKey, SETTINGS_SCHEMA, SETTING_KEYS, type SettingKey } from './schema.js';

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

/** Every problem of one read, in one error (CONTRIBUTING.md habit 8). */
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
  // Bounded: a key of 60,000 characters is named by its start, and compared by it.
  if (key.length > 80) key = `${key.slice(0, 77)}...`;
  const near = closestName(key, SETTING_KEYS, {
    sink: 'audio',
    output: 'audio',
    device: 'audio',
    level: 'logLevel',
    loglevel: 'logLevel',
    address: 'host',
    provider: 'engine',
    tts: 'engine',
  });
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
    const quote =
      key === 'audio'
        ? ' (YAML reads a bare null as no value: write audio: "null" for the sink that discards audio)'
        : '';
    return {
      origin,
      line,
      key,
      value: null,
      allowed: rule.allowed,
      message: `${key} has no value${quote}; give ${rule.allowed}, or delete the line to use the default`,
    };
  }
  const why = rule.check(value);
  if (why === undefined) return undefined;
  return {
    origin,
    line,
    key,
    value,
    allowed: rule.allowed,
    message: `${key}: ${show(value)} is not allowed${why ? ` (${why})` : ''}; use ${rule.allowed}`,
  };
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
