/**
 * Writes keys into `.vox/config.md` for the MCP `configure` tool and `vox init`.
 *
 * Design note: the file is edited, not regenerated, so the other keys, their
 * comments and the markdown body stay as the person wrote them. yaml's parser
 * locates each key; a one-line value is replaced in the text, and the result is
 * parsed again to check that only that key changed. Anything else goes through
 * yaml's Document API (which keeps comments but re-prints the front matter). A
 * key that is absent but shown as a commented-out line (`# rate: 175`, as in the
 * template `vox init` writes) is set on that line, beside its explanation, and a
 * key set to null is commented out again showing its default. The new text is
 * validated as a whole before it is written; the write is atomic (a temporary
 * file in the same directory, then rename), and it is retried if another
 * session changed the file meanwhile, so two sessions configuring at once do
 * not lose each other's keys.
 */
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { YAML_OPTIONS, frontMatterProblems, loadYaml, parseConfig, splitFrontMatter } from './config-parser.js';
import {
  CONFIG_FILE,
  type ConfigKey,
  type ConfigValues,
  type ResolvedConfig,
  DEFAULTS,
  SCHEMA,
} from './config-schema.js';
import { ConfigError, type ConfigProblem, checkValue } from './config-validation.js';
import { findConfigFile, resolveConfig } from './config.js';
import { packageUrl } from '../package-dir.js';

/**
 * Where the template of `vox init` is looked for, in order: `config/config.md`
 * at the repository root, then a copy inside the package
 * (`packages/vox-mcp/config/config.md`), for an install that ships the package without the repository around it.
 */
export const TEMPLATE_URLS: readonly URL[] = Object.freeze([
  packageUrl('../../config/config.md'),
  packageUrl('config/config.md'),
]);

/** The commented template that `vox init` writes. `config/config.md` is its one source. */
export function readTemplate(): string {
  for (const url of TEMPLATE_URLS) {
    try {
      return readFileSync(url, 'utf8');
    } catch {
      // try the next place
    }
  }
  // A broken install, not a catalogue failure: reported as unexpected (exit 1, EXIT.INTERNAL), which it is; every
  // non-usage ClientError would exit 3, "voxd could not be reached", which it is not.
  throw new Error(
    `the config template is missing; looked in ${TEMPLATE_URLS.map((u) => fileURLToPath(u)).join(' and ')}. Reinstall vox.`,
  );
}

/**
 * Writes a file atomically: a temporary file in the same directory, then a
 * rename over the target. Keeps the mode of an existing file.
 */
export function writeFileAtomic(file: string, text: string): void {
  let mode: number | undefined;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // a new file: the default mode, less the umask
  }
  const temp = join(dirname(file), `.${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, text, { flag: 'wx' });
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw err;
  }
}

/** A change for `setConfigValues`: a value to set, or null to delete the key (back to its default). */
export type ConfigUpdate = { [K in ConfigKey]?: ConfigValues[K] | null };

/**
 * Applies updates to the text of a config file and returns the new text. The
 * values must have been checked already. Throws ConfigError when the front
 * matter cannot be edited safely (not YAML, not closed, YAML syntax errors).
 *
 * Each key is first edited as text, at the spot yaml's parser locates (the
 * value's range on its line, a commented `# key:` line, or a new line at the
 * end), and the result is parsed again to check that exactly that key changed:
 * this keeps every other byte, alignment of comments included. What cannot be
 * edited so (a multi-line value, a flow map) goes through yaml's Document API,
 * which keeps keys and comments but re-prints the front matter.
 */
