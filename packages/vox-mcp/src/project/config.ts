/**
 * Per-project configuration: `.vox/config.md`, YAML front matter plus a
 * markdown body (docs/config.md). Found by walking up from the working
 * directory; the nearest file wins; no file means DEFAULTS.
 *
 * Design note, hot path: `vox say` and `vox hook` resolve the config on every
 * run and must start about as fast as `node -e 0`. The walk up is done here with
 * `fs.statSync` (a few microseconds per directory) and this module imports only
 * `node:fs`, `node:path`, the protocol constants and the pronunciations module.
 * A found file is read by `parseFlatYaml`, a small reader for the flat subset
 * of YAML a config needs (comment lines and `key: value` lines with plain or
 * quoted scalars, resolved as the YAML 1.2 core schema does; a test checks it
 * against the `yaml` package). Anything else in the front matter, including
 * every syntax error, goes to the full `yaml` parser, which is loaded with
 * `import()` then and only then: importing it costs ~30 ms. Nothing is cached:
 * each call reads the file again, so an edit applies on the next call.
 *
 * Design note, safety: a cloned repository's `.vox/config.md` must never run
 * code. So:
 * - Only YAML front matter is read. `---js`, `---coffee` or any other language
 *   is an error, and `splitFrontMatter` below never evaluates anything.
 *   gray-matter is not used: it evaluates `---js` by default.
 * - cosmiconfig (named in DESIGN.md) is not used. Measured with 9.0.2: creating
 *   an explorer reads cosmiconfig's "meta config" from process.cwd(), and its
 *   default loaders import `.config/config.js` (or .ts/.mjs/.cjs) there, so a
 *   cloned repository's file runs on every hook; and a `$import: ./x.cjs` key in
 *   our own config file makes it import that file too. Neither can be switched
 *   off by an option. Its import also costs ~20 ms that no-config runs would pay.
 *   The walk it would do is the dozen lines of `findConfigFile`.
 * - The YAML core schema has no code-bearing tags; unknown tags (`!!js/function`)
 *   are reported as problems, not read as strings.
 *
 * Validation (STYLE.md habit 8): one strict SCHEMA and one frozen DEFAULTS beside
 * it. Every problem in a file (unknown key, wrong value, YAML syntax, malformed
 * pronunciation row) is collected into one ConfigError with file and line.
 * Nothing is silently replaced by its default.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  closest,
  ENGINE_NAMES,
  DEFAULT_DEDUP_SECONDS,
  MAX_ONCE_SECONDS,
  MAX_RATE_WPM,
  MAX_TEXT_CHARS,
  MIN_ONCE_SECONDS,
  MIN_RATE_WPM,
  PRIORITIES,
  type Priority,
} from '@vox/protocol';
import { parsePronunciations, type Pronunciation } from './pronunciations.js';

export type { Pronunciation } from './pronunciations.js';

/** Where the config lives, relative to a project directory. */
export const CONFIG_DIR = '.vox';
export const CONFIG_FILE = join(CONFIG_DIR, 'config.md');

export const ENGINES = ENGINE_NAMES;
export type Engine = (typeof ENGINES)[number];

/** How Claude Code hooks speak: not at all, on notable events, or on every event. */
export const NOTIFY_MODES = ['off', 'normal', 'continuous'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

/** Longest `announce` label, in characters. */
export const MAX_ANNOUNCE_CHARS = 50;

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
  /** Duplicate window in seconds, MIN_ONCE_SECONDS..MAX_ONCE_SECONDS. Default DEFAULT_DEDUP_SECONDS. */
  dedup: number;
  /** Prefix speech with the project name (`true`) or this label. Default false. */
  announce: boolean | string;
  /** Default priority of this project's speech. Default `message`. */
  priority: Priority;
  /** Longest text spoken, in characters, 1..MAX_TEXT_CHARS. Default: unset, voxd's limit. */
  maxChars?: number;
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
const YAML11_BOOLEAN = /^(?:y|yes|n|no|on|off)$/i;

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
  notify: { type: 'string', allowed: `one of ${NOTIFY_MODES.join(', ')}`, optional: false, check: isOneOf(NOTIFY_MODES) },
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
});

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
  dedup: DEFAULT_DEDUP_SECONDS,
  announce: false,
  priority: 'message',
  maxChars: undefined,
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
    super(formatProblems(file, problems));
    this.name = 'ConfigError';
    this.file = file;
    this.problems = Object.freeze([...problems]);
  }
}

