/**
 * vox's entries in opencode's global config directory (`$XDG_CONFIG_HOME/
 * opencode`, else `~/.config/opencode`):
 * - `plugin/vox.js`: vox's plugin (opencode-plugin.ts), a file of vox's own,
 *   known by its first line; uninstall deletes it, and never overwrites or
 *   deletes a vox.js that is not vox's.
 * - `opencode.json`: `mcp.vox`, a local server starting `vox mcp`, beside
 *   the user's. opencode also reads `opencode.jsonc`; vox does not edit
 *   JSON with comments, so with only a .jsonc the error shows the entry.
 * Both files are checked before either is written; each changed file is
 * backed up first (settings-file.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  isObject,
  readSettings,
  removeFile,
  replaceFile,
  SettingsError,
  type Settings,
} from '../hooks/settings-file.js';
import { voxArgv, type AgentCommandOptions } from './agent-command.js';
import { opencodePlugin, PLUGIN_HEADER } from './opencode-plugin.js';
import { changeReport, type AgentChange } from './agent-settings.js';
import type { AgentSettings } from '../hooks/agent.js';

export function opencodeConfigDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'opencode');
}

export interface OpencodeChange {
  hooks: AgentChange;
  config: AgentChange;
}

function readPlugin(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SettingsError(`Cannot read ${path}: ${(err as Error).message}`);
  }
}

const isVoxPlugin = (text: string): boolean => text.startsWith(`${PLUGIN_HEADER}\n`);

function loadConfig(dir: string, server: unknown): { path: string; settings: Settings; indent: string } {
  const path = join(dir, 'opencode.json');
  if (!existsSync(path) && existsSync(join(dir, 'opencode.jsonc'))) {
    throw new SettingsError(
      `${join(dir, 'opencode.jsonc')} is JSON with comments, which vox does not edit; vox left it unchanged. Add by hand: "mcp": {"vox": ${JSON.stringify(server)}}`,
    );
  }
  const loaded = readSettings(path);
  if (loaded.settings.mcp !== undefined && !isObject(loaded.settings.mcp))
    throw new SettingsError(`"mcp" in ${path} is not an object; vox left the file unchanged.`);
  return { path, settings: loaded.settings, indent: loaded.indent };
}

const json = (s: Settings, indent = '  '): string => `${JSON.stringify(s, null, indent)}\n`;
const change = (path: string, changed: boolean, backup: string | undefined): AgentChange => ({
  path,
  changed,
  ...(backup ? { backup } : {}),
});

export function installOpencode(dir: string, opts: AgentCommandOptions = {}): OpencodeChange {
  const pluginPath = join(dir, 'plugin', 'vox.js');
  const server = { type: 'local', command: [...voxArgv(opts), 'mcp'], enabled: true };
  const current = readPlugin(pluginPath);
  if (current !== undefined && !isVoxPlugin(current))
    throw new SettingsError(
      `${pluginPath} is not vox's plugin; vox left it unchanged. Move it aside, then run the command again.`,
    );
  const config = loadConfig(dir, server);
  const want = opencodePlugin(opts);
  const next = { ...config.settings, mcp: { ...((config.settings.mcp as Settings | undefined) ?? {}), vox: server } };
  const pluginChanged = current !== want;
  const configChanged = JSON.stringify(next) !== JSON.stringify(config.settings);
  const pluginBackup = pluginChanged ? replaceFile(pluginPath, want) : undefined;
  const configBackup = configChanged ? replaceFile(config.path, json(next, config.indent)) : undefined;
  return {
    hooks: change(pluginPath, pluginChanged, pluginBackup),
    config: change(config.path, configChanged, configBackup),
  };
}

export function uninstallOpencode(dir: string): OpencodeChange {
  const pluginPath = join(dir, 'plugin', 'vox.js');
  const current = readPlugin(pluginPath);
  const config = loadConfig(dir, {});
  const mcp = (config.settings.mcp as Settings | undefined) ?? {};
  const v = mcp.vox;
  // Only the server vox wrote: a command ending in `mcp`.
  const ours = isObject(v) && Array.isArray(v.command) && v.command.at(-1) === 'mcp';
  const pluginChanged = current !== undefined && isVoxPlugin(current);
  let configBackup: string | undefined;
  if (ours) {
    const { vox: _vox, ...rest } = mcp;
    const next: Settings = { ...config.settings, mcp: rest };
    if (Object.keys(rest).length === 0) delete next.mcp;
    configBackup =
      Object.keys(next).length === 0
        ? removeFile(config.path, '{}\n')
        : replaceFile(config.path, json(next, config.indent));
  }
  const pluginBackup = pluginChanged ? removeFile(pluginPath, '') : undefined;
  return { hooks: change(pluginPath, pluginChanged, pluginBackup), config: change(config.path, ours, configBackup) };
}

/** `vox hooks install|uninstall --agent opencode` (cli/agent-table.ts). */
export const opencodeSettings: AgentSettings = {
  install: async ({ env, portable }) => {
    const c = installOpencode(opencodeConfigDir(env), { portable });
    return changeReport('opencode', true, [c.hooks, c.config], { ...c });
  },
  uninstall: async ({ env }) => {
    const c = uninstallOpencode(opencodeConfigDir(env));
    return changeReport('opencode', false, [c.hooks, c.config], { ...c });
  },
};
