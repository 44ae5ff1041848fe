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
import type { HookPayload } from '../claude/hook.js';
import type { AgentEvent } from './agent-event.js';

/** The events `vox hooks install --agent gemini` registers. */
export const GEMINI_EVENTS = ['SessionStart', 'SessionEnd', 'Notification', 'AfterAgent', 'PreCompress'] as const;

export function fromGemini(event: string, payload: HookPayload): AgentEvent {
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
