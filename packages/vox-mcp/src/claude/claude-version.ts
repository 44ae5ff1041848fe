/**
 * Which Claude Code is installed, for `vox hooks install`: `claude --version`
 * prints e.g. "2.1.332 (Claude Code)". mcp_tool hooks need 2.1.118 or later;
 * when the version cannot be read, vox writes command hooks, which every
 * version runs (and says so).
 */
import { spawnSync } from 'node:child_process';
import { compareVersions } from '@vox/protocol';
import { MCP_TOOL_SINCE, type HookType } from './hook-entries.js';

export interface HookTypeChoice {
  type: HookType;
  /** Claude Code's version, when `claude --version` answered. */
  version?: string;
  /** Why this type, in words, for the install message. */
  reason: string;
}

/** Runs `claude --version` (found on PATH, 10 s at most) and picks the hook type it supports. */
export function detectHookType(env: NodeJS.ProcessEnv): HookTypeChoice {
  const r = spawnSync('claude', ['--version'], {
    env,
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const version = /\b(\d+\.\d+\.\d+)\b/.exec(r.stdout ?? '')?.[1];
  if (r.error || r.status !== 0 || !version) {
    const why =
      (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
        ? 'claude is not on PATH'
        : '"claude --version" did not answer with a version';
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
