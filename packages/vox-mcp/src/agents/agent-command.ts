/**
 * The commands another agent's settings run: `vox hook --agent <agent> <Event>`
 * and the MCP server `vox mcp`, by absolute paths (this node, this vox) or,
 * with `portable`, as `vox …` from PATH. Shared by codex-settings.ts and
 * gemini-settings.ts.
 */
import { defaultCliPath } from '../hooks/cli-path.js';
import { isObject } from '../hooks/settings-file.js';
import { gatedCommand } from '../hooks/shell-gate.js';

export interface AgentCommandOptions {
  /** `vox …` from PATH instead of absolute paths. */
  portable?: boolean;
  /** The node binary (default: this one). */
  node?: string;
  /** vox's entry (default: this installation's). */
  cli?: string;
}

const quote = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A shell command line running `vox <args>`. */
export function voxCommand(args: string, opts: AgentCommandOptions): string {
  if (opts.portable) return `vox ${args}`;
  return `${quote(opts.node ?? process.execPath)} ${quote(opts.cli ?? defaultCliPath())} ${args}`;
}

/**
 * The hook command for an agent's `event`, behind the shell gate of the vox
 * event it maps to (`voxEvent`, hooks/shell-gate.ts): where the project's
 * config makes that event silent, no node starts.
 */
export function agentHookCommand(agent: string, event: string, voxEvent: string, opts: AgentCommandOptions): string {
  return gatedCommand(voxEvent, voxCommand(`hook --agent ${agent} ${event}`, opts));
}

/** `vox` as an argv prefix: `[node, cli]`, or `['vox']` with `portable`. */
export function voxArgv(opts: AgentCommandOptions): string[] {
  return opts.portable ? ['vox'] : [opts.node ?? process.execPath, opts.cli ?? defaultCliPath()];
}

/** The MCP server entry that starts `vox mcp`: `{command, args}`. */
export function voxServer(opts: AgentCommandOptions): { command: string; args: string[] } {
  if (opts.portable) return { command: 'vox', args: ['mcp'] };
  return { command: opts.node ?? process.execPath, args: [opts.cli ?? defaultCliPath(), 'mcp'] };
}

/** Whether a hook object is the one vox writes for this agent (any path, portable or not). */
export function isAgentHook(agent: string, h: unknown): boolean {
  if (!isObject(h) || typeof h.command !== 'string') return false;
  const re = new RegExp(
    `(?:^|[\\s/'"])(?:vox|vox\\.cjs|cli\\.js)['"]?\\s+hook\\s+--agent\\s+${agent}\\s+[A-Za-z]+\\s*$`,
  );
  return re.test(h.command);
}
