/**
 * The session label sent with every request: the project name plus a short
 * session id, e.g. `shop#3c07f0`. voxd shows it in status, history and logs,
 * and stops or replaces speech per label.
 */
let processId: string | undefined;

export function shortId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 6) || 'anon';
}

/**
 * The id comes from `explicit` (a hook payload's session_id), else VOX_SESSION_ID,
 * else CLAUDE_SESSION_ID, else one random id per process.
 */
export function sessionLabel(project: string, env: NodeJS.ProcessEnv, explicit?: string): string {
  const id = explicit ?? env.VOX_SESSION_ID ?? env.CLAUDE_CODE_SESSION_ID ?? env.CLAUDE_SESSION_ID ?? (processId ??= randomHex6());
  return `${project}#${shortId(id)}`.slice(0, 200);
}

/** Six hex digits. Not a secret, only a label: Math.random spares loading node:crypto in every session. */
function randomHex6(): string {
  return Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, '0');
}
