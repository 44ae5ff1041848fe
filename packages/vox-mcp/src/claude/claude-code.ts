/**
 * Whether Claude Code is here, which binary and which version: the one answer
 * that `vox setup`, `vox doctor`, `vox hooks install` and the tests share.
 *
 * Design notes:
 * - The binary is, in order: a pinned one the caller names (the tests' CI
 *   cache), VOX_CLAUDE_CODE, then `claude` on PATH. Only the file system is
 *   looked at to find it; the version is then asked once.
 * - `claude --version` prints e.g. "2.1.332 (Claude Code)". It runs with a
 *   time bound and is killed after it, so a Claude Code that waits for a login
 *   or an update never holds a vox command: the version is then unknown, and
 *   the binary still counts as present.
 */
import { spawnSync } from 'node:child_process';
import { findExecutable } from '@vox/protocol';

export interface ClaudeCode {
  path: string;
  /** Where the path came from, in words: `VOX_CLAUDE_CODE`, `PATH`, or the caller's name for its pin. */
  from: string;
  /** What `claude --version` answered, e.g. `2.1.332`; undefined when it did not answer with one in time. */
  version?: string;
  /** Why the version is unknown. */
  versionError?: string;
}

const VERSION_TIMEOUT_MS = 10_000;

/** `path --version`, bounded in time: the version, or why there is none. */
export function claudeCodeVersion(
  path: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = VERSION_TIMEOUT_MS,
): { version?: string; error?: string } {
  const r = spawnSync(path, ['--version'], {
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const version = /\b(\d+\.\d+\.\d+)\b/.exec(r.stdout ?? '')?.[1];
  if (version && r.status === 0) return { version };
  const err = r.error as NodeJS.ErrnoException | undefined;
  if (err?.code === 'ETIMEDOUT') return { error: `"${path} --version" did not answer within ${timeoutMs / 1000} s` };
  if (err) return { error: `"${path} --version" could not run (${err.code ?? err.message})` };
  return { error: `"${path} --version" did not answer with a version (exit ${r.status ?? r.signal})` };
}

/** Claude Code's binary and version, or undefined when there is none here. */
export function findClaudeCode(
  env: NodeJS.ProcessEnv,
  o: { pinned?: { path: string | undefined; from: string }; timeoutMs?: number; version?: boolean } = {},
): ClaudeCode | undefined {
  const candidates = [
    ...(o.pinned ? [o.pinned] : []),
    { path: env.VOX_CLAUDE_CODE, from: 'VOX_CLAUDE_CODE' },
    { path: 'claude', from: 'PATH' },
  ];
  let path: string | undefined;
  const found = candidates.find((c) => c.path && (path = findExecutable(c.path, env)));
  if (!found || !path) return undefined;
  // `vox setup` only runs its commands: asking the version too would be one more run of claude.
  if (o.version === false) return { path, from: found.from };
  const { version, error } = claudeCodeVersion(path, env, o.timeoutMs);
  return { path, from: found.from, ...(version ? { version } : { versionError: error }) };
}

/** One line for messages: `Claude Code 2.1.332 (/usr/bin/claude, from PATH)`. */
export function describeClaudeCode(c: ClaudeCode): string {
  return `Claude Code ${c.version ?? '(version unknown)'} (${c.path}, from ${c.from})`;
}
