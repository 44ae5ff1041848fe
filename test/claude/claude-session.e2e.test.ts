/**
 * A session's life in the real Claude Code (the pinned version, -p mode,
 * offline against the stand-in Messages API, the plugin from this checkout
 * with --plugin-dir, the real voxd): which label a resumed or forked session
 * speaks under, what a permission request says where nobody can answer it,
 * the words of a StopFailure, and which SessionStart/SessionEnd hooks start
 * a process at all. /clear is interactive: test/claude/claude-interactive.e2e.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { claudeSkip, runClaude, type ClaudeRun } from '../helpers/claude-code.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';
import {
  lastUser,
  offlineClaudeEnv,
  resultText,
  startMessagesApi,
  toolResults,
  userText,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';

const TOOL = (name: string) => `mcp__plugin_vox_vox__${name}`;
const SESSION = '5e55a000-1111-4222-8333-444455556666';

/** The model: a keyword in the prompt picks the turn; a tool result gets a closing answer. */
function model(req: MessagesRequest): Turn {
  const last = lastUser(req);
  const results = toolResults(last);
  if (results.has('toolu_bash')) return { text: 'The file could not be made.' };
  if (results.has('toolu_status')) return { text: 'Status read.' };
  if (results.size) return { text: 'Forked and spoken.' };
  if (!req.tools?.length) return { text: 'ok' };
  const prompt = userText(last);
  if (prompt.includes('BASH'))
    return {
      tools: [
        { id: 'toolu_bash', name: 'Bash', input: { command: 'touch made-by-claude.txt', description: 'Make a file' } },
      ],
    };
  if (prompt.includes('FAIL'))
    return {
      error: {
        status: 400,
        type: 'invalid_request_error',
        message: 'prompt is too long: 250000 tokens > 200000 maximum',
      },
    };
  if (prompt.includes('STATUS')) return { tools: [{ id: 'toolu_status', name: TOOL('status'), input: {} }] };
  if (prompt.includes('FORK'))
    return { tools: [{ id: 'toolu_fork_speak', name: TOOL('speak'), input: { text: 'Spoken from the fork.' } }] };
  return { text: 'The first run is done.' };
}

interface HistoryEntry {
  id: string;
  text: string;
  kind: string;
  session?: string;
  outcome: string;
}

