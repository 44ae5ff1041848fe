/**
 * The session label sent with every request: the project name plus a short
 * session id, e.g. `shop#3c07f0`. voxd shows it in status, history and logs,
 * and stops or replaces speech per label.
 *
 * One Claude Code session must get one label, whether it speaks through its
 * `vox mcp` (the model's calls) or through `vox hook` (its hooks): otherwise the
 * model's `stop` misses the session's own hook speech. Claude Code sets
 * CLAUDE_CODE_SESSION_ID in the MCP server's environment, and it equals the
 * `session_id` of every hook payload, so both ends take the same id.
 *
 * Until `/clear`: Claude Code 2.1.332 keeps the MCP server running, with the
 * first id in its environment, while the hooks carry the new `session_id`.
 * So the hook tool adopts the newest id it sees (`adoptSessionId`), the
 * model's calls follow it, and every label this process has used is kept
 * (`labelsUsed`) for `stop` and `status`: speech queued under the old id is
 * still this session's.
 */
let processId: string | undefined;
/** The newest `session_id` a hook of this process carried (the hook tool of `vox mcp`). */
let adopted: string | undefined;
let adoptedAtMs = 0;
/** Every label this process has handed out, oldest first; bounded, a session may /clear many times. */
const used: string[] = [];
/** Labels kept for stop and status: far more than a session's /clear count in a day. */
export const MAX_LABELS = 32;

export function shortId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 6) || 'anon';
}

/**
 * The id, first found of:
 * 1. VOX_SESSION_ID, the user's override (in the environment of both ends, so
 *    it wins over the payload as well, or the two would differ);
 * 2. `explicit`: a hook payload's `session_id`;
 * 3. the newest `session_id` adopted in this process (after /clear): from the
 *    hook tool, or from a command hook's note (claude/current-session.ts);
 * 4. CLAUDE_CODE_SESSION_ID, what Claude Code gives its MCP servers;
 * 5. CLAUDE_SESSION_ID, the name older vox versions read (legacy);
 * 6. one random id per process (a shell's `vox say`, another MCP client).
 */
export function sessionId(env: NodeJS.ProcessEnv, explicit?: string): string {
  return (
    nonEmpty(env.VOX_SESSION_ID) ??
    nonEmpty(explicit) ??
    adopted ??
    nonEmpty(env.CLAUDE_CODE_SESSION_ID) ??
    nonEmpty(env.CLAUDE_SESSION_ID) ??
    (processId ??= randomHex6())
  );
}

export function sessionLabel(project: string, env: NodeJS.ProcessEnv, explicit?: string): string {
  const label = `${project}#${shortId(sessionId(env, explicit))}`.slice(0, 200);
  remember(label);
  return label;
}

/**
 * A hook of this process carried `id`: from now on it is the session's id
 * (the newest wins). Returns true when it changed. Ids are bounded like the
 * label they become (only 6 characters are kept of it).
 */
export function adoptSessionId(id: string, atMs = Date.now()): boolean {
  const next = id.slice(0, 200);
  if (!next) return false;
  adoptedAtMs = Math.max(adoptedAtMs, atMs);
  if (next === adopted) return false;
  adopted = next;
  return true;
}

/** When the newest adoption happened (epoch ms; 0: none yet): an older note of the id is not newer. */
export function adoptedAt(): number {
  return adoptedAtMs;
}

/** Every label this process has used, oldest first (at most MAX_LABELS, the newest). */
export function labelsUsed(): string[] {
  return [...used];
}

function remember(label: string): void {
  const at = used.indexOf(label);
  if (at === used.length - 1 && at >= 0) return;
  if (at >= 0) used.splice(at, 1);
  used.push(label);
  if (used.length > MAX_LABELS) used.shift();
}

function nonEmpty(s: string | undefined): string | undefined {
  return s ? s : undefined;
}

/** Six hex digits. Not a secret, only a label: Math.random spares loading node:crypto in every session. */
function randomHex6(): string {
  return Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, '0');
}