const MAX_PROBLEMS_SHOWN = 20;
const MAX_PROBLEM_CHARS = 300;
/** The largest `.vox/config.md` read; a config is a few hundred bytes (docs/config.md). */
export const MAX_CONFIG_BYTES = 64 * 1024;

function formatProblems(file: string, problems: readonly ConfigProblem[]): string {
  const n = problems.length;
  // Bounded: a huge or hostile file must not write megabytes to a hook's stderr.
  const clipLine = (line: string) => (line.length > MAX_PROBLEM_CHARS ? `${line.slice(0, MAX_PROBLEM_CHARS - 1)}…` : line);
  const lines = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => clipLine(`  ${file}${p.line ? `:${p.line}` : ''}: ${p.message}`));
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
    return { key, line, value: null, allowed: rule.allowed, message: `${key} has no value; give ${rule.allowed}, or delete the line to use the default` };
  }
  if (rule.check(value)) return undefined;
  const hint =
    rule.type.startsWith('boolean') && typeof value === 'string' && YAML11_BOOLEAN.test(value)
      ? ` (YAML 1.2 reads ${value} as text: write true or false)`
      : '';
  return { key, line, value, allowed: rule.allowed, message: `${key}: ${showValue(value)} is not allowed; use ${rule.allowed}${hint}` };
}

/** The parts of a config file, so that `text === head + yaml + close + body`. */
export interface FrontMatter {
  /** True when the file opens with a `---` line. */
  present: boolean;
  /** The word after the opening `---` (`js` in `---js`); '' for plain `---`. */
  language: string;
  /** True when a closing `---` line was found. */
  closed: boolean;
  /** A byte-order mark, the opening line and its line ending; '' without front matter. */
  head: string;
  /** The front matter text between the delimiter lines. */
  yaml: string;
  /** 1-based line of the first line of `yaml`. */
  yamlLine: number;
  /** The closing line with its line ending; '' when not closed. */
  close: string;
  /** Everything after the front matter. */
  body: string;
  /** 1-based line of the first line of `body`. */
  bodyLine: number;
}

const YAML_LANGUAGES = new Set(['', 'yaml', 'yml']);

/**
 * Splits a file into front matter and body, without evaluating anything. A file
 * opens front matter with a first line of `---` (optionally followed by a
 * language name, as in `---yaml` or `---js`; `----` is a markdown rule, not front
 * matter) and closes it with the next line that is exactly `---`.
 */
export function splitFrontMatter(text: string): FrontMatter {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const s = text.slice(bom.length);
  const firstEnd = s.indexOf('\n');
  const first = (firstEnd < 0 ? s : s.slice(0, firstEnd)).replace(/\r$/, '');
  if (!first.startsWith('---') || first[3] === '-') {
    return { present: false, language: '', closed: false, head: '', yaml: '', yamlLine: 1, close: '', body: text, bodyLine: 1 };
  }
  const language = first.slice(3).trim();
  const head = bom + (firstEnd < 0 ? s : s.slice(0, firstEnd + 1));
  const rest = firstEnd < 0 ? '' : s.slice(firstEnd + 1);
  let pos = 0;
  let line = 2;
  while (pos < rest.length) {
    const end = rest.indexOf('\n', pos);
    const next = end < 0 ? rest.length : end + 1;
    if (/^---[ \t]*\r?\n?$/.test(rest.slice(pos, next))) {
      return {
        present: true,
        language,
        closed: true,
        head,
        yaml: rest.slice(0, pos),
        yamlLine: 2,
        close: rest.slice(pos, next),
        body: rest.slice(next),
        bodyLine: line + 1,
      };
    }
    pos = next;
    line++;
  }
  return { present: true, language, closed: false, head, yaml: rest, yamlLine: 2, close: '', body: '', bodyLine: line };
}

