/**
 * The real Claude Code, interactive, in tmux: its own tmux server socket,
 * the first-run screens answered beforehand (onboarding, the custom API key,
 * trusting the project), its temporary files in HOME, a debug log. For the
 * tests whose case only the interactive CLI has (/clear, permission dialogs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE } from './claude-code.js';
import { waitFor } from './daemon.js';

export interface InteractiveClaude {
  /** Claude Code's debug log (--debug-file). */
  debug: string;
  tmux(...args: string[]): ReturnType<typeof spawnSync>;
  /** What the pane shows now. */
  pane(): string;
  /** Types `text` and Enter. */
  type(text: string): void;
  /** /exit, then the tmux server killed (the bound). */
  close(): Promise<void>;
}

export async function startInteractiveClaude(o: {
  home: string;
  project: string;
  env: Record<string, string>;
  args: string[];
  name: string;
}): Promise<InteractiveClaude> {
  const socket = `vox-test-${process.pid}-${o.name}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  const pane = () => String(tmux('capture-pane', '-p', '-t', 'cc').stdout ?? '');
  const type = (text: string) => {
    tmux('send-keys', '-t', 'cc', '-l', text);
    tmux('send-keys', '-t', 'cc', 'Enter');
  };
  writeFileSync(
    join(o.home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: [o.env.ANTHROPIC_API_KEY!.slice(-20)], rejected: [] },
      projects: { [o.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
  const debug = join(o.home, 'claude-debug.log');
  // Claude Code's own temporary files (claude-UID, cc-socks) go into HOME, removed with it.
  const tmp = join(o.home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const envArgs = Object.entries({ ...o.env, TMPDIR: tmp }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const started = tmux(
    'new-session',
    '-d',
    '-s',
    'cc',
    '-x',
    '160',
    '-y',
    '50',
    '-c',
    o.project,
    ...envArgs,
    CLAUDE!,
    ...o.args,
    '--debug-file',
    debug,
  );
  assert.equal(started.status, 0, String(started.stderr));
  await waitFor(() => (/manual mode on|for shortcuts/.test(pane()) ? true : undefined), 30_000, 'the prompt').catch(
    (e: Error) => {
      tmux('kill-server');
      throw new Error(`${e.message}; the screen:\n${pane()}`);
    },
  );
  return {
    debug,
    tmux,
    pane,
    type,
    async close() {
      if (existsSync(debug)) {
        // /exit lets Claude Code end its MCP servers; the kill is the bound.
        type('/exit');
        await waitFor(
          () => (tmux('has-session', '-t', 'cc').status !== 0 ? true : undefined),
          10_000,
          'claude to exit',
        ).catch(() => {});
      }
      tmux('kill-server');
    },
  };
}
