/**
 * Narration in the real Claude Code (the pinned version, offline against the
 * stand-in Messages API), with the vox plugin from this repository and a
 * project that sets `narrate: stream`. Under `-p` MessageDisplay fires once
 * with the whole message: the plugin's mcp_tool hook sends it to voxd, which
 * speaks its sentences in order, the code block as a phrase, and the Stop
 * hook does not read the reply again. A second run of the session (a new
 * prompt, UserPromptSubmit) cuts what the first still narrates.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip, runClaude, type ClaudeRun } from '../helpers/claude-code.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import {
  offlineClaudeEnv,
  startMessagesApi,
  userText,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';

const SESSION = 'a11a0000-1111-4222-8333-444455556666';

/** A long reply with code, a table and a path: what the listener hears is only its prose. */
const REPLY = [
  'I looked at the failing checkout tests first.',
  'The rounding in the totals was off by one cent, so I fixed it in packages/shop/src/totals.ts and added a test.',
  '',
  '```ts',
  'export const round = (x: number) => Math.round(x * 100) / 100;',
  'export const total = (items: number[]) => round(items.reduce((a, b) => a + b, 0));',
  '```',
  '',
  '| file | tests |',
  '| --- | --- |',
  '| totals.ts | 12 |',
  '| refund.ts | 9 |',
  '',
  'Then I ran the whole suite again, and all forty seven tests pass now.',
  'The refund path needed no change at all.',
  'Next I would look at the slow search page, which takes two seconds to render its first result.',
  'After that the documentation of the checkout module could be brought up to date.',
].join('\n');

const HEARD = [
  'I looked at the failing checkout tests first.',
  'The rounding in the totals was off by one cent, so I fixed it in src/totals.ts and added a test.',
  'A code block of 2 lines.',
  'A table of 2 rows.',
  'Then I ran the whole suite again, and all forty seven tests pass now.',
  'The refund path needed no change at all.',
  'Next I would look at the slow search page, which takes two seconds to render its first result.',
  'After that the documentation of the checkout module could be brought up to date.',
].join(' ');

function model(req: MessagesRequest): Turn {
  if (!req.tools?.length) return { text: 'ok' };
  if (userText(req).includes('RUN2')) return { text: 'Noted.' };
  return { text: REPLY };
}

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  priority: string;
  outcome: string;
  reason?: string;
}

describe('narration in the real Claude Code', { skip: claudeSkip }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  const claude = (args: string[], cwd = project): Promise<ClaudeRun> => runClaude(args, { cwd, env });
  const history = async (): Promise<HistoryEntry[]> => (await d.api('GET', '/v1/status')).body.history;

  before(async () => {
    d = await startDaemon();
    api = await startMessagesApi(model);
    home = tempDir('vox-claude-narr-');
    project = join(home, 'shop');
    // Slow speech: the narration still plays when the second run's prompt comes.
    writeConfig(project, 'narrate: stream\nrate: 110');
    env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('-p: the reply is narrated in order without its code, no second Stop summary, and a new prompt cuts it', async () => {
    assert.equal((await claude(['plugin', 'marketplace', 'add', ROOT], home)).code, 0);
    const installed = await claude(['plugin', 'install', 'vox@vox'], home);
    assert.equal(installed.code, 0, installed.stderr + installed.stdout);

    const debug = join(home, 'debug-1.log');
    const run1 = await claude(['-p', 'Fix the checkout tests.', '--session-id', SESSION, '--debug-file', debug]);
    assert.equal(run1.code, 0, `${run1.stderr}\n${run1.stdout}`);
    assert.match(run1.stdout, /forty seven tests pass/);
    const log = readFileSync(debug, 'utf8');
    assert.match(log, /mcp_tool calling plugin:vox:vox\/hook/);

    const narration = await waitFor(
      async () => (await history()).find((h) => h.text.startsWith('I looked at the failing checkout tests')),
      20_000,
      'the narration',
    );
    assert.equal(narration.text, HEARD);
    assert.equal(narration.session, 'shop#a11a00');
    assert.equal(narration.priority, 'text');
    assert.doesNotMatch(narration.text, /Math\.round|reduce|\| file/);
    // The Stop hook ran (after MessageDisplay) and said nothing more: one utterance of the session in all.
    // The plugin's calls, by their argument count: UserPromptSubmit (4), MessageDisplay (8), then Stop (6).
    const calls = [...log.matchAll(/mcp_tool calling plugin:vox:vox\/hook with (\d+) arg/g)].map((m) => Number(m[1]));
    assert.deepEqual(calls, [4, 8, 6], 'UserPromptSubmit, MessageDisplay and Stop called the hook tool, in that order');
    const mine = (await history()).filter((h) => h.session === narration.session);
    assert.deepEqual(
      mine.map((h) => h.id),
      [narration.id],
      JSON.stringify(mine),
    );

    // It plays (slowly) while the next prompt of the session comes: UserPromptSubmit cuts it.
    await waitFor(
      async () => ((await d.api('GET', '/v1/status')).body.playing?.id === narration.id ? true : undefined),
      30_000,
      'the narration to play',
    );
    const run2 = await claude(['-p', 'RUN2 thanks', '--resume', SESSION]);
    assert.equal(run2.code, 0, `${run2.stderr}\n${run2.stdout}`);
    // The UserPromptSubmit hook adds nothing to the model's context (an empty result used to become a "hook success" message).
    const seen = JSON.stringify(api.requests.map((r) => r.body?.messages ?? []));
    assert.doesNotMatch(seen, /UserPromptSubmit hook success/);
    const ended = await waitFor(
      async () =>
        (await history()).find((h) => h.id === narration.id && h.outcome !== 'playing' && h.outcome !== 'queued'),
      20_000,
      'the narration to end',
    );
    assert.equal(ended.outcome, 'stopped');
    assert.match(ended.reason ?? '', /new prompt/);
    // The second reply is narrated in its turn.
    await waitFor(
      async () => (await history()).find((h) => h.text === 'Noted.' && h.session === narration.session),
      20_000,
      "the second run's narration",
    );
  });
});
