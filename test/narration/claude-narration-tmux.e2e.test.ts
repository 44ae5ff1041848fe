/**
 * Narration in the real Claude Code, interactive in tmux (its own server
 * socket), offline against the stand-in Messages API, which writes the reply
 * a line every 400 ms as a model would; the plugin from this checkout
 * (--plugin-dir), a project with `narrate: stream`, the real voxd in real
 * time. Interactive, MessageDisplay fires batch by batch, so the first
 * sentence is heard while the rest of the reply is still being written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip } from '../helpers/claude-code.js';
import { startInteractiveClaude, type InteractiveClaude } from '../helpers/claude-tmux.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import {
  lastUser,
  offlineClaudeEnv,
  startMessagesApi,
  userText,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';
import { needTool } from '../helpers/tools.js';

const LINES = [
  'The first thing I checked was the failing login test.',
  'It failed because the session cookie expired a second too early.',
  '```js',
  'const maxAge = 3600 * 1000;',
  '```',
  'I moved the expiry to the server clock, and the test passes now.',
  'The other forty tests pass as they did before.',
  'Nothing else in the module needed a change.',
  'That is everything for this task.',
];
const LINE_DELAY_MS = 400;
/** A reply that takes far longer to say than the test takes to cut it: each line its own sentence. */
const RAMBLE = Array.from(
  { length: 16 },
  (_, i) => `Part ${i + 1} of the report covers one more module that I read through from its top to its bottom.`,
);

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  outcome: string;
  reason?: string;
  startedAt?: string;
  finishedAt?: string;
}

describe('narration in the real Claude Code, interactive in tmux', { skip: claudeSkip || needTool('tmux') }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let project: string;
  let sentAt = 0;
  let cc: InteractiveClaude;
  const type = (text: string) => cc.type(text);
  const history = async (): Promise<HistoryEntry[]> => (await d.api('GET', '/v1/status')).body.history;

  function model(req: MessagesRequest): Turn {
    if (!req.tools?.length) return { text: 'ok' };
    if (userText(lastUser(req)).includes('RAMBLE')) return { text: `${RAMBLE.join('\n')}\n` };
    if (userText(lastUser(req)).includes('NARRATE'))
      return { text: `${LINES.join('\n')}\n`, lineDelayMs: LINE_DELAY_MS, onSent: () => (sentAt = Date.now()) };
    return { text: 'Hello.' };
  }

  before(async () => {
    d = await startDaemon();
    api = await startMessagesApi(model);
    home = tempDir('vox-claude-narr-tmux-');
    project = join(home, 'web');
    writeConfig(project, 'narrate: stream');
    cc = await startInteractiveClaude({
      home,
      project,
      env: offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url }),
      args: ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default'],
      name: 'narr',
    });
  });
  after(async () => {
    await cc?.close();
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('the first sentence is heard before the reply is written to its end; all of it once, without the code', async (t) => {
    const asked = Date.now();
    type('NARRATE please fix the login test');
    const narration = await waitFor(
      async () => (await history()).find((h) => h.text.startsWith('The first thing I checked')),
      30_000,
      'the narration to start',
    );
    assert.ok(narration.startedAt, 'it started');
    const started = Date.parse(narration.startedAt!);
    await waitFor(() => (sentAt ? true : undefined), 30_000, 'the stand-in to finish the reply');
    // The reply took LINES × 400 ms to write; its first sentence played before the last line was written.
    const figures = `first audio at +${started - asked} ms, the reply was written by +${sentAt - asked} ms`;
    t.diagnostic(figures);
    assert.ok(started < sentAt, figures);
    const done = await waitFor(
      async () =>
        (await history()).find((h) => h.id === narration.id && h.outcome !== 'playing' && h.outcome !== 'queued'),
      60_000,
      'the narration to end',
    );
    assert.equal(done.outcome, 'played');
    assert.equal(done.text, [LINES[0], LINES[1], 'A code block of one line.', ...LINES.slice(5)].join(' '));
    // Each batch's hook inside Claude Code, from its debug log ("calling" to the hook's output): reported, not asserted.
    const log = readFileSync(cc.debug, 'utf8').split('\n');
    const hookMs: number[] = [];
    let calledAt: number | undefined;
    for (const line of log) {
      const at = Date.parse(line.slice(0, 24));
      if (line.includes('mcp_tool calling plugin:vox:vox/hook with 8 arg')) calledAt = at;
      else if (calledAt !== undefined && line.includes('Hook output')) {
        hookMs.push(at - calledAt);
        calledAt = undefined;
      }
    }
    assert.ok(hookMs.length >= 5, `MessageDisplay fired batch by batch: ${hookMs.length} hook calls`);
    const sorted = [...hookMs].sort((a, b) => a - b);
    t.diagnostic(
      `MessageDisplay hook inside Claude Code, per batch (ms): ${hookMs.join(', ')}; median ${sorted[sorted.length >> 1]}`,
    );
    // No Stop summary after it: the session's only utterance is the narration.
    await new Promise((r) => setTimeout(r, 1500));
    const mine = (await history()).filter((h) => h.session === narration.session);
    assert.deepEqual(
      mine.map((h) => h.id),
      [narration.id],
    );
  });

  test("the plugin's server runs with the session's environment and the launch's one malloc arena", async () => {
    const entry = join(ROOT, 'plugin', 'bin', 'vox.cjs');
    /** The environment of this session's `vox mcp`: the plugin's entry, with this test's VOX_HOME. */
    const server = () => {
      for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
          const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          if (!argv.includes(entry) || argv.at(-2) !== 'mcp') continue;
          const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
          if (environ.includes(`VOX_HOME=${d.home}`)) return environ;
        } catch {
          // A process that ended meanwhile.
        }
      }
      return undefined;
    };
    const environ = await waitFor(server, 10_000, "the plugin's vox mcp");
    assert.ok(environ.includes('MALLOC_ARENA_MAX=1'), "the plugin's .mcp.json env reaches the server");
    assert.ok(
      environ.some((kv) => kv.startsWith('PATH=')),
      "merged with the session's, not instead of it",
    );
  });

  test("/clear, then a new prompt: the old reply's narration is cut though the session has a new label", async () => {
    await d.idle();
    const debug = cc.debug;
    type('RAMBLE through the report');
    const old = await waitFor(
      async () => (await history()).find((h) => h.text.startsWith('Part 1 of the report') && h.outcome === 'playing'),
      30_000,
      'the long narration to play',
    );
    type('/clear');
    await waitFor(
      () => (/SessionStart:clear/.test(readFileSync(debug, 'utf8')) ? true : undefined),
      20_000,
      'SessionStart:clear',
    );
    // Still speaking: 16 long sentences take far longer than a /clear.
    assert.equal((await history()).find((h) => h.id === old.id)?.outcome, 'playing');
    type('hello again');
    const hello = await waitFor(
      async () => (await history()).find((h) => h.text === 'Hello.' && h.session !== old.session),
      30_000,
      'the new reply under the new label',
    );
    const ended = await waitFor(
      async () => (await history()).find((h) => h.id === old.id && h.outcome !== 'playing' && h.outcome !== 'queued'),
      120_000,
      'the old narration to end',
    );
    assert.notEqual(hello.session, old.session, '/clear gave the session a new label');
    assert.equal(ended.outcome, 'stopped', `the old reply was cut, not read to its end: ${JSON.stringify(ended)}`);
    assert.match(ended.reason ?? '', /new prompt/);
  });
});
