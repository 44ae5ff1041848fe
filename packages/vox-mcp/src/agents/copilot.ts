/**
 * GitHub Copilot CLI's hook payloads (1.0.102, as the real CLI sent them in
 * test/copilot-cli.e2e). They carry no event name (the command names it:
 * `vox hook --agent copilot <event>`) and camelCase fields (sessionId, cwd,
 * toolName). Mapped:
 * - agentStop {transcriptPath, stopReason, stop_hook_active} → Stop. The
 *   payload has no reply text: the summary is the turn's last
 *   `assistant.message` in the transcript (events.jsonl), read from its last
 *   TRANSCRIPT_TAIL bytes (lastAssistantMessage).
 * - permissionRequest {toolName, toolInput} → PermissionRequest.
 * - sessionStart {source: new|resume} → SessionStart (new is startup),
 *   sessionEnd → SessionEnd.
 * Copilot also sends a Notification `permission_prompt` for the same ask;
 * install does not register it (one ask, one announcement).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AgentAdapter } from '../hooks/agent.js';
import type { HookPayload, VoxEvent } from '../hooks/event.js';

const NAMES: Readonly<Record<string, string>> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  agentStop: 'Stop',
  permissionRequest: 'PermissionRequest',
};

/** How much of the transcript's end is read for the last reply. */
export const TRANSCRIPT_TAIL = 256 * 1024;
/** How long to wait for Copilot to write the turn's end to the transcript. */
export const TRANSCRIPT_WAIT_MS = 5000;

interface Event {
  type?: unknown;
  data?: { content?: unknown; hookType?: unknown };
}

/** The events in the last TRANSCRIPT_TAIL bytes (a line cut by the tail's start, or not JSON, is skipped); undefined when unreadable. */
function tail(path: string): Event[] | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const len = Math.min(size, TRANSCRIPT_TAIL);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    const out: Event[] = [];
    for (const line of buf.toString('utf8').split('\n')) {
      if (!/"(user\.message|assistant\.message|hook\.start)"/.test(line)) continue;
      try {
        out.push(JSON.parse(line) as Event);
      } catch {
        // cut or not JSON
      }
    }
    return out;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The reply of the turn that just stopped: the last non-empty
 * `assistant.message` after the last `user.message`, once the transcript
 * shows this agentStop's own `hook.start`. Copilot 1.0.102 runs the hook
 * before its transcript writes reach the file at times, so the read is
 * tried again for up to TRANSCRIPT_WAIT_MS; then whatever is there. '' when
 * none or unreadable.
 */
export function lastAssistantMessage(path: string, waitMs = TRANSCRIPT_WAIT_MS): string {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const events = tail(path);
    if (!events) return '';
    let from = 0;
    events.forEach((e, i) => {
      if (e.type === 'user.message') from = i + 1;
    });
    const turn = events.slice(from);
    const stop = turn.findIndex((e) => e.type === 'hook.start' && e.data?.hookType === 'agentStop');
    if (stop >= 0 || Date.now() >= deadline) {
      const replies = (stop >= 0 ? turn.slice(0, stop) : turn).filter(
        (e) => e.type === 'assistant.message' && typeof e.data?.content === 'string' && e.data.content.trim(),
      );
      return (replies.at(-1)?.data?.content as string | undefined) ?? '';
    }
    sleep(50);
  }
}

export function fromCopilot(event: string, payload: HookPayload): VoxEvent {
  const name = NAMES[event] ?? event;
  const p: HookPayload = { ...payload, hook_event_name: name };
  if (typeof payload.sessionId === 'string' && p.session_id === undefined) p.session_id = payload.sessionId;
  switch (name) {
    case 'Stop':
      if (p.last_assistant_message === undefined && typeof payload.transcriptPath === 'string')
        p.last_assistant_message = lastAssistantMessage(payload.transcriptPath);
      break;
    case 'PermissionRequest':
      if (typeof payload.toolName === 'string') p.tool_name = payload.toolName;
      break;
    case 'SessionStart':
      if (payload.source === 'new') p.source = 'startup';
      break;
  }
  return { event: name, payload: p };
}

export const copilot: AgentAdapter = {
  name: 'copilot',
  title: 'Copilot CLI',
  writes: 'hooks/vox.json and mcpServers.vox in mcp-config.json in $COPILOT_HOME (default ~/.copilot)',
  toEvent: fromCopilot,
  answersByVoice: false,
  options: [],
  settings: async () => (await import('./copilot-settings.js')).copilotSettings,
};
