/**
 * The settings file: where it lives, and reading and parsing it. The only
 * part of the settings that imports `yaml`.
 */
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Node, YAMLMap } from 'yaml';
import { readRegularFile } from '../util/regular-file.js';
import { isSettingKey, SETTING_KEYS, type DaemonSettings, type SettingKey } from './schema.js';
import { checkSetting, unknownSettingProblem, type SettingsProblem } from './problems.js';

/**
 * `yaml`, loaded on the first file to parse: most voxd processes have no
 * settings file, and the module costs an idle process 3 to 4 MB (PSS) for as
 * long as it lives (docs/benchmarks.md, "Where voxd's memory goes").
 */
let yamlModule: typeof import('yaml') | undefined;
const yaml = (): typeof import('yaml') =>
  (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/** Most bytes of a settings file: every setting with comments fits in a few KB. */
export const SETTINGS_FILE_MAX_BYTES = 64 * 1024;

/** Most problems reported one by one; the rest are counted (a file of 10,000 unknown keys needs no 10,000 lines). */
const MAX_PROBLEMS = 20;

/** How a duplicate key's problem begins (vox daemon config does not edit such a file). */
export const DUPLICATE_KEY = 'YAML: map keys must be unique';

/** File name inside the settings directory. */
export const SETTINGS_FILE_NAME = 'voxd.yaml';

/**
 * The directory of voxd's settings: `VOX_CONFIG_HOME` when set (tests, or a
 * second setup), else `$XDG_CONFIG_HOME/vox` or `~/.config/vox` on Linux,
 * `~/Library/Application Support/vox` on macOS, `%APPDATA%\vox` on Windows.
 */
export function settingsDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = env.HOME || homedir(),
): string {
  if (env.VOX_CONFIG_HOME) return env.VOX_CONFIG_HOME;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'vox');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'vox');
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(xdg, 'vox');
}

export function settingsPath(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home?: string,
): string {
  return join(settingsDir(env, platform, home), SETTINGS_FILE_NAME);
}

export interface ParsedSettings {
  values: Partial<DaemonSettings>;
  /** 1-based line of each key that was set. */
  lines: Partial<Record<SettingKey, number>>;
  problems: SettingsProblem[];
}

/**
 * Parse and check the text of a settings file. Never throws; problems are
 * collected. Linear in the text: keys are checked for duplicates with a Set
 * (yaml's own uniqueKeys check is quadratic), an alias is refused, not
 * expanded, and after MAX_PROBLEMS the rest are only counted.
 */
export function parseSettings(text: string, file: string): ParsedSettings {
  const { isAlias, isMap, isScalar, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: false, prettyErrors: false, lineCounter });
  const out: ParsedSettings = { values: {}, lines: {}, problems: [] };
  let dropped = 0;
  const problem = (p: SettingsProblem | (() => SettingsProblem)) => {
    if (out.problems.length < MAX_PROBLEMS) out.problems.push(typeof p === 'function' ? p() : p);
    else dropped++;
  };
  const finish = () => {
    if (dropped)
      out.problems.push({ origin: file, message: `and ${dropped} more problem${dropped === 1 ? '' : 's'} like these` });
    return out;
  };
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  for (const e of [...doc.errors, ...doc.warnings]) {
    const tag = e.code === 'TAG_RESOLVE_FAILED' ? " (voxd's settings take plain values: remove the tag)" : '';
    problem(() => ({ origin: file, line: lineOf(e.pos[0]), message: `YAML: ${e.message.split('\n')[0]}${tag}` }));
  }
  if (doc.errors.length) return finish();
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return finish();
  if (!isMap(root)) {
    problem({
      origin: file,
      line: lineOf(root.range?.[0]),
      message: 'the file must hold "key: value" lines (a YAML map)',
    });
    return finish();
  }
  const walk = (map: YAMLMap<unknown, unknown>, prefix: string) => {
    // Per map, as YAML means it: `sherpa: {idleUnloadMs}` beside `sherpa.idleUnloadMs` are two keys, each checked.
    const seen = new Set<string>();
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const key = `${prefix}${isScalar(keyNode) ? String(keyNode.value) : String(keyNode)}`;
      const line = lineOf(keyNode?.range?.[0]);
      if (seen.has(key)) {
        problem({ origin: file, line, key, message: `${DUPLICATE_KEY}: "${key.slice(0, 80)}" is set twice; keep one` });
        continue;
      }
      seen.add(key);
      const valueNode = pair.value as Node | null;
      if (isAlias(valueNode)) {
        problem({
          origin: file,
          line,
          key,
          message: `${key.slice(0, 80)}: an alias (*${String(valueNode.source).slice(0, 40)}) is not allowed here; write the value itself`,
        });
        continue;
      }
      if (isMap(valueNode) && !isSettingKey(key)) {
        // A section: its keys are `section.key`.
        if (SETTING_KEYS.some((k) => k.startsWith(`${key}.`))) walk(valueNode, `${key}.`);
        else problem(() => unknownSettingProblem(key, file, line));
        continue;
      }
      if (!isSettingKey(key)) {
        problem(() => unknownSettingProblem(key, file, line));
        continue;
      }
      const value = valueNode === null ? null : valueNode.toJSON();
      const bad = checkSetting(key, value, file, line);
      if (bad) problem(bad);
      else {
        (out.values as Record<string, unknown>)[key] = value;
        if (line !== undefined) out.lines[key as SettingKey] = line;
      }
    }
  };
  walk(root, '');
  return finish();
}

export interface SettingsFile extends ParsedSettings {
  path: string;
  /** False when there is no file (then every value is a default). */
  exists: boolean;
  /** The text as read, '' without a file. */
  text: string;
  /** True when something is at the path that could not be read as a settings file: never edited then. */
  unreadable?: boolean;
}

/**
 * Read and check the settings file. A missing file is no problem; an
 * unreadable one is, and so is one that is not a regular file (a FIFO would
 * block voxd for good, a link to /dev/zero fill its memory) or is over
 * SETTINGS_FILE_MAX_BYTES. A symbolic link is followed (dotfiles), to a
 * regular file only.
 */
export function readSettingsFile(path: string): SettingsFile {
  const read = readRegularFile(path, { maxBytes: SETTINGS_FILE_MAX_BYTES, followLinks: true });
  if (!read.ok) {
    if (read.problem === 'missing') return { path, exists: false, text: '', values: {}, lines: {}, problems: [] };
    const message =
      read.problem === 'kind'
        ? `the settings file ${read.why}, not a file of settings; move it away ("vox daemon config set KEY VALUE" then writes a new one)`
        : read.problem === 'big'
          ? `the settings file ${read.why} (voxd's settings are a few "key: value" lines); move it away, or cut it down`
          : `cannot read the settings file: it ${read.why}; check its permissions`;
    return {
      path,
      exists: true,
      unreadable: true,
      text: '',
      values: {},
      lines: {},
      problems: [{ origin: path, message }],
    };
  }
  return { path, exists: true, text: read.text, ...parseSettings(read.text, path) };
}
