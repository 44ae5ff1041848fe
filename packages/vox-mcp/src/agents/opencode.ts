/**
 * opencode's events, as vox's plugin for it (opencode-plugin.ts) hands them
 * to `vox hook --agent opencode <event>`. opencode 1.18.33 has no command
 * hooks: a plugin inside opencode gets its bus events and builds the payload
 * in Claude Code's terms itself (session_id, cwd, last_assistant_message,
 * tool_name). Mapped:
 * - session.idle → Stop, with the text of the session's last assistant message;
 * - permission.asked → PermissionRequest, the permission's name as the tool
 *   (bash, edit, external_directory, ...).
 * The session is labelled by the random part of its id (below).
 */
import type { AgentAdapter } from '../hooks/agent.js';
import type { HookPayload, VoxEvent } from '../hooks/event.js';

const NAMES: Readonly<Record<string, string>> = { 'session.idle': 'Stop', 'permission.asked': 'PermissionRequest' };

/**
 * opencode's session ids are `ses_`, 12 hex digits of time, then random
 * letters; sessions begun minutes apart share the first six, which the label
 * keeps (`shop#sesdc8` for all), so the label takes the random part.
 */
const OPENCODE_ID = /^ses_[0-9a-f]{12}([A-Za-z0-9]{6,})$/;

export function fromOpencode(event: string, payload: HookPayload): VoxEvent {
  const name = NAMES[event] ?? event;
  const id = typeof payload.session_id === 'string' ? OPENCODE_ID.exec(payload.session_id)?.[1] : undefined;
  return { event: name, payload: { ...payload, hook_event_name: name, ...(id ? { session_id: id } : {}) } };
}

export const opencode: AgentAdapter = {
  name: 'opencode',
  title: 'opencode',
  writes: 'plugin/vox.js and mcp.vox in opencode.json in ~/.config/opencode',
  toEvent: fromOpencode,
  answersByVoice: false,
  options: [],
  settings: async () => (await import('./opencode-settings.js')).opencodeSettings,
};
