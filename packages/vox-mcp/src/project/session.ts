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
 */
let processId: string | undefined;

export function shortId(id: string): string {
  return id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 6) || 'anon';
}

/**
 * The id, first found of:
 * 1. VOX_SESSION_ID, the user's override (in the environment of both ends, so
 *    it wins over the payload as well, or the two would differ);
 * 2. `explicit`: a hook payload's `session_id`;
 * 3. CLAUDE_CODE_SESSION_ID, what Claude Code gives its MCP servers;
 * 4. CLAUDE_SESSION_ID, the name older vox versions read (legacy);
 * 5. one random id per process (a shell's `vox say`, another MCP client).
 */
export function sessionId(env: NodeJS.ProcessEnv, explicit?: string): string {
  return nonEmpty(env.VOX_SESSION_ID) ?? nonEmpty(explicit) ?? nonEmpty(env.CLAUDE_CODE_SESSION_ID) ?? nonEmpty(env.CLAUDE_SESSION_ID) ?? (processId ??= randomHex6());
}

export function sessionLabel(project: string, env: NodeJS.ProcessEnv, explicit?: string): string {
  return `${project}#${shortId(sessionId(env, explicit))}`.slice(0, 200);
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
