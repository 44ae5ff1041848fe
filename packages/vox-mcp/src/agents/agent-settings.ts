/**
 * What `vox hooks install|uninstall --agent <agent>` reports for an agent
 * other than Claude Code: one line per file its settings module changed (or
 * left), and the --json object. Each agent's settings module
 * (codex-settings.ts, ...) writes the files and calls this.
 */
import type { SettingsReport } from '../hooks/agent.js';

export interface AgentChange {
  path: string;
  changed: boolean;
  /** Where the file was copied before vox changed it. */
  backup?: string;
  /** The file has the user's own entry, which vox left as it is. */
  kept?: boolean;
}

/** The report of `changes` (one per file); `notes` are printed after the files' lines. */
export function changeReport(
  agent: string,
  install: boolean,
  changes: readonly AgentChange[],
  json: Record<string, unknown>,
  notes: readonly string[] = [],
): SettingsReport {
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
  return { json: { action, agent, ...json }, text: [...lines, ...notes.map((n) => `${n}\n`)].join('') };
}
