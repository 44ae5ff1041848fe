/**
 * vox's entries in Qwen Code's user settings, `$QWEN_HOME/settings.json`
 * (default `~/.qwen/settings.json`; Qwen loads this file's hooks whether or
 * not the folder is trusted): a command hook per event of QWEN_EVENTS
 * (`vox hook --agent qwen <Event>`, timeout in seconds) and the MCP server
 * `mcpServers.vox` (`vox mcp`), by Gemini's rules (json-settings.ts): other
 * keys stay (Qwen's `$version` too), and a file that is not plain JSON (Qwen
 * accepts comments; vox does not edit them) is an error and left alone.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentSettings } from '../hooks/agent.js';
import { HOOK_TIMEOUT_SECONDS } from '../hooks/timeouts.js';
import { changeReport } from './agent-settings.js';
import { jsonSettings } from './json-settings.js';

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

/** Qwen's hook timeout is in seconds. */
const qwen = jsonSettings('qwen', QWEN_EVENTS, HOOK_TIMEOUT_SECONDS);
export const { add: addQwen, remove: removeQwen, install: installQwen, uninstall: uninstallQwen } = qwen;

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
