/**
 * vox's entries in Codex CLI's home (`$CODEX_HOME`, else `~/.codex`):
 * - `hooks.json`: a command hook per event of CODEX_EVENTS running
 *   `vox hook --agent codex <Event>`, in Claude Code's layout (hook-groups.ts).
 *   Codex 0.171.0 reads hooks from hooks.json next to config.toml as well as
 *   from inline [hooks] tables; vox writes hooks.json, which round-trips as
 *   JSON without touching the user's TOML.
 * - `config.toml`: `[mcp_servers.vox]` starting `vox mcp`, as a marked block
 *   of text (codex-toml.ts says why).
 * Both files are checked before either is written, so a malformed one leaves
 * both as they were; each changed file is backed up (settings-file.ts).
 * Codex runs a non-managed hook only once the user has trusted it (`/hooks`
 * in the TUI): vox does not write Codex's trust state.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HOOK_TIMEOUT_SECONDS } from '../hooks/timeouts.js';
import { agentHookCommand, voxServer, type AgentCommandOptions } from './agent-command.js';
import { withAgentHooks, withoutAgentHooks } from './hook-groups.js';
import { readSettings, removeFile, replaceFile, SettingsError, type Settings } from '../hooks/settings-file.js';
import { withVoxServer, withoutVoxServer } from './codex-toml.js';
import { changeReport, type AgentChange } from './agent-settings.js';
import type { AgentSettings } from '../hooks/agent.js';

/** The events `vox hooks install --agent codex` registers (Codex's names are Claude Code's). */
export const CODEX_EVENTS = ['SessionStart', 'PermissionRequest', 'PreCompact', 'Stop', 'SessionEnd'] as const;

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

export interface CodexChange {
  hooks: AgentChange;
  config: AgentChange & { kept?: boolean };
}

// Codex's timeout is in seconds, as Claude Code's; 0.171.0 clamps SessionEnd's to 3 s (and warns), so it gets 3.
const SESSION_END_TIMEOUT_SECONDS = 3;
const group = (opts: AgentCommandOptions) => (event: string) => ({
  hooks: [
    {
      type: 'command',
      // Codex's event names are vox's.
      command: agentHookCommand('codex', event, event, opts),
      timeout: event === 'SessionEnd' ? SESSION_END_TIMEOUT_SECONDS : HOOK_TIMEOUT_SECONDS,
    },
  ],
});

export function addCodexHooks(
  settings: Settings,
  opts: AgentCommandOptions,
  path = 'hooks.json',
): { settings: Settings; changed: boolean } {
  return withAgentHooks(settings, 'codex', CODEX_EVENTS, group(opts), path);
}

export function removeCodexHooks(settings: Settings, path = 'hooks.json'): { settings: Settings; changed: boolean } {
  return withoutAgentHooks(settings, 'codex', CODEX_EVENTS, path);
}

function readText(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SettingsError(`Cannot read ${path}: ${(err as Error).message}`);
  }
}

const json = (s: Settings, indent: string): string => `${JSON.stringify(s, null, indent)}\n`;
const change = (path: string, changed: boolean, backup: string | undefined): AgentChange => ({
  path,
  changed,
  ...(backup ? { backup } : {}),
});

export async function installCodex(home: string, opts: AgentCommandOptions = {}): Promise<CodexChange> {
  const hooksPath = join(home, 'hooks.json');
  const configPath = join(home, 'config.toml');
  const loaded = readSettings(hooksPath);
  const hooks = addCodexHooks(loaded.settings, opts, hooksPath);
  const config = await withVoxServer(readText(configPath) ?? '', voxServer(opts), configPath);
  const hooksBackup = hooks.changed ? replaceFile(hooksPath, json(hooks.settings, loaded.indent)) : undefined;
  const configBackup = config.changed ? replaceFile(configPath, config.text) : undefined;
  return {
    hooks: change(hooksPath, hooks.changed, hooksBackup),
    config: { ...change(configPath, config.changed, configBackup), ...(config.kept ? { kept: true } : {}) },
  };
}

export async function uninstallCodex(home: string): Promise<CodexChange> {
  const hooksPath = join(home, 'hooks.json');
  const configPath = join(home, 'config.toml');
  const loaded = readSettings(hooksPath);
  const hooks = loaded.exists
    ? removeCodexHooks(loaded.settings, hooksPath)
    : { settings: loaded.settings, changed: false };
  const text = readText(configPath);
  const config = text === undefined ? { text: '', changed: false } : await withoutVoxServer(text, configPath);
  let hooksBackup: string | undefined;
  // A hooks.json or config.toml left with nothing is the file vox created: it goes (its backup stays).
  if (hooks.changed)
    hooksBackup = Object.keys(hooks.settings).length
      ? replaceFile(hooksPath, json(hooks.settings, loaded.indent))
      : removeFile(hooksPath, '{}\n');
  let configBackup: string | undefined;
  if (config.changed) configBackup = config.text.trim() ? replaceFile(configPath, config.text) : removeFile(configPath);
  return {
    hooks: change(hooksPath, hooks.changed, hooksBackup),
    config: change(configPath, config.changed, configBackup),
  };
}

const TRUST =
  'Codex runs a hook only once you trust it: start codex, which asks you to review the new hooks (or see /hooks).';

/** `vox hooks install|uninstall --agent codex` (cli/agent-table.ts). */
export const codexSettings: AgentSettings = {
  install: async ({ env, portable }) => {
    const c = await installCodex(codexHome(env), { portable });
    return changeReport('codex', true, [c.hooks, c.config], { ...c }, c.hooks.changed ? [TRUST] : []);
  },
  uninstall: async ({ env }) => {
    const c = await uninstallCodex(codexHome(env));
    return changeReport('codex', false, [c.hooks, c.config], { ...c });
  },
};
