/**
 * Qwen Code's hook payloads (0.24.4: the hookEventHandler of its bundle, and
 * as the real CLI sent them in test/qwen-cli.e2e). They are Claude Code's:
 * the same event names and fields (session_id, cwd, hook_event_name,
 * last_assistant_message, stop_hook_active, tool_name, tool_input, source,
 * trigger, error), so they pass through. One change: tool_name is Qwen's
 * internal name (run_shell_command, write_file); a PermissionRequest speaks
 * the name Qwen's dialog shows (Shell, WriteFile).
 * Not installed: Notification. Qwen sends `permission_prompt` right after
 * each PermissionRequest (the same ask twice) and `idle_prompt` right after
 * each Stop, not after a wait (the reply, then "waiting for your input").
 */
import type { AgentAdapter } from '../hooks/agent.js';
import type { HookPayload, VoxEvent } from '../hooks/event.js';

/** Qwen's names for its tools that ask, as its confirmation dialog shows them (its ToolDisplayNames). */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  run_shell_command: 'Shell',
  edit: 'Edit',
  write_file: 'WriteFile',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  save_memory: 'SaveMemory',
  exec: 'Exec',
};

export function fromQwen(event: string, payload: HookPayload): VoxEvent {
  const tool = typeof payload.tool_name === 'string' ? payload.tool_name : undefined;
  if (event === 'PermissionRequest' && tool && Object.hasOwn(DISPLAY_NAMES, tool))
    return { event, payload: { ...payload, tool_name: DISPLAY_NAMES[tool] } };
  return { event, payload };
}

export const qwen: AgentAdapter = {
  name: 'qwen',
  title: 'Qwen Code',
  writes: 'hooks and mcpServers.vox in $QWEN_HOME/settings.json (default ~/.qwen/settings.json)',
  toEvent: fromQwen,
  answersByVoice: false,
  options: [],
  settings: async () => (await import('./qwen-settings.js')).qwenSettings,
};
