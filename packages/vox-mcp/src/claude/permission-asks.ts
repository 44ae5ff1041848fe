/**
 * The permission asks a session's hook tool has announced, so that one ask
 * is heard once whichever events carry it.
 *
 * Claude Code 2.1.332 fires PermissionRequest the moment a tool asks ("api
 * needs your permission to use Bash"), then, if the dialog is still open
 * about 6 s later, a `permission_prompt` Notification whose message names no
 * tool ("Claude needs your permission"). The two carry nothing in common but
 * the session, so a duplicate key at voxd cannot tie them without also
 * merging two different asks. The hook tool of `vox mcp` sees both events of
 * its session in one process, so it remembers the request here and the
 * Notification that follows within the window is silent.
 *
 * Rejected: one key per session ("permission" without the tool), which would
 * drop a second ask for another tool that comes within the window.
 */
import { PERMISSION_DEDUP_SECONDS } from './hook.js';

/** Sessions remembered at once; a process serves one session (a few after /clear). */
const MAX_SESSIONS = 64;

export class PermissionAsks {
  /** Session label → when its last PermissionRequest was announced (ms). */
  private readonly asked = new Map<string, number>();

  constructor(private readonly windowMs = PERMISSION_DEDUP_SECONDS * 1000) {}

  /** A PermissionRequest of `session` was announced at `now`. */
  requested(session: string, now: number): void {
    this.asked.delete(session);
    this.asked.set(session, now);
    if (this.asked.size > MAX_SESSIONS) this.asked.delete(this.asked.keys().next().value!);
  }

  /** True when `session` announced a PermissionRequest within the window before `now`. */
  announced(session: string, now: number): boolean {
    const at = this.asked.get(session);
    return at !== undefined && now - at >= 0 && now - at <= this.windowMs;
  }
}
