/**
 * Narration from the transcript in the real Claude Code (the pinned version,
 * offline against the stand-in Messages API): a streamed reply with two tool
 * calls in the middle, in a project that sets `narrate: stream`.
 * - With a copy of the plugin whose MessageDisplay hook is absent (as when
 *   MessageDisplay does not fire for a model's text, Claude Code's issue
 *   #93531), the three texts are narrated from the transcript, read at
 *   PostToolUse and Stop: in order, each once, and no Stop summary after.
 * - With the plugin as shipped, both paths see every text: nothing is
 *   spoken twice.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip, runClaude } from '../helpers/claude-code.js';
import { ROOT, removeDir, startDaemon, tempDir, writeConfig, type Daemon } from '../helpers/daemon.js';
import {
  offlineClaudeEnv,
  startMessagesApi,
  toolResults,
  type MessagesRequest,
  type StandIn,
  type Turn,
} from '../helpers/messages-api.js';

const TEXTS = [
  'I will read the parser first.\nIt is the likely culprit.\n',
  'The month table is wrong.\nI will check the tests too.\n',
  'Fixed the month table.\nAll the tests pass now.\n',
];
const HEARD = TEXTS.map((t) => t.trim().replace(/\n/g, ' '));

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
}

describe('narration from the transcript in the real Claude Code', { skip: claudeSkip }, () => {
  let d: Daemon;
  let api: StandIn;
  let root: string;

  /** The stand-in model: text, a Read; text, a Read; then the last text, each streamed line by line. */
  const model =
    (file: string) =>
    (req: MessagesRequest): Turn => {
      if (!req.tools?.length) return { text: 'ok' };
      const done = toolResults(req);
      const read = (id: string) => [{ id, name: 'Read', input: { file_path: file } }];
      if (done.has('toolu_read_2')) return { text: TEXTS[2], lineDelayMs: 30 };
      if (done.has('toolu_read_1')) return { text: TEXTS[1], lineDelayMs: 30, tools: read('toolu_read_2') };
      return { text: TEXTS[0], lineDelayMs: 30, tools: read('toolu_read_1') };
    };

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-claude-transcript-');
  });
  after(async () => {
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (root) removeDir(root);
  });

  /** A Claude Code home with the plugin installed from `market`, a project, and a run of one prompt. */
  async function session(
    name: string,
    market: string,
    sessionId: string,
  ): Promise<{ heard: string[]; calls: number[] }> {
    const home = join(root, `home-${name}`);
    const project = join(home, name);
    writeConfig(project, 'narrate: stream');
    writeFileSync(join(project, 'parser.ts'), 'export const days = 30;\n');
    api = await startMessagesApi(model(join(project, 'parser.ts')));
    const env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
    const claude = (args: string[], cwd = project) => runClaude(args, { cwd, env });
    assert.equal((await claude(['plugin', 'marketplace', 'add', market], home)).code, 0);
    const installed = await claude(['plugin', 'install', 'vox@vox'], home);
    assert.equal(installed.code, 0, installed.stderr + installed.stdout);
    const debug = join(home, 'debug.log');
    const run = await claude([
      '-p',
      'Fix the date parser.',
      '--session-id',
      sessionId,
      '--allowedTools',
      'Read',
      '--debug-file',
      debug,
    ]);
    assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
    assert.match(run.stdout, /All the tests pass now/);
    // Two Reads ran: the reply had two tool calls in its middle.
    assert.ok(api.requests.some((r) => r.body && toolResults(r.body).has('toolu_read_2')));
    // The PostToolUse hook adds nothing to what the model sees.
    assert.doesNotMatch(JSON.stringify(api.requests.map((r) => r.body?.messages ?? [])), /PostToolUse/);
    await api.close();
    // vox mcp sends what it answered before it exits with Claude Code: the history is complete.
    await d.idle();
    const label = `${name}#${sessionId.slice(0, 6)}`;
    const history = (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
    const heard = history
      .filter((h) => h.session === label)
      .map((h) => h.text)
      .reverse();
    // The plugin's hook calls, by their argument count.
    const log = readFileSync(debug, 'utf8');
    const calls = [...log.matchAll(/mcp_tool calling plugin:vox:vox\/hook with (\d+) arg/g)].map((m) => Number(m[1]));
    return { heard, calls };
  }

  test('MessageDisplay absent: the reply around two tool calls is narrated from the transcript, in order, once', async () => {
    // A copy of the marketplace and plugin, without the MessageDisplay hook.
    const market = join(root, 'market');
    mkdirSync(market);
    cpSync(join(ROOT, '.claude-plugin'), join(market, '.claude-plugin'), { recursive: true });
    cpSync(join(ROOT, 'plugin'), join(market, 'plugin'), { recursive: true });
    const hooksFile = join(market, 'plugin', 'hooks', 'hooks.json');
    const hooks = JSON.parse(readFileSync(hooksFile, 'utf8'));
    assert.ok(hooks.hooks.MessageDisplay && hooks.hooks.PostToolUse);
    delete hooks.hooks.MessageDisplay;
    writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));

    const { heard, calls } = await session('nomd', market, 'b0b0b0b0-1111-4222-8333-444455556666');
    // UserPromptSubmit (4), PostToolUse (4) twice, Stop (6): no MessageDisplay.
    assert.deepEqual(calls, [4, 4, 4, 6]);
    assert.deepEqual(heard, HEARD);
  });

  test('both paths fire (the plugin as shipped): nothing is spoken twice', async () => {
    const { heard, calls } = await session('both', ROOT, 'c0c0c0c0-1111-4222-8333-444455556666');
    // UserPromptSubmit (4), then MessageDisplay (8) and PostToolUse (4) for each text and tool, Stop (6).
    assert.deepEqual(calls, [4, 8, 4, 8, 4, 8, 6]);
    assert.deepEqual(heard, HEARD);
  });
});
