/**
 * Which coding agent sent a hook payload, and its payload in the terms of
 * Claude Code's, which claude/hook.ts decides on. Each agent's module maps
 * its own event names and fields; the policy (priorities, expiry, dedup)
 * stays in one place.
 */
import type { HookPayload } from '../claude/hook.js';
import { fromCodex } from './codex.js';
import { fromCopilot } from './copilot.js';
import { fromOpencode } from './opencode.js';
import { fromGemini } from './gemini.js';
import { fromQwen } from './qwen.js';
import type { AgentEvent } from './agent-event.js';

export const AGENTS = ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'qwen'] as const;
export type Agent = (typeof AGENTS)[number];

/** The agent's event and payload as Claude Code's. Never throws (Copilot's Stop reads its transcript's tail). */
export function normalizeEvent(agent: Agent, event: string, payload: HookPayload): AgentEvent {
  if (agent === 'codex') return fromCodex(event, payload);
  if (agent === 'gemini') return fromGemini(event, payload);
  if (agent === 'copilot') return fromCopilot(event, payload);
  if (agent === 'opencode') return fromOpencode(event, payload);
  if (agent === 'qwen') return fromQwen(event, payload);
  return { event, payload };
}
