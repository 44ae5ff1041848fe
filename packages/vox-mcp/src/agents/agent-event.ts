import type { HookPayload } from '../claude/hook.js';

/** Another agent's hook event in Claude Code's terms (agent.ts). */
export interface AgentEvent {
  /** The event as claude/hook.ts names it. */
  event: string;
  payload: HookPayload;
}
