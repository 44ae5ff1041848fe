/**
 * vox's entries in Qwen Code's user settings, `$QWEN_HOME/settings.json`
 * (default `~/.qwen/settings.json`; Qwen loads this file's hooks whether or
 * not the folder is trusted): a command hook per event of QWEN_EVENTS
 * (`vox hook --agent qwen <Event>`, timeout in seconds) and the MCP server
 * `mcpServers.vox` (`vox mcp`). The rules are Gemini's (gemini-settings.ts):
 * other keys stay (Qwen's `$version` too), nothing is written when nothing
 * changes, a file that is not plain JSON (Qwen accepts comments; vox does not
 * edit them) is an error and left alone, the previous file is kept as
 * settings.json.vox-backup, uninstall removes only what vox wrote.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentSettings } from '../hooks/agent.js';
import {
  isObject,
  readSettings,
  removeFile,
  replaceFile,
  SettingsError,
  type Settings,
} from '../hooks/settings-file.js';
import { HOOK_TIMEOUT_SECONDS } from '../hooks/timeouts.js';
import { voxCommand, voxServer, type AgentCommandOptions } from './agent-command.js';
import { changeReport, type AgentChange } from './agent-settings.js';
import { withAgentHooks, withoutAgentHooks } from './hook-groups.js';

/** The events `vox hooks install --agent qwen` registers. */
export const QWEN_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'PermissionRequest',
  'Stop',
  'StopFailure',
  'SubagentStop',
  'PreCompact',
] as const;

/** Qwen's home as Qwen reads QWEN_HOME from the environment: `~` and `~/…` are the home's, relative is from here. */
export function qwenSettingsPath(env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  const home = env.HOME || homedir();
  const q = env.QWEN_HOME;
  if (!q) return join(home, '.qwen', 'settings.json');
  if (q === '~') return join(home, 'settings.json');
  if (q.startsWith('~/')) return join(home, q.slice(2), 'settings.json');
  return join(resolve(cwd, q), 'settings.json');
}

const group = (opts: AgentCommandOptions) => (event: string) => ({
  matcher: '*',
  hooks: [
    {
      name: 'vox',
      type: 'command',
      command: voxCommand(`hook --agent qwen ${event}`, opts),
      timeout: HOOK_TIMEOUT_SECONDS,
    },
  ],
});

/** Settings with vox's hooks and server; pure. */
export function addQwen(
  settings: Settings,
  opts: AgentCommandOptions,
  path = 'settings.json',
): { settings: Settings; changed: boolean } {
  const { settings: withHooks } = withAgentHooks(settings, 'qwen', QWEN_EVENTS, group(opts), path);
  const servers = settings.mcpServers ?? {};
  if (!isObject(servers))
    throw new SettingsError(`"mcpServers" in ${path} is not an object; vox left the file unchanged.`);
  const next = { ...withHooks, mcpServers: { ...servers, vox: voxServer(opts) } };
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** Settings without vox's hooks and server (and the lists this leaves empty); pure. */
export function removeQwen(settings: Settings, path = 'settings.json'): { settings: Settings; changed: boolean } {
  const next: Settings = { ...withoutAgentHooks(settings, 'qwen', QWEN_EVENTS, path).settings };
  // Only the server vox wrote: `vox mcp`, or node with vox's cli and `mcp`.
  const v = isObject(settings.mcpServers) ? settings.mcpServers.vox : undefined;
  if (isObject(settings.mcpServers) && isObject(v) && Array.isArray(v.args) && v.args.at(-1) === 'mcp') {
    const { vox: _vox, ...rest } = settings.mcpServers;
    if (Object.keys(rest).length) next.mcpServers = rest;
    else delete next.mcpServers;
  }
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

const json = (s: Settings, indent: string): string => `${JSON.stringify(s, null, indent)}\n`;

export function installQwen(path: string, opts: AgentCommandOptions = {}): AgentChange {
  const loaded = readSettings(path);
  const { settings, changed } = addQwen(loaded.settings, opts, path);
  const backup = changed ? replaceFile(path, json(settings, loaded.indent)) : undefined;
  return { path, changed, ...(backup ? { backup } : {}) };
}

export function uninstallQwen(path: string): AgentChange {
  const loaded = readSettings(path);
  if (!loaded.exists) return { path, changed: false };
  const { settings, changed } = removeQwen(loaded.settings, path);
  // A settings.json left as {} is the one install created: it goes. (Once Qwen has read it, it holds its `$version`.)
  const empty = Object.keys(settings).length === 0;
  const backup = changed
    ? empty
      ? removeFile(path, '{}\n')
      : replaceFile(path, json(settings, loaded.indent))
    : undefined;
  return { path, changed, ...(backup ? { backup } : {}) };
}

/** `vox hooks install|uninstall --agent qwen` (cli/agent-table.ts). */
export const qwenSettings: AgentSettings = {
  install: async ({ env, cwd, portable }) => {
    const c = installQwen(qwenSettingsPath(env, cwd), { portable });
    return changeReport('qwen', true, [c], { ...c });
  },
  uninstall: async ({ env, cwd }) => {
    const c = uninstallQwen(qwenSettingsPath(env, cwd));
    return changeReport('qwen', false, [c], { ...c });
  },
};
