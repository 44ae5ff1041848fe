/**
 * Reading the text of `.vox/config.md`: its YAML front matter and its
 * markdown body (the pronunciations table), checked against the schema.
 *
 * Design note, hot path: a found file is read by `parseFlatYaml`, a small
 * reader for the flat subset of YAML a config needs (comment lines and
 * `key: value` lines with plain or quoted scalars, resolved as the YAML 1.2
 * core schema does; a test checks it against the `yaml` package). Anything
 * else in the front matter, including every syntax error, goes to the full
 * `yaml` parser, which is loaded with `import()` then and only then:
 * importing it costs ~30 ms.
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
 *   The walk it would do is the dozen lines of `findConfigFile` (config.ts).
 * - The YAML core schema has no code-bearing tags; unknown tags (`!!js/function`)
 *   are reported as problems, not read as strings.
 */
import { PRONUNCIATION_LIMITS, type ConfigKey, type ConfigValues } from './config-schema.js';
import { checkValue, ConfigError, type ConfigProblem } from './config-validation.js';
import { parsePronunciations, type Pronunciation } from './pronunciations.js';

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
    return {
      present: false,
      language: '',
      closed: false,
      head: '',
      yaml: '',
      yamlLine: 1,
      close: '',
      body: text,
      bodyLine: 1,
    };
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
    return [
      {
        key: '(front matter)',
        line: 1,
        message: 'the front matter opened on line 1 is never closed; end it with a line "---"',
      },
    ];
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
export const YAML_OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: true,
  merge: false,
  prettyErrors: false,
} as const;

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
      for (const e of doc.errors)
        problems.push({ key: '(yaml)', line: lineOf(e.pos[0]), message: `YAML: ${e.message}` });
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

  const table = parsePronunciations(fm.body, fm.bodyLine, PRONUNCIATION_LIMITS);
  for (const p of table.problems)
    problems.push({ key: 'Pronunciations', line: p.line, message: `Pronunciations: ${p.message}` });

  if (problems.length) throw new ConfigError(file, problems);
  return { values: values as Partial<ConfigValues>, lines, pronunciations: table.entries };
}
