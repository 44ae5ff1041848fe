/**
 * What is wrong with a config file: each problem with its key and line, all of
 * them gathered into one ConfigError (a file's every problem, not its first).
 */
import { closest, printable } from '@vox/protocol';
import { CONFIG_KEYS, SCHEMA, YAML11_BOOLEAN, type ConfigKey } from './config-schema.js';

export interface ConfigProblem {
  /** The key, or a pseudo-key in parentheses for the whole file: `(front matter)`, `(yaml)`, `(file)`; `Pronunciations` for the table. */
  key: string;
  /** 1-based line in the file, when known. */
  line?: number;
  value?: unknown;
  allowed?: string;
  message: string;
}

/** A config file that cannot be used. Carries every problem found, not just the first. */
export class ConfigError extends Error {
  readonly code = 'VOX_ERR_CLIENT_CONFIG_INVALID' as const;
  readonly file: string;
  readonly problems: readonly ConfigProblem[];

  constructor(file: string, problems: readonly ConfigProblem[]) {
    // Keys and messages quote the file, which a cloned repository wrote: escaped once here for every reader.
    const shown = problems.map((p) => ({ ...p, key: printable(p.key), message: printable(p.message) }));
    super(formatProblems(printable(file), shown));
    this.name = 'ConfigError';
    this.file = file;
    this.problems = Object.freeze(shown);
  }

  /** One line for a command's report (docs/cli.md): the first problem at its file:line, and where the others are. */
  get firstProblem(): string {
    const n = this.problems.length;
    const p = this.problems[0];
    const where = `${printable(this.file)}${p?.line ? `:${p.line}` : ''}`;
    const rest =
      n > 1 ? `${n - 1} more: run "vox config check" for every problem` : 'run "vox config check" once it is fixed';
    return clipLine(`${where}: ${p?.message ?? 'invalid'}`) + ` (${rest})`;
  }
}

const MAX_PROBLEMS_SHOWN = 20;
const MAX_PROBLEM_CHARS = 300;

/** Bounded: a huge or hostile file must not write megabytes to a hook's stderr. */
const clipLine = (line: string) =>
  line.length > MAX_PROBLEM_CHARS ? `${line.slice(0, MAX_PROBLEM_CHARS - 1)}…` : line;

function formatProblems(file: string, problems: readonly ConfigProblem[]): string {
  const n = problems.length;
  const lines = problems
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => clipLine(`  ${file}${p.line ? `:${p.line}` : ''}: ${p.message}`));
  if (n > MAX_PROBLEMS_SHOWN) lines.push(`  … and ${n - MAX_PROBLEMS_SHOWN} more`);
  return [
    `${file} is not a valid vox config (${n} problem${n === 1 ? '' : 's'}):`,
    ...lines,
    'Fix the file (every key and its allowed values: docs/config.md), then run "vox config check".',
  ].join('\n');
}

/** Shows a value in a message as it would be written in YAML-ish JSON, shortened. */
export function showValue(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

// Names people reach for, mapped to our key (checked before edit distance).
const SYNONYMS: Record<string, ConfigKey> = {
  speed: 'rate',
  wpm: 'rate',
  provider: 'engine',
  backend: 'engine',
  tts: 'engine',
  mute: 'speak',
  label: 'announce',
  once: 'dedup',
  maxlength: 'maxChars',
  limit: 'maxChars',
};

/** The known key closest to `name`, if one is close enough to be a likely typo. */
export function closestKey(name: string): ConfigKey | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SYNONYMS[fold(name)] ?? closest(name, CONFIG_KEYS, fold);
}

export function unknownKeyProblem(key: string, line?: number): ConfigProblem {
  const near = closestKey(key);
  const hint = near ? `did you mean "${near}"?` : `known keys: ${CONFIG_KEYS.join(', ')}`;
  return { key, line, message: `unknown key "${key}"; ${hint}`, allowed: CONFIG_KEYS.join(', ') };
}

/**
 * Checks one key and value against the schema. Returns the problem, or
 * undefined when the value is allowed. `null` (an empty YAML value) is a problem:
 * delete the line to get the default.
 */
export function checkValue(key: string, value: unknown, line?: number): ConfigProblem | undefined {
  if (!Object.hasOwn(SCHEMA, key)) return unknownKeyProblem(key, line);
  const rule = SCHEMA[key as ConfigKey];
  if (value === null || value === undefined) {
    return {
      key,
      line,
      value: null,
      allowed: rule.allowed,
      message: `${key} has no value; give ${rule.allowed}, or delete the line to use the default`,
    };
  }
  if (rule.check(value)) return undefined;
  const hint =
    rule.type.startsWith('boolean') && typeof value === 'string' && YAML11_BOOLEAN.test(value)
      ? ` (YAML 1.2 reads ${value} as text: write true or false)`
      : '';
  return {
    key,
    line,
    value,
    allowed: rule.allowed,
    message: `${key}: ${showValue(value)} is not allowed; use ${rule.allowed}${hint}`,
  };
}
