/**
 * `vox daemon config`: read and edit voxd's settings file (the schema, its
 * paths and its validation are @vox/protocol/settings, shared with voxd).
 *
 * Design notes:
 * - Edits go through the `yaml` Document, so comments and the order of the
 *   other lines survive; a value is checked before anything is written, and
 *   the file is replaced atomically.
 * - A file with YAML syntax errors is not edited (the edit could land in the
 *   wrong place); invalid values elsewhere do not block an edit that fixes one.
 * - "In effect" means for a voxd started now from this shell: VOXD_* here win
 *   over the file. A voxd that a client auto-starts ignores them, which the
 *   listing says.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import {
  DUPLICATE_KEY,
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMA,
  SETTING_KEYS,
  SettingsError,
  checkSetting,
  isSettingKey,
  readSettingsFile,
  resolveSettings,
  settingFromText,
  settingsPath,
  unknownSettingProblem,
  type SettingKey,
  type SettingSource,
  type SettingsFile,
  type SettingsProblem,
} from '@vox/protocol/settings';

export interface SettingView {
  key: SettingKey;
  value: string | number;
  source: SettingSource;
  /** The environment variable, when the source is `env`. */
  variable?: string;
  /** The file's value when the environment overrides it. */
  fileValue?: string | number;
}

export interface SettingsListing {
  path: string;
  exists: boolean;
  settings: SettingView[];
  problems: SettingsProblem[];
}

function load(env: NodeJS.ProcessEnv): SettingsFile {
  return readSettingsFile(settingsPath(env));
}

/** Every setting as a voxd started now from `env` would take it, with where it comes from. */
export function listSettings(env: NodeJS.ProcessEnv): SettingsListing {
  const file = load(env);
  const resolved = resolveSettings({ env, file });
  const settings = SETTING_KEYS.map((key): SettingView => {
    const source = resolved.sources[key];
    const view: SettingView = { key, value: resolved.values[key], source };
    if (source === 'env') {
      view.variable = SETTINGS_SCHEMA[key].env;
      if (file.values[key] !== undefined) view.fileValue = file.values[key];
    }
    return view;
  });
  return { path: file.path, exists: file.exists, settings, problems: resolved.problems };
}

/** Unknown key: a SettingsError naming the closest one. */
function assertKey(key: string, origin: string): asserts key is SettingKey {
  if (!isSettingKey(key)) throw new SettingsError([unknownSettingProblem(key, origin)]);
}

export function getSetting(env: NodeJS.ProcessEnv, key: string): SettingView {
  const listing = listSettings(env);
  assertKey(key, listing.path);
  return listing.settings.find((s) => s.key === key)!;
}

/** `file:out` typed in a shell means `file:<cwd>/out`: voxd runs elsewhere. */
function absoluteAudio(text: string, cwd: string): string {
  if (!text.startsWith('file:')) return text;
  const [dir = '', ...query] = text.slice('file:'.length).split('?');
  if (!dir || isAbsolute(dir)) return text;
  return `file:${resolve(cwd, dir)}${query.length ? `?${query.join('?')}` : ''}`;
}

function editable(file: SettingsFile): ReturnType<typeof parseDocument> {
  if (file.unreadable) throw new SettingsError(file.problems);
  // uniqueKeys off: yaml's check is quadratic; parseSettings found duplicates already, in linear time.
  const doc = parseDocument(file.text, { schema: 'core', uniqueKeys: false });
  if (doc.errors.length || file.problems.some((p) => p.message.startsWith(DUPLICATE_KEY))) {
    throw new SettingsError([
      ...file.problems.filter((p) => p.message.startsWith('YAML')),
      { origin: file.path, message: 'the file is not valid YAML, so it is not edited; fix or delete it first' },
    ]);
  }
  return doc;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
}

export interface SetResult {
  path: string;
  key: SettingKey;
  value: string | number;
  previous?: string | number;
  /** Problems the file still has elsewhere. */
  problems: SettingsProblem[];
}

/** Check `text` for `key` and write it to the settings file. Throws SettingsError, writing nothing, when it is not allowed. */
export function setSetting(env: NodeJS.ProcessEnv, key: string, text: string, cwd: string): SetResult {
  const file = load(env);
  assertKey(key, file.path);
  const value = settingFromText(key, key === 'audio' ? absoluteAudio(text, cwd) : text) as string | number;
  const problem = checkSetting(key, value, file.path);
  if (problem) throw new SettingsError([problem]);
  const doc = editable(file);
  const path = key.split('.');
  doc.setIn(path, value);
  write(file.path, doc.toString());
  const after = readSettingsFile(file.path);
  return {
    path: file.path,
    key,
    value,
    ...(file.values[key] !== undefined ? { previous: file.values[key] } : {}),
    problems: after.problems,
  };
}

export interface UnsetResult {
  path: string;
  key: SettingKey;
  /** False when the file did not set the key. */
  removed: boolean;
  /** The value voxd uses now (the default). */
  value: string | number;
}

export function unsetSetting(env: NodeJS.ProcessEnv, key: string): UnsetResult {
  const file = load(env);
  assertKey(key, file.path);
  const fallback = SETTINGS_DEFAULTS[key];
  if (!file.exists) return { path: file.path, key, removed: false, value: fallback };
  const doc = editable(file);
  const path = key.split('.');
  if (!doc.hasIn(path)) return { path: file.path, key, removed: false, value: fallback };
  doc.deleteIn(path);
  write(file.path, doc.toString());
  return { path: file.path, key, removed: true, value: fallback };
}
