/**
 * Where the pinned Claude Code is, for the tests and benches that run it. It is
 * not a dependency of vox: `scripts/ci/claude-code.sh` fetches the version in
 * `scripts/ci/claude-code-version` into the CI cache, and `VOX_CLAUDE_CODE`
 * may name another binary. Elsewhere those tests skip with this reason; under
 * CI=true its absence is an error, since CI fetches it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';
// @ts-expect-error plain ESM script, no types
import { claudeCodeBinary } from '../../scripts/ci/claude-code-bin.mjs';

export const CLAUDE_CODE_VERSION = readFileSync(join(ROOT, 'scripts/ci/claude-code-version'), 'utf8').trim();

function find(): string | undefined {
  if (process.env.VOX_CLAUDE_CODE) return process.env.VOX_CLAUDE_CODE;
  const cache = process.env.VOX_CI_CACHE ?? '/var/cache/vox-ci';
  return (claudeCodeBinary as (prefix: string) => string | undefined)(join(cache, 'claude-code', CLAUDE_CODE_VERSION));
}

/** The binary, or undefined; `skip` is then the reason to give. */
export const CLAUDE: string | undefined = find();
export const claudeSkip: string | false = CLAUDE
  ? false
  : `Claude Code ${CLAUDE_CODE_VERSION} is not installed here: scripts/ci/claude-code.sh fetches it (CI does), or set VOX_CLAUDE_CODE`;
if (!CLAUDE && process.env.CI === 'true') {
  throw new Error(
    `CI: Claude Code ${CLAUDE_CODE_VERSION} is missing; .ci/run fetches it with scripts/ci/claude-code.sh`,
  );
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Claude Code's pid: its hooks' CLAUDE_PID, its MCP servers' parent. */
  pid: number;
}

/** Run the pinned Claude Code to its end (killed after `timeoutMs`), collecting its output. */
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
