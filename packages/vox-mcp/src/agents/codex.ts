/**
 * Codex CLI's hook payloads. Codex 0.171.0 (the JSON schemas embedded in its
 * binary, e.g. `stop.command.input`) uses Claude Code's event names
 * (SessionStart, PermissionRequest, Stop, PreCompact, SubagentStop,
 * SessionEnd) and fields (session_id, cwd, hook_event_name,
 * last_assistant_message, stop_hook_active, tool_name): they pass through.
 * Codex has no Notification or StopFailure event, so there is nothing else
 * to map.
 */
import type { AgentAdapter } from '../hooks/agent.js';
import type { HookPayload, VoxEvent } from '../hooks/event.js';

export function fromCodex(event: string, payload: HookPayload): VoxEvent {
  return { event, payload };
}

export const codex: AgentAdapter = {
  name: 'codex',
  title: 'Codex CLI',
  writes: 'hooks.json and [mcp_servers.vox] in config.toml in $CODEX_HOME (default ~/.codex)',
  toEvent: fromCodex,
  answersByVoice: false,
  options: [],
  settings: async () => (await import('./codex-settings.js')).codexSettings,
};
