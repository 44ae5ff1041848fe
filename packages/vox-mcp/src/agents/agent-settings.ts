/**
 * `vox hooks install|uninstall --agent codex|gemini|copilot|opencode|qwen`:
 * which files each agent's entries go to (codex-settings.ts,
 * gemini-settings.ts, copilot-settings.ts, opencode-settings.ts,
 * qwen-settings.ts), run for the command, and what it reports.
 */
import type { AgentCommandOptions } from './agent-command.js';
import { codexHome, installCodex, uninstallCodex } from './codex-settings.js';
import { copilotHome, installCopilot, uninstallCopilot } from './copilot-settings.js';
import { installOpencode, opencodeConfigDir, uninstallOpencode } from './opencode-settings.js';
import { geminiSettingsPath, installGemini, uninstallGemini, type AgentChange } from './gemini-settings.js';
import { installQwen, qwenSettingsPath, uninstallQwen } from './qwen-settings.js';

export type OtherAgent = 'codex' | 'gemini' | 'copilot' | 'opencode' | 'qwen';

export interface AgentResult {
  /** One per file: Codex and Copilot have their hooks and their MCP config; Gemini one settings.json. */
  changes: Array<AgentChange & { kept?: boolean }>;
  /** The --json object. */
  json: Record<string, unknown>;
  /** The lines to print. */
  lines: string[];
}

export async function changeAgent(
  agent: OtherAgent,
  install: boolean,
  env: NodeJS.ProcessEnv,
  opts: AgentCommandOptions,
): Promise<AgentResult> {
  let changes: AgentResult['changes'];
  if (agent === 'codex')
    changes = Object.values(install ? await installCodex(codexHome(env), opts) : await uninstallCodex(codexHome(env)));
  else if (agent === 'copilot')
    changes = Object.values(install ? installCopilot(copilotHome(env), opts) : uninstallCopilot(copilotHome(env)));
  else if (agent === 'opencode')
    changes = Object.values(
      install ? installOpencode(opencodeConfigDir(env), opts) : uninstallOpencode(opencodeConfigDir(env)),
    );
  else if (agent === 'qwen')
    changes = [install ? installQwen(qwenSettingsPath(env), opts) : uninstallQwen(qwenSettingsPath(env))];
  else changes = [install ? installGemini(geminiSettingsPath(env), opts) : uninstallGemini(geminiSettingsPath(env))];
  const action = install ? 'install' : 'uninstall';
  const lines = changes.map((c) => {
    const backup = c.backup ? ` (the previous file is ${c.backup})` : '';
    if (c.kept) return `${c.path} has its own [mcp_servers.vox]: vox left it as it is\n`;
    if (install)
      return c.changed
        ? `Installed vox's entries in ${c.path}${backup}\n`
        : `vox's entries were already in ${c.path}\n`;
    return c.changed ? `Removed vox's entries from ${c.path}${backup}\n` : `No vox entries in ${c.path}\n`;
  });
  if (agent === 'codex' && install && changes[0]!.changed) {
    lines.push(
      'Codex runs a hook only once you trust it: start codex, which asks you to review the new hooks (or see /hooks).\n',
    );
  }
  const json =
    agent === 'gemini' || agent === 'qwen'
      ? { action, agent, ...changes[0] }
      : { action, agent, hooks: changes[0], config: changes[1] };
  return { changes, json, lines };
}
