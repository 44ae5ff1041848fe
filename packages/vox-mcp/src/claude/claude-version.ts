/**
 * Which hook type the installed Claude Code runs, for `vox hooks install`
 * (claude-code.ts finds it): mcp_tool hooks need 2.1.118 or later; when the
 * version cannot be read, vox writes command hooks, which every version runs
 * (and says so).
 */
import { compareVersions } from '@vox/protocol';
import { MCP_TOOL_SINCE, type HookType } from './hook-entries.js';
import { findClaudeCode } from './claude-code.js';

export interface HookTypeChoice {
  type: HookType;
  /** Claude Code's version, when `claude --version` answered. */
  version?: string;
  /** Why this type, in words, for the install message. */
  reason: string;
}

/** Finds Claude Code (10 s at most for its version) and picks the hook type it supports. */
export function detectHookType(env: NodeJS.ProcessEnv): HookTypeChoice {
  const claude = findClaudeCode(env);
  const version = claude?.version;
  if (!version) {
    const why = !claude ? 'claude is not on PATH' : '"claude --version" did not answer with a version';
    return {
      type: 'command',
      reason: `${why}, so vox wrote command hooks, which every Claude Code runs (--type mcp_tool for ${MCP_TOOL_SINCE} and later)`,
    };
  }
  if (compareVersions(version, MCP_TOOL_SINCE) >= 0) {
    return {
      type: 'mcp_tool',
      version,
      reason: `Claude Code ${version} runs mcp_tool hooks (${MCP_TOOL_SINCE} and later)`,
    };
  }
  return {
    type: 'command',
    version,
    reason: `Claude Code ${version} is older than ${MCP_TOOL_SINCE}, which added mcp_tool hooks`,
  };
}
