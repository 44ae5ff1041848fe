/**
 * Where the pinned Codex CLI, Gemini CLI, Copilot CLI, opencode and Qwen Code
 * are, for the tests that run them (test/*-cli.e2e). None is a dependency of
 * vox: `scripts/ci/codex.sh`, `gemini-cli.sh`, `copilot-cli.sh`,
 * `opencode.sh` and `qwen-code.sh` fetch the versions in
 * `scripts/ci/*-version` into the CI cache; `VOX_CODEX`, `VOX_COPILOT_CLI`,
 * `VOX_OPENCODE` (native binaries), `VOX_GEMINI_CLI` (its gemini.js) and
 * `VOX_QWEN_CODE` (its cli.js) may name others. Elsewhere those tests skip
 * with the reason; under CI=true a missing one is an error, since CI fetches
 * them all.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';
// @ts-expect-error plain ESM script, no types
import {
  codexBinary,
  copilotBinary,
  geminiCliScript,
  opencodeBinary,
  qwenCodeScript,
} from '../../scripts/ci/agent-cli-bin.mjs';

const version = (file: string): string => readFileSync(join(ROOT, 'scripts/ci', file), 'utf8').trim();
export const CODEX_VERSION = version('codex-version');
export const GEMINI_CLI_VERSION = version('gemini-cli-version');
export const COPILOT_CLI_VERSION = version('copilot-cli-version');
export const OPENCODE_VERSION = version('opencode-version');
export const QWEN_CODE_VERSION = version('qwen-code-version');
const cache = process.env.VOX_CI_CACHE ?? '/var/cache/vox-ci';

export const CODEX: string | undefined =
  process.env.VOX_CODEX || (codexBinary as (p: string) => string | undefined)(join(cache, 'codex', CODEX_VERSION));
export const GEMINI_CLI: string | undefined =
  process.env.VOX_GEMINI_CLI ||
  (geminiCliScript as (p: string) => string | undefined)(join(cache, 'gemini-cli', GEMINI_CLI_VERSION));

export const COPILOT_CLI: string | undefined =
  process.env.VOX_COPILOT_CLI ||
  (copilotBinary as (p: string) => string | undefined)(join(cache, 'copilot-cli', COPILOT_CLI_VERSION));

export const OPENCODE: string | undefined =
  process.env.VOX_OPENCODE ||
  (opencodeBinary as (p: string) => string | undefined)(join(cache, 'opencode', OPENCODE_VERSION));

export const QWEN_CODE: string | undefined =
  process.env.VOX_QWEN_CODE ||
  (qwenCodeScript as (p: string) => string | undefined)(join(cache, 'qwen-code', QWEN_CODE_VERSION));

export const codexSkip: string | false = CODEX
  ? false
  : `Codex CLI ${CODEX_VERSION} is not installed here: scripts/ci/codex.sh fetches it (CI does), or set VOX_CODEX`;
export const geminiSkip: string | false = GEMINI_CLI
  ? false
  : `Gemini CLI ${GEMINI_CLI_VERSION} is not installed here: scripts/ci/gemini-cli.sh fetches it (CI does), or set VOX_GEMINI_CLI`;
export const copilotSkip: string | false = COPILOT_CLI
  ? false
  : `Copilot CLI ${COPILOT_CLI_VERSION} is not installed here: scripts/ci/copilot-cli.sh fetches it (CI does), or set VOX_COPILOT_CLI`;
export const opencodeSkip: string | false = OPENCODE
  ? false
  : `opencode ${OPENCODE_VERSION} is not installed here: scripts/ci/opencode.sh fetches it (CI does), or set VOX_OPENCODE`;
export const qwenSkip: string | false = QWEN_CODE
  ? false
  : `Qwen Code ${QWEN_CODE_VERSION} is not installed here: scripts/ci/qwen-code.sh fetches it (CI does), or set VOX_QWEN_CODE`;
if (process.env.CI === 'true') {
  if (!QWEN_CODE)
    throw new Error(`CI: Qwen Code ${QWEN_CODE_VERSION} is missing; .ci/run fetches it with scripts/ci/qwen-code.sh`);
  if (!OPENCODE)
    throw new Error(`CI: opencode ${OPENCODE_VERSION} is missing; .ci/run fetches it with scripts/ci/opencode.sh`);
  if (!COPILOT_CLI)
    throw new Error(
      `CI: Copilot CLI ${COPILOT_CLI_VERSION} is missing; .ci/run fetches it with scripts/ci/copilot-cli.sh`,
    );
  if (!CODEX) throw new Error(`CI: Codex CLI ${CODEX_VERSION} is missing; .ci/run fetches it with scripts/ci/codex.sh`);
  if (!GEMINI_CLI)
    throw new Error(
      `CI: Gemini CLI ${GEMINI_CLI_VERSION} is missing; .ci/run fetches it with scripts/ci/gemini-cli.sh`,
    );
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end (SIGKILL after `timeoutMs`), stdin closed, output collected (bounded). */
export function runCli(
  cmd: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    // PWD as a shell sets it: opencode takes its directory from PWD, not the process's cwd.
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: { ...options.env, PWD: options.cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const cap = (s: string, add: string): string => (s.length > 1_000_000 ? s : s + add);
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout = cap(stdout, s)));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = cap(stderr, s)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `gemini …`: its gemini.js under this node, or VOX_GEMINI_CLI itself when it is not a .js file. */
export function runGemini(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliRun> {
  const js = GEMINI_CLI!.endsWith('.js');
  return runCli(js ? process.execPath : GEMINI_CLI!, js ? [GEMINI_CLI!, ...args] : args, options);
}

/** The argv that starts Qwen Code: its cli.js under this node, or VOX_QWEN_CODE itself when it is not a .js file. */
export function qwenArgv(): string[] {
  return QWEN_CODE!.endsWith('.js') ? [process.execPath, QWEN_CODE!] : [QWEN_CODE!];
}

/** `qwen …`, as qwenArgv() starts it. */
export function runQwen(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliRun> {
  const [cmd, ...pre] = qwenArgv();
  return runCli(cmd!, [...pre, ...args], options);
}
