/**
 * Gemini CLI's hook payloads (0.61.0: its hookEventHandler in the bundle).
 * Every payload has session_id, cwd, hook_event_name and timestamp. Mapped:
 * - AfterAgent {prompt, prompt_response, stop_hook_active} → Stop, whose
 *   summary is the first sentences of prompt_response.
 * - Notification {notification_type: ToolPermission, message "Tool <title>
 *   requires execution", details} → PermissionRequest. No tool name: the
 *   title is the dialog's heading, not a tool, so it says "<project> needs
 *   your permission".
 * - PreCompress {trigger: manual|auto} → PreCompact.
 * - SessionStart {source: startup|resume|clear}, SessionEnd: the same names.
 * Other events (BeforeTool, AfterTool, BeforeModel, ...) pass through, and
 * the policy ignores them.
 */
import type { AgentAdapter } from '../hooks/agent.js';
import type { HookPayload, VoxEvent } from '../hooks/event.js';

export function fromGemini(event: string, payload: HookPayload): VoxEvent {
  switch (event) {
    case 'AfterAgent':
      return { event: 'Stop', payload: { ...payload, last_assistant_message: payload.prompt_response } };
    case 'PreCompress':
      return { event: 'PreCompact', payload };
    case 'Notification':
      if (payload.notification_type === 'ToolPermission')
        return { event: 'PermissionRequest', payload: { ...payload, tool_name: undefined } };
      return { event, payload };
    default:
      return { event, payload };
  }
}

export const gemini: AgentAdapter = {
  name: 'gemini',
  title: 'Gemini CLI',
  writes: 'hooks and mcpServers.vox in ~/.gemini/settings.json',
  toEvent: fromGemini,
  answersByVoice: false,
  options: [],
  settings: async () => (await import('./gemini-settings.js')).geminiSettings,
};
