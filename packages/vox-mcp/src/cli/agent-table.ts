/**
 * The one table of coding agents (CONTRIBUTING.md, "A new agent"): each row
 * an adapter (hooks/agent.ts), Claude Code's from claude/, the others' from
 * agents/. `vox hook --agent`, `vox hooks --agent`, their help and the docs
 * test read it. Every `vox hook` loads it: an adapter's module maps payloads
 * and loads its settings code only when asked.
 */
import { copilot } from '../agents/copilot.js';
import { codex } from '../agents/codex.js';
import { gemini } from '../agents/gemini.js';
import { opencode } from '../agents/opencode.js';
import { qwen } from '../agents/qwen.js';
import { claude } from '../claude/claude-agent.js';
import type { AgentAdapter } from '../hooks/agent.js';

export const AGENT_TABLE: readonly AgentAdapter[] = [claude, codex, gemini, copilot, opencode, qwen];

/** The names `--agent` takes; the first is the default. */
export const AGENT_NAMES: readonly string[] = AGENT_TABLE.map((a) => a.name);

/** The adapter of `name` (one of AGENT_NAMES: the flag's enum checked it). */
export function agentNamed(name: string | undefined): AgentAdapter {
  return AGENT_TABLE.find((a) => a.name === name) ?? AGENT_TABLE[0]!;
}

/** "claude (the default), codex, gemini, copilot or opencode", for the help. */
export function agentList(): string {
  const [first, ...rest] = AGENT_NAMES;
  return `${first} (the default), ${rest.slice(0, -1).join(', ')} or ${rest.at(-1)}`;
}
