/**
 * vox's entries in Gemini CLI's `~/.gemini/settings.json`: a command hook per
 * event of GEMINI_EVENTS (`vox hook --agent gemini <Event>`) and the MCP
 * server `mcpServers.vox` (`vox mcp`), by the rules of json-settings.ts.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentSettings } from '../hooks/agent.js';
import type { AgentCommandOptions } from './agent-command.js';
import { changeReport } from './agent-settings.js';
import { jsonSettings } from './json-settings.js';

/** The events `vox hooks install --agent gemini` registers. */
export const GEMINI_EVENTS = ['SessionStart', 'SessionEnd', 'Notification', 'AfterAgent', 'PreCompress'] as const;

/** The events gemini.ts renames, as vox's (for the gate, hooks/shell-gate.ts). */
export const GEMINI_AS_VOX: Readonly<Record<string, string>> = { AfterAgent: 'Stop', PreCompress: 'PreCompact' };

/** Gemini's hook timeout is in milliseconds. */
const TIMEOUT_MS = 10_000;

export function geminiSettingsPath(env: NodeJS.ProcessEnv): string {
  return join(env.HOME || homedir(), '.gemini', 'settings.json');
}

export type GeminiOptions = AgentCommandOptions;

const gemini = jsonSettings('gemini', GEMINI_EVENTS, TIMEOUT_MS, GEMINI_AS_VOX);
export const { add: addGemini, remove: removeGemini, install: installGemini, uninstall: uninstallGemini } = gemini;

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