export async function applyConfigUpdates(
  text: string,
  updates: Readonly<Record<string, unknown>>,
  file: string,
): Promise<string> {
  const fm = splitFrontMatter(text);
  const framing = frontMatterProblems(fm);
  if (framing.length) throw new ConfigError(file, framing);
  const eol = /\r\n/.test(fm.present ? fm.head : text) ? '\r\n' : '\n';
  const head = fm.present ? fm.head : `---${eol}`;
  const close = fm.present ? fm.close : `---${eol}`;
  const body = fm.present ? fm.body : text;

  const y = await loadYaml();
  let yamlText = fm.yaml.replace(/\r\n/g, '\n');
  const counter = new y.LineCounter();
  const first = y.parseDocument(yamlText, { ...YAML_OPTIONS, lineCounter: counter });
  if (first.errors.length) {
    throw new ConfigError(
      file,
      first.errors.map((e) => ({
        key: '(yaml)',
        line: counter.linePos(e.pos[0]).line + fm.yamlLine - 1,
        message: `YAML: ${e.message}`,
      })),
    );
  }
  if (first.contents !== null && !y.isMap(first.contents)) {
    throw new ConfigError(file, [
      { key: '(front matter)', line: fm.yamlLine, message: 'the front matter must be "key: value" lines' },
    ]);
  }

  const pending: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(updates)) {
    const next =
      value === null || value === undefined ? commentOut(yamlText, key, y) : setInText(yamlText, key, value, y);
    if (next !== undefined) yamlText = next;
    else pending.push([key, value]);
  }

  let yaml = yamlText;
  const doc = y.parseDocument(yamlText, YAML_OPTIONS);
  let edited = false;
  for (const [key, value] of pending) {
    if (value === null || value === undefined) {
      if (doc.has(key)) {
        doc.delete(key);
        edited = true;
      }
      continue;
    }
    edited = true;
    const node = doc.get(key, true);
    if (y.isScalar(node)) {
      // Keep the node, and with it the comment on its line.
      node.value = value;
      if (typeof value !== 'string') node.type = undefined;
    } else {
      doc.set(key, value);
    }
  }
  if (edited) {
    // A Document prints a map emptied by deletions as "{}" and no map as "null".
    const contents = doc.contents;
    if (contents === null || (y.isMap(contents) && contents.items.length === 0)) {
      const comments = [doc.commentBefore, contents?.commentBefore, contents?.comment, doc.comment].filter(Boolean);
      yaml = comments.length
        ? `${comments
            .join('\n')
            .split('\n')
            .map((line) => `#${line}`)
            .join('\n')}\n`
        : '';
    } else {
      yaml = doc.toString({ lineWidth: 0 });
    }
  }
  if (eol !== '\n') yaml = yaml.replace(/\n/g, eol);
  return head + yaml + close + body;
}

type Yaml = typeof import('yaml');

interface PairSpot {
  /** Offsets in the text: the key's start, the end of its line, the value's range (if it has a value). */
  start: number;
  lineEnd: number;
  colon: number;
  value?: [number, number];
}

/**
 * Where the top-level pair `key` is, if it sits alone on one line, starting at
 * its first column. 'absent' when the map has no such key; undefined when it
 * has it in a form not to edit as text.
 */
function locate(yamlText: string, key: string, y: Yaml): PairSpot | 'absent' | undefined {
  const counter = new y.LineCounter();
  const doc = y.parseDocument(yamlText, { ...YAML_OPTIONS, lineCounter: counter });
  if (doc.errors.length) return undefined;
  if (doc.contents === null) return 'absent';
  if (!y.isMap(doc.contents) || doc.contents.flow) return undefined;
  const pair = doc.contents.items.find((p) => y.isScalar(p.key) && p.key.value === key);
  if (!pair) return 'absent';
  const keyRange = (pair.key as { range?: [number, number, number] }).range;
  if (!keyRange) return undefined;
  const start = keyRange[0];
  const nl = yamlText.indexOf('\n', start);
  const lineEnd = nl < 0 ? yamlText.length : nl;
  if (counter.linePos(start).col !== 1) return undefined;
  const colon = yamlText.indexOf(':', keyRange[1]);
  if (colon < 0 || colon >= lineEnd) return undefined;
  const valueNode = pair.value as { range?: [number, number, number] } | null;
  const range = valueNode?.range;
  if (!range || range[0] === range[1]) {
    // `key:` with no value (or only a comment) on the line, and nothing below it.
    if (valueNode && !(y.isScalar(valueNode) && valueNode.value === null)) return undefined;
    return { start, lineEnd, colon };
  }
  if (range[1] > lineEnd || (y.isScalar(valueNode) && /^BLOCK/.test(valueNode.type ?? ''))) return undefined;
  return { start, lineEnd, colon, value: [range[0], range[1]] };
}

/** The text parses, `key` is `expected` (or absent for undefined), and every other key is as before. */
function changedOnly(before: string, after: string, key: string, expected: unknown, y: Yaml): boolean {
  const a = y.parseDocument(before, YAML_OPTIONS);
  const b = y.parseDocument(after, YAML_OPTIONS);
  if (b.errors.length || b.warnings.length || (b.contents !== null && !y.isMap(b.contents))) return false;
  const aj = { ...((a.toJS() as Record<string, unknown> | null) ?? {}) };
  const bj = { ...((b.toJS() as Record<string, unknown> | null) ?? {}) };
  const got = bj[key];
  delete aj[key];
  delete bj[key];
  if (expected === undefined ? Object.hasOwn(b.toJS() ?? {}, key) : !isDeepStrictEqual(got, expected)) return false;
  return isDeepStrictEqual(aj, bj);
}

/** Sets `key: value` as a text edit; undefined when that cannot be done safely. */
function setInText(yamlText: string, key: string, value: unknown, y: Yaml): string | undefined {
  const scalar = y.stringify(value, { lineWidth: 0 }).replace(/\n$/, '');
  if (scalar.includes('\n')) return undefined;
  let text = yamlText;
  let spot = locate(text, key, y);
  if (spot === 'absent') {
    // A commented-out `# key: ...` line (as in the template): set the key there.
    const m = new RegExp(`^#[ \\t]*(${key}[ \\t]*:(?:[ \\t].*)?)$`, 'm').exec(text);
    if (m) {
      const candidate = text.slice(0, m.index) + m[1] + text.slice(m.index + m[0].length);
      const found = locate(candidate, key, y);
      if (found && found !== 'absent') {
        text = candidate;
        spot = found;
      }
    }
  }
  let next: string;
  if (spot === undefined) return undefined;
  if (spot === 'absent') {
    next = `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${key}: ${scalar}\n`;
  } else if (spot.value) {
    next = text.slice(0, spot.value[0]) + scalar + text.slice(spot.value[1]);
  } else {
    next = `${text.slice(0, spot.colon + 1)} ${scalar}${text.slice(spot.colon + 1)}`;
  }
  return changedOnly(yamlText, next, key, value, y) ? next : undefined;
}

