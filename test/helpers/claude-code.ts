/**
 * Which Claude Code the tests and benches run, found as vox itself finds it
 * (claude/claude-code.ts): the pinned version in the CI cache
 * (`scripts/ci/claude-code.sh` fetches the version in
 * `scripts/ci/claude-code-version`), else `VOX_CLAUDE_CODE`, else `claude` on
 * PATH. It is not a dependency of vox. Without any, those tests skip with the
 * reason; a test that needs the pinned version skips with `pinnedSkip`, which
 * names the one found. Under CI=true the pinned one must be there, since CI
 * fetches it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';
import { describeClaudeCode, findClaudeCode } from '../../packages/vox-mcp/src/claude/claude-code.js';
// @ts-expect-error plain ESM script, no types
import { claudeCodeBinary } from '../../scripts/ci/claude-code-bin.mjs';

export const CLAUDE_CODE_VERSION = readFileSync(join(ROOT, 'scripts/ci/claude-code-version'), 'utf8').trim();

const cache = process.env.VOX_CI_CACHE ?? '/var/cache/vox-ci';
const FOUND = findClaudeCode(process.env, {
  pinned: {
    path: (claudeCodeBinary as (prefix: string) => string | undefined)(join(cache, 'claude-code', CLAUDE_CODE_VERSION)),
    from: `the CI cache (${cache})`,
  },
});

/** The binary, or undefined; `claudeSkip` is then the reason to give. */
export const CLAUDE: string | undefined = FOUND?.path;
/** What was found, e.g. `Claude Code 2.1.332 (/usr/bin/claude, from PATH)`. */
export const CLAUDE_FOUND: string | undefined = FOUND && describeClaudeCode(FOUND);
export const claudeSkip: string | false = FOUND
  ? false
  : `Claude Code is not installed here (no ${CLAUDE_CODE_VERSION} in ${cache}/claude-code, no VOX_CLAUDE_CODE, no claude on PATH): scripts/ci/claude-code.sh fetches the pinned one (CI does)`;
/** For a test that needs the pinned version: the reason to skip, naming what was found, or false. */
export const pinnedSkip: string | false =
  claudeSkip ||
  (FOUND!.version === CLAUDE_CODE_VERSION
    ? false
    : `needs Claude Code ${CLAUDE_CODE_VERSION}; found ${CLAUDE_FOUND}${FOUND!.versionError ? `: ${FOUND!.versionError}` : ''}`);
if (pinnedSkip && process.env.CI === 'true') {
  throw new Error(
    `CI: ${pinnedSkip}; .ci/run fetches Claude Code ${CLAUDE_CODE_VERSION} with scripts/ci/claude-code.sh`,
  );
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Claude Code's pid: its hooks' CLAUDE_PID, its MCP servers' parent. */
  pid: number;
}

/** Run the Claude Code found to its end (killed after `timeoutMs`), collecting its output. */
export function runClaude(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE!, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, pid: child.pid! });
    });
  });
}