describe('a Claude Code session, in -p runs', { skip: claudeSkip }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let env: NodeJS.ProcessEnv;
  /** Every `node` the hooks start, by its arguments (a wrapper on PATH). */
  let nodeLog: string;

  function project(name: string, frontMatter: string): string {
    const dir = join(home, name);
    mkdirSync(join(dir, '.vox'), { recursive: true });
    writeFileSync(join(dir, '.vox', 'config.md'), `---\n${frontMatter}\n---\n`);
    return dir;
  }

  function claude(cwd: string, args: string[]): Promise<ClaudeRun> {
    return runClaude(['--plugin-dir', join(ROOT, 'plugin'), ...args], { cwd, env });
  }

  async function history(): Promise<HistoryEntry[]> {
    return (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
  }

  before(async () => {
    d = await startDaemon({ realtime: false });
    api = await startMessagesApi(model);
    home = tempDir('vox-claude-session-');
    env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
    // Claude Code's own temporary files go into HOME, removed with it.
    env.TMPDIR = join(home, 'tmp');
    mkdirSync(env.TMPDIR);
    // A `node` ahead of the real one that notes its arguments: the plugin's hooks and server run "node".
    const bin = join(home, 'bin');
    mkdirSync(bin);
    nodeLog = join(home, 'node-calls.log');
    writeFileSync(join(bin, 'node'), `#!/bin/sh\necho "$*" >> '${nodeLog}'\nexec '${process.execPath}' "$@"\n`);
    chmodSync(join(bin, 'node'), 0o755);
    env.PATH = [bin, env.PATH].join(delimiter);
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('--resume keeps the label; --fork-session speaks as the fork, model and hooks alike; status lists the labels used', async () => {
    const dir = project('resumed', 'notify: normal');
    const run1 = await claude(dir, ['-p', 'hello', '--session-id', SESSION]);
    assert.equal(run1.code, 0, run1.stderr + run1.stdout);
    const first = await waitFor(
      async () => (await history()).find((h) => h.text === 'The first run is done.'),
      20_000,
      'the first Stop summary',
    );
    assert.equal(first.session, 'resumed#5e55a0');

    const resumed = await claude(dir, ['-p', 'STATUS', '--resume', SESSION, '--allowedTools', TOOL('status')]);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    const result = api.requests.map((r) => r.body && toolResults(lastUser(r.body)).get('toolu_status')).find(Boolean);
    assert.ok(result, 'the stand-in saw the result of status');
    const status = JSON.parse(resultText(result.content)) as { session: string; sessions: string[] };
    assert.equal(status.session, first.session, 'a resumed session keeps its label');
    assert.deepEqual(status.sessions, [first.session]);

    const forked = await claude(dir, [
      '-p',
      'FORK',
      '--resume',
      SESSION,
      '--fork-session',
      '--allowedTools',
      TOOL('speak'),
    ]);
    assert.equal(forked.code, 0, forked.stderr + forked.stdout);
    const said = await waitFor(
      async () => (await history()).find((h) => h.text === 'Spoken from the fork.'),
      20_000,
      "the fork's speak",
    );
    const summary = await waitFor(
      async () => (await history()).find((h) => h.text === 'Forked and spoken.'),
      20_000,
      "the fork's Stop summary",
    );
    assert.match(said.session ?? '', /^resumed#[0-9a-f]{6}$/);
    assert.notEqual(said.session, first.session, 'a fork is a session of its own');
    assert.equal(summary.session, said.session, "the fork's hooks and its model speak as one");
  });

  test('claude -p: a PermissionRequest nobody can answer is not announced; unattendedPrompts: true announces it', async () => {
    for (const [name, extra, heard] of [
      ['headless', '', false],
      ['headless-loud', '\nunattendedPrompts: true', true],
    ] as const) {
      const dir = project(name, `notify: normal${extra}`);
      const debug = join(home, `${name}-debug.log`);
      const r = await claude(dir, ['-p', 'BASH please', '--permission-mode', 'default', '--debug-file', debug]);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const log = readFileSync(debug, 'utf8');
      // The hook ran (Claude Code asked, then denied the tool: nobody was there to answer).
      assert.match(log, /executePermissionRequestHooks called for tool: Bash/);
      assert.match(log, /mcp_tool calling plugin:vox:vox\/hook/);
      assert.equal(existsSync(join(dir, 'made-by-claude.txt')), false, 'the tool was denied');
      await waitFor(
        async () => (await history()).find((h) => h.text === 'The file could not be made.'),
        20_000,
        'the Stop summary',
      );
      const asked = (await history()).filter(
        (h) => h.text.includes('needs your permission') && h.session?.startsWith(`${name}#`),
      );
      assert.deepEqual(
        asked.map((h) => h.text),
        heard ? [`${name} needs your permission to use Bash`] : [],
        name,
      );
    }
  });

  test('a StopFailure for an HTTP 400 (prompt too long: invalid_request) is spoken in its own words', async () => {
    const dir = project('failing', 'notify: normal');
    const debug = join(home, 'failing-debug.log');
    const r = await claude(dir, ['-p', 'FAIL now', '--debug-file', debug]);
    assert.notEqual(r.stdout + r.stderr, '', 'Claude Code reports the failure');
    const said = await waitFor(
      async () => (await history()).find((h) => h.session?.startsWith('failing#')),
      20_000,
      'the StopFailure',
    ).catch((err: Error) => {
      const lines = readFileSync(debug, 'utf8')
        .split('\n')
        .filter((l) => /StopFailure|mcp_tool|MCP server "plugin:vox|SIGINT|exited/.test(l));
      throw new Error(`${err.message}; Claude Code's debug log:\n${lines.join('\n')}`);
    });
    assert.equal(said.text, 'failing: the request failed, the API rejected the request as invalid');
  });

  test('SessionStart and SessionEnd start no node unless the project is continuous', async () => {
    const quiet = project('quiet', 'notify: normal');
    const loud = project('loud', 'notify: continuous');
    writeFileSync(nodeLog, '');
    const q = await claude(quiet, ['-p', 'hello']);
    assert.equal(q.code, 0, q.stderr + q.stdout);
    const quietCalls = readFileSync(nodeLog, 'utf8');
    assert.match(
      quietCalls,
      /vox\.cjs mcp/,
      'the wrapper saw the MCP server start: it is on the path Claude Code uses',
    );
    assert.doesNotMatch(quietCalls, /hook Session(Start|End)/);

    writeFileSync(nodeLog, '');
    const loudId = '10d10d10-1111-4222-8333-444455556666';
    const l = await claude(loud, ['-p', 'hello', '--session-id', loudId]);
    assert.equal(l.code, 0, l.stderr + l.stdout);
    // Its command hooks noted the session's id for this Claude Code (CLAUDE_PID), where its vox mcp looks after a /clear.
    assert.equal(readFileSync(join(d.home, 'sessions', `claude-${l.pid}`), 'utf8'), `${loudId}\n`);
    const loudCalls = readFileSync(nodeLog, 'utf8');
    assert.match(loudCalls, /hook SessionStart/);
    assert.match(loudCalls, /hook SessionEnd/);
    const started = await waitFor(
      async () => (await history()).find((h) => h.text === 'loud session started'),
      20_000,
      'SessionStart to speak',
    );
    assert.match(started.session ?? '', /^loud#/);
    await waitFor(
      async () => (await history()).find((h) => h.kind === 'chime' && h.session === started.session),
      20_000,
      "SessionEnd's done chime",
    );
  });
});