/** Problems with the front matter's framing (language, closing line), before any parsing. */
export function frontMatterProblems(fm: FrontMatter): ConfigProblem[] {
  if (!fm.present) return [];
  if (!YAML_LANGUAGES.has(fm.language.toLowerCase())) {
    return [
      {
        key: '(front matter)',
        line: 1,
        value: `---${fm.language}`,
        allowed: '---',
        message: `only YAML front matter is allowed; found "---${fm.language}". Other front matter languages could run code, so vox never reads them. Start the file with a plain "---" line`,
      },
    ];
  }
  if (!fm.closed) {
    return [{ key: '(front matter)', line: 1, message: 'the front matter opened on line 1 is never closed; end it with a line "---"' }];
  }
  return [];
}

/** One `key: value` of the front matter, with its value as YAML reads it. */
export interface FlatEntry {
  key: string;
  value: unknown;
  /** 1-based line in the file. */
  line: number;
}

// The YAML 1.2 core schema's scalar rules (those of the `yaml` package), for the
// forms the flat reader accepts. Other numeric forms (1e3, 0x1f, .inf) go to `yaml`.
const CORE_NULL = /^(?:~|[Nn]ull|NULL)?$/;
const CORE_TRUE = /^(?:[Tt]rue|TRUE)$/;
const CORE_FALSE = /^(?:[Ff]alse|FALSE)$/;
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const FLAT_PAIR = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$/;
// A plain value that starts with one of these, or holds one of the rest, may be
// more than a plain scalar (flow collection, anchor, alias, tag, block scalar,
// directive, nested mapping): leave it to `yaml`.
const RISKY_START = /^[-?:,[\]{}#&*!|>'"%@`.+0-9]/;
const RISKY_INSIDE = /[:{}[\]&*!|>'"%@`\\]/;

function flatScalar(raw: string): { value: unknown } | undefined {
  let rest = raw;
  let value: unknown;
  if (rest.startsWith('"')) {
    const m = /^"([^"\\]*)"/.exec(rest);
    if (!m) return undefined;
    value = m[1];
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'/.exec(rest);
    if (!m) return undefined;
    value = m[1]!.replace(/''/g, "'");
    rest = rest.slice(m[0].length);
  } else {
    const hash = rest.search(/[ \t]#/);
    const plain = (hash < 0 ? rest : rest.slice(0, hash)).trim();
    rest = '';
    if (plain.startsWith('#')) value = null;
    else if (CORE_NULL.test(plain)) value = null;
    else if (CORE_TRUE.test(plain)) value = true;
    else if (CORE_FALSE.test(plain)) value = false;
    else if (CORE_INT.test(plain) || CORE_FLOAT.test(plain)) value = Number(plain);
    else if (RISKY_START.test(plain) || RISKY_INSIDE.test(plain)) return undefined;
    else value = plain;
  }
  // After a quoted string: nothing, or a comment.
  if (!/^(?:[ \t]*|[ \t]+#.*)$/.test(rest)) return undefined;
  return { value };
}

/**
 * Reads front matter made only of blank lines, comment lines and top-level
 * `key: scalar` lines, as the YAML 1.2 core schema reads them. Returns
 * undefined for anything else (nesting, flow collections, anchors, tags,
 * escapes, duplicate keys, syntax errors), which the caller hands to the full
 * `yaml` parser. This keeps `yaml` off the hot path of `vox say` and `vox hook`.
 *
 * @param firstLine the line in the file of the text's first line (1-based)
 */
export function parseFlatYaml(text: string, firstLine = 1): FlatEntry[] | undefined {
  const entries: FlatEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (/^[ \t]*(?:#.*)?$/.test(raw)) continue;
    const m = FLAT_PAIR.exec(raw);
    if (!m) return undefined;
    const key = m[1]!;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const scalar = flatScalar((m[2] ?? '').trim());
    if (!scalar) return undefined;
    entries.push({ key, value: scalar.value, line: firstLine + i });
  }
  return entries;
}

/** What a config file says, before defaults are filled in. */
export interface ParsedConfig {
  /** Only the keys the file sets. */
  values: Partial<ConfigValues>;
  /** The line of each key the file sets. */
  lines: Partial<Record<ConfigKey, number>>;
  pronunciations: Pronunciation[];
}

type YamlModule = typeof import('yaml');
let yamlModule: Promise<YamlModule> | undefined;
/** The YAML parser, imported on first use only: importing it costs ~30 ms. */
export function loadYaml(): Promise<YamlModule> {
  return (yamlModule ??= import('yaml'));
}

/** YAML parse options: YAML 1.2 core schema (no `yes`/`no` booleans, no custom tags), duplicate keys are errors. */
export const YAML_OPTIONS = { version: '1.2', schema: 'core', uniqueKeys: true, merge: false, prettyErrors: false } as const;

/**
 * Parses and validates the text of a config file. Throws ConfigError with every
 * problem found. `file` is used in messages only.
 */
export async function parseConfig(text: string, file: string): Promise<ParsedConfig> {
  const fm = splitFrontMatter(text);
  const framing = frontMatterProblems(fm);
  if (framing.length) throw new ConfigError(file, framing);

  const problems: ConfigProblem[] = [];
  const values: Record<string, unknown> = {};
  const lines: Partial<Record<ConfigKey, number>> = {};

  const flat = fm.present ? parseFlatYaml(fm.yaml, fm.yamlLine) : [];
  if (flat) {
    for (const { key, value, line } of flat) {
      const problem = checkValue(key, value, line);
      if (problem) problems.push(problem);
      else {
        values[key] = value;
        lines[key as ConfigKey] = line;
      }
    }
  } else {
    const { parseDocument, LineCounter, isMap, isScalar } = await loadYaml();
    const counter = new LineCounter();
    const doc = parseDocument(fm.yaml, { ...YAML_OPTIONS, lineCounter: counter });
    const lineOf = (offset: number | undefined) =>
      offset === undefined ? undefined : counter.linePos(offset).line + fm.yamlLine - 1;

    if (doc.errors.length) {
      for (const e of doc.errors) problems.push({ key: '(yaml)', line: lineOf(e.pos[0]), message: `YAML: ${e.message}` });
      throw new ConfigError(file, problems);
    }
    for (const w of doc.warnings) {
      problems.push({ key: '(yaml)', line: lineOf(w.pos[0]), message: `YAML: ${w.message}; write plain values only` });
    }
    const contents = doc.contents;
    if (contents !== null && !(isScalar(contents) && contents.value === null)) {
      if (!isMap(contents)) {
        problems.push({
          key: '(front matter)',
          line: lineOf(contents.range?.[0]),
          message: 'the front matter must be "key: value" lines',
        });
      } else {
        let js: Record<string, unknown>;
        try {
          js = doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>;
        } catch (err) {
          // Too many aliases (a "billion laughs" file), for one.
          throw new ConfigError(file, [...problems, { key: '(yaml)', message: `YAML: ${(err as Error).message}` }]);
        }
        for (const pair of contents.items) {
          const keyNode = pair.key;
          const line = lineOf((keyNode as { range?: [number, number, number] } | null)?.range?.[0]);
          if (!isScalar(keyNode) || typeof keyNode.value !== 'string') {
            const shown = String(isScalar(keyNode) ? keyNode.value : keyNode).trim();
            problems.push({ key: shown, line, message: `keys must be plain names like "rate"; found ${shown}` });
            continue;
          }
          const key = keyNode.value;
          const value = js[key];
          const problem = checkValue(key, value, line);
          if (problem) {
            problems.push(problem);
            continue;
          }
          values[key] = value;
          if (line !== undefined) lines[key as ConfigKey] = line;
        }
      }
    }
  }

  const table = parsePronunciations(fm.body, fm.bodyLine);
  for (const p of table.problems) problems.push({ key: 'Pronunciations', line: p.line, message: `Pronunciations: ${p.message}` });

  if (problems.length) throw new ConfigError(file, problems);
  return { values: values as Partial<ConfigValues>, lines, pronunciations: table.entries };
}

/**
 * The nearest `.vox/config.md` at or above `cwd`, or undefined. Cheap: one
 * `statSync` per directory and no import.
 */
export function findConfigFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE);
    try {
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    } catch {
      // An unreadable directory on the way up hides nothing we could read.
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The project directory of a config file: the directory that holds `.vox/`. */
export function projectDirOf(file: string): string {
  return dirname(dirname(file));
}

/** The nearest directory at or above `start` that holds `.git`, if any. */
export function repositoryRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    try {
      if (statSync(join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    } catch {
      // unreadable: keep walking
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The project's name for a working directory, as resolveConfig gives it: the
 * directory holding `.vox/`, else the repository root (Claude Code may have
 * `cd`-ed into `src/routes`), else the working directory.
 */
export function projectNameFor(cwd: string): string {
  return nameOf(projectRootFor(cwd));
}

/**
 * The project's root for a working directory: the directory holding
 * `.vox/config.md` at or above it, else the repository root (`.git`), else the
 * working directory. Where project files (`.claude/settings.json`) belong.
 */
export function projectRootFor(cwd: string): string {
  const file = findConfigFile(resolve(cwd));
  return file ? projectDirOf(file) : (repositoryRoot(cwd) ?? resolve(cwd));
}

function nameOf(dir: string): string {
  return basename(dir) || dir;
}

function freezeResolved(r: ResolvedConfig): ResolvedConfig {
  Object.freeze(r.pronunciations);
  return Object.freeze(r);
}

const ALL_DEFAULT = Object.freeze(Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'default']))) as Readonly<
  Record<ConfigKey, ConfigSource>
>;

/**
 * Resolves the configuration in effect for a working directory: the nearest
 * `.vox/config.md` at or above it, validated, over DEFAULTS. Reads the file on
 * every call (no cache), so edits apply at once.
 *
 * @throws ConfigError when the file is invalid (every problem, with lines)
 */
export async function resolveConfig(cwd: string): Promise<ResolvedConfig> {
  const start = resolve(cwd);
  const file = findConfigFile(start);
  if (!file) {
    return freezeResolved({ projectDir: start, projectName: nameOf(repositoryRoot(start) ?? start), values: DEFAULTS, sources: ALL_DEFAULT, pronunciations: [] });
  }
  let text: string;
  let size = 0;
  try {
    // A bounded read: at most one byte past the cap, whatever the file's size.
    const fd = openSync(file, 'r');
    try {
      size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, MAX_CONFIG_BYTES) + 1);
      const got = readSync(fd, buf, 0, buf.length, 0);
      if (got > MAX_CONFIG_BYTES) size = Math.max(size, got);
      text = buf.subarray(0, got).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new ConfigError(file, [{ key: '(file)', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  if (size > MAX_CONFIG_BYTES || Buffer.byteLength(text) > MAX_CONFIG_BYTES) {
    throw new ConfigError(file, [{ key: '(file)', message: `the file is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte (64 KiB) cap for .vox/config.md; shorten it` }]);
  }
  const parsed = await parseConfig(text, file);
  const sources: Record<string, ConfigSource> = { ...ALL_DEFAULT };
  for (const key of Object.keys(parsed.values)) sources[key] = file;
  const projectDir = projectDirOf(file);
  return freezeResolved({
    file,
    projectDir,
    projectName: nameOf(projectDir),
    values: Object.freeze({ ...DEFAULTS, ...parsed.values }),
    sources: Object.freeze(sources) as Record<ConfigKey, ConfigSource>,
    pronunciations: parsed.pronunciations,
  });
}

/** The resolved config as JSON (`vox config --json`, the MCP `status` tool): null, not a missing key, for an unset optional key. */
export function configView(config: ResolvedConfig) {
  return {
    file: config.file ?? null,
    projectDir: config.projectDir,
    projectName: config.projectName,
    values: Object.fromEntries(CONFIG_KEYS.map((k) => [k, config.values[k] ?? null])),
    sources: config.sources,
    pronunciations: config.pronunciations,
  };
}

/**
 * The spoken prefix `announce` asks for: the project name for `true`, the label
 * for a string, undefined for `false`.
 */
export function announceLabel(config: Pick<ResolvedConfig, 'values' | 'projectName'>): string | undefined {
  const a = config.values.announce;
  if (a === true) return config.projectName;
  return typeof a === 'string' ? a : undefined;
}
