/**
 * vox's hook event: an event name and its payload in the terms of Claude
 * Code's hooks, which vox adopted as its own (every agent's adapter maps its
 * events onto these; the policy decides on them alone). The names the policy
 * knows are policy.ts's; an unknown one is ignored.
 */

/** The fields vox reads from a hook payload. An agent sends more; they are ignored. */
export interface HookPayload {
  session_id?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  /** Notification */
  message?: unknown;
  notification_type?: unknown;
  /** Stop, SubagentStop */
  stop_hook_active?: unknown;
  last_assistant_message?: unknown;
  /** SessionStart: startup, resume, clear, compact, fork */
  source?: unknown;
  /** PreCompact: manual, auto */
  trigger?: unknown;
  /** PermissionRequest: the tool asking, e.g. Bash */
  tool_name?: unknown;
  /** StopFailure: rate_limit, overloaded, authentication_failed, ..., unknown */
  error?: unknown;
  [key: string]: unknown;
}

/** One hook event as vox's policy reads it, whichever agent sent it. */
export interface VoxEvent {
  /** The event as policy.ts names it: PermissionRequest, Notification, Stop, ... */
  event: string;
  payload: HookPayload;
}
