/**
 * Whether the vox plugin runs in Claude Code, read from Claude Code's own
 * files (seen with Claude Code 2.1.332): installed when
 * `<config>/plugins/installed_plugins.json` lists `vox@<market>`, enabled when
 * a settings file's `enabledPlugins` has it true; `<config>` is
 * CLAUDE_CONFIG_DIR, else ~/.claude. `vox doctor` and `vox hooks status` ask
 * it, since with the plugin its hooks are the ones that run.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isObject, readSettings } from '../hooks/settings-file.js';
import { settingsPath, type SettingsScope } from './hooks-settings.js';

/** .claude.json keeps every project's history: larger than this is not read. */
const MAX_JSON_BYTES = 32 * 1024 * 1024;
const SCOPES: SettingsScope[] = ['user', 'project', 'local'];

export type Where = { env: NodeJS.ProcessEnv; cwd: string };

export function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

export function claudeJsonPath(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR
    ? join(env.CLAUDE_CONFIG_DIR, '.claude.json')
    : join(env.HOME || homedir(), '.claude.json');
}

/** A JSON file's object, undefined when absent; throws with the path when unreadable, too large or not JSON. */
export function readJson(path: string): Record<string, unknown> | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return undefined;
  }
  if (size > MAX_JSON_BYTES) throw new Error(`${path} is ${Math.round(size / 1048576)} MB, larger than doctor reads`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  return isObject(parsed) ? parsed : undefined;
}

export interface PluginState {
  /** The key in installed_plugins.json, e.g. `vox@vox`. */
  key?: string;
  installPath?: string;
  /** The settings scopes whose enabledPlugins has it true. */
  enabledIn: SettingsScope[];
  disabledIn: SettingsScope[];
  /** Installed and enabled: its hooks and its server `plugin:vox:vox` run in every session. */
  active: boolean;
  error?: string;
}

export function pluginState(where: Where): PluginState {
  const state: PluginState = { enabledIn: [], disabledIn: [], active: false };
  const keys = new Set<string>();
  try {
    const file = readJson(join(claudeDir(where.env), 'plugins', 'installed_plugins.json'));
    const plugins = isObject(file?.plugins) ? file.plugins : {};
    const key = Object.keys(plugins).find((k) => k.split('@')[0] === 'vox');
    if (key) {
      state.key = key;
      keys.add(key);
      const first = (plugins[key] as unknown[] | undefined)?.find(isObject) as Record<string, unknown> | undefined;
      if (typeof first?.installPath === 'string') state.installPath = first.installPath;
    }
  } catch (err) {
    state.error = (err as Error).message;
  }
  for (const scope of SCOPES) {
    let enabled: unknown;
    try {
      enabled = readSettings(settingsPath(scope, where)).settings.enabledPlugins;
    } catch {
      continue; // the hooks check reports an unreadable settings file
    }
    if (!isObject(enabled)) continue;
    for (const [k, v] of Object.entries(enabled)) {
      if (k.split('@')[0] !== 'vox') continue;
      state.key ??= k;
      (v === true ? state.enabledIn : state.disabledIn).push(scope);
    }
  }
  state.active = keys.size > 0 && state.enabledIn.length > 0;
  return state;
}