/**
 * Turns the one-line pair `key: value` into `# key: <default>` (or `# key: value`
 * for a key without a default), as the template shows it. Undefined when the
 * key is absent or not alone on its line; then the Document API deletes it.
 */
function commentOut(yamlText: string, key: string, y: Yaml): string | undefined {
  const spot = locate(yamlText, key, y);
  if (!spot || spot === 'absent') return undefined;
  const fallback = Object.hasOwn(DEFAULTS, key) ? DEFAULTS[key as ConfigKey] : undefined;
  let line = yamlText.slice(spot.start, spot.lineEnd);
  if (fallback !== undefined && spot.value) {
    const shown = y.stringify(fallback).trim();
    line = yamlText.slice(spot.start, spot.value[0]) + shown + yamlText.slice(spot.value[1], spot.lineEnd);
  }
  const next = `${yamlText.slice(0, spot.start)}# ${line}${yamlText.slice(spot.lineEnd)}`;
  return changedOnly(yamlText, next, key, undefined, y) ? next : undefined;
}

/**
 * Sets keys in the config in effect for `dir`: the nearest `.vox/config.md` at
 * or above it, or a new `dir/.vox/config.md` made from the template when there
 * is none. A value of null deletes the key, so it falls back to its default.
 * The values are checked first; the whole new file is validated before it is
 * written; the other keys, comments and the markdown body are kept.
 *
 * @returns the configuration as resolved after the write
 * @throws ConfigError for an unknown key or a value the schema refuses (nothing
 *   is written), or when the resulting file would be invalid
 */
export async function setConfigValues(
  dir: string,
  updates: Readonly<ConfigUpdate | Record<string, unknown>>,
): Promise<ResolvedConfig> {
  const start = resolve(dir);
  const found = findConfigFile(start);
  const target = found ? realpathSync(found) : join(start, CONFIG_FILE);

  const problems: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(updates)) {
    if (!Object.hasOwn(SCHEMA, key)) {
      problems.push(checkValue(key, value)!);
    } else if (value !== null && value !== undefined) {
      const problem = checkValue(key, value);
      if (problem) problems.push(problem);
    }
  }
  if (problems.length) throw new ConfigError(target, problems);

  for (let attempt = 0; ; attempt++) {
    const existing = readIfExists(target);
    const before = existing ?? readTemplate();
    const after = await applyConfigUpdates(before, updates, target);
    await parseConfig(after, target);
    mkdirSync(dirname(target), { recursive: true });
    // Another session may have written the file since we read it: start again from its text.
    if (readIfExists(target) !== existing && attempt < 5) continue;
    writeFileAtomic(target, after);
    break;
  }
  return resolveConfig(start);
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(file, [{ key: '(file)', message: `cannot read the file: ${(err as Error).message}` }]);
  }
}
