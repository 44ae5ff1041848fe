/**
 * The settings file: where it lives, and reading and parsing it. The only
 * part of the settings that imports `yaml`.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';
import { isSettingKey, SETTING_KEYS, type DaemonSettings, type SettingKey } from './schema.js';
import { checkSetting, unknownSettingProblem, type SettingsProblem } from './problems.js';

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
