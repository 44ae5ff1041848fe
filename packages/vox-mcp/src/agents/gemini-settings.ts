/**
 * vox's entries in Gemini CLI's `~/.gemini/settings.json`: a command hook per
 * event of GEMINI_EVENTS (`vox hook --agent gemini <Event>`) and the MCP
 * server `mcpServers.vox` (`vox mcp`). The same rules as Claude Code's
 * settings (claude/hooks-settings.ts): other keys stay, nothing is written
 * when nothing changes, a malformed file is never overwritten, the write is
 * atomic; the previous file is kept as settings.json.vox-backup; uninstall
 * removes only what vox wrote.
 */
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
import { voxCommand, voxServer, type AgentCommandOptions } from './agent-command.js';
import { withAgentHooks, withoutAgentHooks } from './hook-groups.js';
import { changeReport, type AgentChange } from './agent-settings.js';
import type { AgentSettings } from '../hooks/agent.js';

/** The events `vox hooks install --agent gemini` registers. */
export const GEMINI_EVENTS = ['SessionStart', 'SessionEnd', 'Notification', 'AfterAgent', 'PreCompress'] as const;

/** Gemini's hook timeout is in milliseconds. */
const TIMEOUT_MS = 10_000;

export function geminiSettingsPath(env: NodeJS.ProcessEnv): string {
  return join(env.HOME || homedir(), '.gemini', 'settings.json');
}

export type GeminiOptions = AgentCommandOptions;

const group = (opts: GeminiOptions) => (event: string) => ({
  matcher: '*',
  hooks: [
    { name: 'vox', type: 'command', command: voxCommand(`hook --agent gemini ${event}`, opts), timeout: TIMEOUT_MS },
  ],
});

/** Settings with vox's hooks and server; pure. */
export function addGemini(
  settings: Settings,
  opts: GeminiOptions,
  path = 'settings.json',
): { settings: Settings; changed: boolean } {
  const { settings: withHooks } = withAgentHooks(settings, 'gemini', GEMINI_EVENTS, group(opts), path);
  const servers = settings.mcpServers ?? {};
  if (!isObject(servers))
    throw new SettingsError(`"mcpServers" in ${path} is not an object; vox left the file unchanged.`);
  const next = { ...withHooks, mcpServers: { ...servers, vox: voxServer(opts) } };
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** Settings without vox's hooks and server (and the lists this leaves empty); pure. */
export function removeGemini(settings: Settings, path = 'settings.json'): { settings: Settings; changed: boolean } {
  const next: Settings = { ...withoutAgentHooks(settings, 'gemini', GEMINI_EVENTS, path).settings };
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

export function installGemini(path: string, opts: GeminiOptions = {}): AgentChange {
  const loaded = readSettings(path);
  const { settings, changed } = addGemini(loaded.settings, opts, path);
  const backup = changed ? replaceFile(path, json(settings, loaded.indent)) : undefined;
  return { path, changed, ...(backup ? { backup } : {}) };
}

export function uninstallGemini(path: string): AgentChange {
  const loaded = readSettings(path);
  if (!loaded.exists) return { path, changed: false };
  const { settings, changed } = removeGemini(loaded.settings, path);
  // A settings.json left as {} is the one install created: it goes.
  const empty = Object.keys(settings).length === 0;
  const backup = changed
    ? empty
      ? removeFile(path, '{}\n')
      : replaceFile(path, json(settings, loaded.indent))
    : undefined;
  return { path, changed, ...(backup ? { backup } : {}) };
}

/** `vox hooks install|uninstall --agent gemini` (cli/agent-table.ts). */
export const geminiSettings: AgentSettings = {
  install: async ({ env, portable }) => {
    const c = installGemini(geminiSettingsPath(env), { portable });
    return changeReport('gemini', true, [c], { ...c });
  },
  uninstall: async ({ env }) => {
    const c = uninstallGemini(geminiSettingsPath(env));
    return changeReport('gemini', false, [c], { ...c });
  },
};
