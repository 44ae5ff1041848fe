/**
 * vox's entries in GitHub Copilot CLI's home (`$COPILOT_HOME`, else
 * `~/.copilot`):
 * - `hooks/vox.json`: a file of vox's own among the user-level hook files
 *   Copilot loads (`hooks/*.json`, version 1): a command hook per event of
 *   COPILOT_EVENTS running `vox hook --agent copilot <event>`. Uninstall
 *   deletes it, and only while it holds nothing but vox's hooks.
 * - `mcp-config.json`: `mcpServers.vox` (`vox mcp`), beside the user's
 *   servers, as `copilot mcp add vox -- vox mcp` writes it.
 * The same rules as for the other agents: both files are checked before
 * either is written, nothing is written when nothing changes, each changed
 * file is backed up first (settings-file.ts).
 */
import { existsSync } from 'node:fs';
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
import { HOOK_TIMEOUT_SECONDS } from '../hooks/timeouts.js';
import { agentHookCommand, isAgentHook, voxServer, type AgentCommandOptions } from './agent-command.js';
import { changeReport, type AgentChange } from './agent-settings.js';
import type { AgentSettings } from '../hooks/agent.js';

/** The events `vox hooks install --agent copilot` registers, in Copilot's names. */
export const COPILOT_EVENTS = ['sessionStart', 'sessionEnd', 'agentStop', 'permissionRequest'] as const;

/** Each event as vox's (copilot.ts maps them), for the gate (hooks/shell-gate.ts). */
export const COPILOT_AS_VOX: Readonly<Record<(typeof COPILOT_EVENTS)[number], string>> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  agentStop: 'Stop',
  permissionRequest: 'PermissionRequest',
};

export function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
}

export interface CopilotChange {
  hooks: AgentChange;
  config: AgentChange;
}

/** The whole of hooks/vox.json. */
export function copilotHooks(opts: AgentCommandOptions): Settings {
  const hooks: Record<string, unknown> = {};
  for (const e of COPILOT_EVENTS)
    hooks[e] = [
      {
        type: 'command',
        bash: agentHookCommand('copilot', e, COPILOT_AS_VOX[e], opts),
        timeoutSec: HOOK_TIMEOUT_SECONDS,
      },
    ];
  return { version: 1, hooks };
}

/** Whether a hooks file holds vox's hooks and nothing else. */
function onlyVox(s: Settings): boolean {
  if (!isObject(s.hooks) || Object.keys(s).some((k) => k !== 'version' && k !== 'hooks')) return false;
  return Object.values(s.hooks).every(
    (list) => Array.isArray(list) && list.every((h) => isObject(h) && isAgentHook('copilot', { command: h.bash })),
  );
}

function serversOf(s: Settings, path: string): Record<string, unknown> {
  const servers = s.mcpServers ?? {};
  if (!isObject(servers))
    throw new SettingsError(`"mcpServers" in ${path} is not an object; vox left the file unchanged.`);
  return servers;
}

const json = (s: Settings, indent = '  '): string => `${JSON.stringify(s, null, indent)}\n`;
const change = (path: string, changed: boolean, backup: string | undefined): AgentChange => ({
  path,
  changed,
  ...(backup ? { backup } : {}),
});

export function installCopilot(home: string, opts: AgentCommandOptions = {}): CopilotChange {
  const hooksPath = join(home, 'hooks', 'vox.json');
  const configPath = join(home, 'mcp-config.json');
  const hooks = readSettings(hooksPath);
  if (hooks.exists && !onlyVox(hooks.settings) && Object.keys(hooks.settings).length) {
    throw new SettingsError(
      `${hooksPath} holds hooks that are not vox's; vox left it unchanged. Move it aside, then run the command again.`,
    );
  }
  const config = readSettings(configPath);
  const servers = serversOf(config.settings, configPath);
  const want = copilotHooks(opts);
  const server = { type: 'local', ...voxServer(opts), tools: ['*'] };
  const nextConfig = { ...config.settings, mcpServers: { ...servers, vox: server } };
  const hooksChanged = JSON.stringify(hooks.settings) !== JSON.stringify(want);
  const configChanged = JSON.stringify(nextConfig) !== JSON.stringify(config.settings);
  const hooksBackup = hooksChanged ? replaceFile(hooksPath, json(want)) : undefined;
  const configBackup = configChanged ? replaceFile(configPath, json(nextConfig, config.indent)) : undefined;
  return {
    hooks: change(hooksPath, hooksChanged, hooksBackup),
    config: change(configPath, configChanged, configBackup),
  };
}

export function uninstallCopilot(home: string): CopilotChange {
  const hooksPath = join(home, 'hooks', 'vox.json');
  const configPath = join(home, 'mcp-config.json');
  const hooks = readSettings(hooksPath);
  const config = readSettings(configPath);
  const servers = serversOf(config.settings, configPath);
  const v = servers.vox;
  // Only the server vox wrote: `vox mcp`, or node with vox's cli and `mcp`.
  const ours = isObject(v) && Array.isArray(v.args) && v.args.at(-1) === 'mcp';
  const hooksChanged = hooks.exists && onlyVox(hooks.settings) && existsSync(hooksPath);
  let configBackup: string | undefined;
  if (ours) {
    const { vox: _vox, ...rest } = servers;
    const next = { ...config.settings, mcpServers: rest };
    // {"mcpServers": {}} alone is the file install created: it goes.
    configBackup =
      Object.keys(rest).length === 0 && Object.keys(next).length === 1
        ? removeFile(configPath, json(next))
        : replaceFile(configPath, json(next, config.indent));
  }
  const hooksBackup = hooksChanged ? removeFile(hooksPath, '{}\n') : undefined;
  return { hooks: change(hooksPath, hooksChanged, hooksBackup), config: change(configPath, ours, configBackup) };
}

/** `vox hooks install|uninstall --agent copilot` (cli/agent-table.ts). */
export const copilotSettings: AgentSettings = {
  install: async ({ env, portable }) => {
    const c = installCopilot(copilotHome(env), { portable });
    return changeReport('copilot', true, [c.hooks, c.config], { ...c });
  },
  uninstall: async ({ env }) => {
    const c = uninstallCopilot(copilotHome(env));
    return changeReport('copilot', false, [c.hooks, c.config], { ...c });
  },
};
