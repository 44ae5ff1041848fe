/**
 * The real Claude Code, interactive, in tmux (its own server socket, killed
 * afterwards), offline against the stand-in Messages API, with the plugin from
 * this checkout (--plugin-dir) and the real voxd in real time:
 *
 * - /clear keeps `vox mcp` running with the first CLAUDE_CODE_SESSION_ID while
 *   the hooks carry a new session_id. The model's stop must still stop the
 *   Stop summary that the hook spoke under the new id, and its later speech
 *   goes under the new id from the first turn after the clear (SessionStart's
 *   mcp_tool group for `clear`).
 * - A permission dialog fires PermissionRequest at once and a
 *   permission_prompt Notification ~6 s later: one announcement.
 * - With command hooks only (`vox hooks install --type command`) and `vox mcp`
 *   as a plain MCP server, no hook reaches vox mcp: the hooks note the new id
 *   for their Claude Code (claude/current-session.ts), and the model's stop
 *   after /clear still stops the summary spoken under it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip } from '../helpers/claude-code.js';
import { startInteractiveClaude, type InteractiveClaude } from '../helpers/claude-tmux.js';
import { ROOT, VOX, removeDir, startDaemon, tempDir, vox, waitFor, type Daemon } from '../helpers/daemon.js';
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
import { needTool } from '../helpers/tools.js';

const PLUGIN_TOOL = (name: string) => `mcp__plugin_vox_vox__${name}`;
const TOOL = PLUGIN_TOOL;
const LONG =
  'I rewrote the invoice exporter so that every currency is rounded once at the very end of the calculation and never on the way there. The nightly export now matches the ledger to the cent for all of last month.';

/** The stub model, calling vox's tools by the names `tool` gives them (the plugin's, or a plain server's). */
const modelWith =
  (tool: (name: string) => string) =>
  (req: MessagesRequest): Turn => {
    const TOOL = tool;
    const last = lastUser(req);
    const results = toolResults(last);
    if (results.has('toolu_stop')) return { text: 'Quiet now.' };
    if (results.has('toolu_say')) return { text: 'Said.' };
    if (results.has('toolu_bash')) return { text: 'No file then.' };
    if (!req.tools?.length) return { text: 'ok' };
    const prompt = userText(last);
    if (prompt.includes('LONG')) return { text: LONG };
    if (prompt.includes('QUIET')) return { tools: [{ id: 'toolu_stop', name: TOOL('stop'), input: {} }] };
    if (prompt.includes('SAY'))
      return { tools: [{ id: 'toolu_say', name: TOOL('speak'), input: { text: 'After the clear.' } }] };
    if (prompt.includes('BASH'))
      return {
        tools: [
          {
            id: 'toolu_bash',
            name: 'Bash',
            input: { command: 'touch made-by-claude.txt', description: 'Make a file' },
          },
        ],
      };
    return { text: 'Hello from before the clear.' };
  };
const model = modelWith(PLUGIN_TOOL);

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  outcome: string;
}

async function historyOf(d: Daemon): Promise<HistoryEntry[]> {
  return (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
}
const findIn = (d: Daemon, what: string, pred: (h: HistoryEntry) => boolean) =>
  waitFor(async () => (await historyOf(d)).find(pred), 30_000, what);

/** The model's `stop` after /clear: under the hooks' new label, covering the label before too, and it stopped the summary still playing. */
async function stopCoversBoth(d: Daemon, api: StandIn, before: HistoryEntry, summary: HistoryEntry): Promise<void> {
  const result = await waitFor(
    () => api.requests.map((r) => r.body && toolResults(lastUser(r.body)).get('toolu_stop')).find(Boolean),
    30_000,
    'the result of stop',
  );
  const stopped = JSON.parse(resultText(result.content)) as { session: string; sessions: string[]; stopped: string[] };
  assert.equal(stopped.session, summary.session, "the model's label is the hooks' new one");
  assert.deepEqual(stopped.sessions, [before.session, summary.session]);
  assert.ok(stopped.stopped.includes(summary.id), `stop stopped the summary: ${JSON.stringify(stopped)}`);
  await d.idle();
  assert.equal((await historyOf(d)).find((h) => h.id === summary.id)?.outcome, 'stopped');
}

describe('the real Claude Code, interactive in tmux', { skip: claudeSkip || needTool('tmux') }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let project: string;
  let notifications: string;
  let cc: InteractiveClaude;
  const type = (text: string) => cc.type(text);
  const pane = () => cc.pane();
  const tmux = (...args: string[]) => cc.tmux(...args);
  let debug: string;

  const history = () => historyOf(d);
  const find = (what: string, pred: (h: HistoryEntry) => boolean) => findIn(d, what, pred);

  before(async () => {
    d = await startDaemon();
    api = await startMessagesApi(model);
    home = tempDir('vox-claude-tmux-');
    project = join(home, 'proj');
    // A slow voice keeps the Stop summary playing while the next turn runs.
    mkdirSync(join(project, '.vox'), { recursive: true });
    writeFileSync(join(project, '.vox', 'config.md'), '---\nrate: 90\n---\n');
    // The Notification payloads as Claude Code sends them, beside the plugin's hook (a plain command hook).
    notifications = join(home, 'notifications.jsonl');
    writeFileSync(notifications, '');
    mkdirSync(join(project, '.claude'));
    writeFileSync(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          Notification: [
            {
              matcher: '',
              hooks: [{ type: 'command', command: `cat >> '${notifications}'; echo >> '${notifications}'` }],
            },
          ],
        },
      }),
    );
    const env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
    const allowed = [TOOL('speak'), TOOL('stop')].join(',');
    cc = await startInteractiveClaude({
      home,
      project,
      env,
      name: 'plugin',
      args: ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default', '--allowedTools', allowed],
    });
    debug = cc.debug;
  });
  after(async () => {
    await cc?.close();
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('/clear: the model follows the new session id from its first turn, and its stop stops the Stop summary spoken under it', async () => {
    type('hello');
    const before = await find('the first Stop summary', (h) => h.text === 'Hello from before the clear.');
    type('/clear');
    await waitFor(
      () => (/SessionStart:clear/.test(readFileSync(debug, 'utf8')) ? true : undefined),
      20_000,
      'SessionStart:clear',
    );
    // The first turn after the clear: SessionStart's mcp_tool group (matcher clear) gave vox mcp the new id already.
    type('SAY');
    const said = await find("the model's speak after /clear", (h) => h.text === 'After the clear.');
    const saidSummary = await find('its Stop summary', (h) => h.text === 'Said.');
    assert.notEqual(saidSummary.session, before.session, 'the hooks carry the new session id');
    assert.equal(said.session, saidSummary.session, "the model's first speech after /clear has the hooks' new label");
    type('LONG');
    const summary = await find('the Stop summary after /clear', (h) =>
      h.text.startsWith('I rewrote the invoice exporter'),
    );
    assert.equal(summary.session, said.session);
    type('QUIET');
    await stopCoversBoth(d, api, before, summary);
  });

  test('a permission dialog is announced once, though PermissionRequest and a permission_prompt Notification both carry it', async () => {
    await d.idle();
    const calls = () => (readFileSync(debug, 'utf8').match(/mcp_tool calling plugin:vox:vox\/hook/g) ?? []).length;
    const callsBefore = calls();
    type('BASH');
    const asked = await find('the permission announcement', (h) => h.text === 'proj needs your permission to use Bash');
    // Claude Code's permission_prompt arrives about 6 s later, while the dialog is open.
    const prompt = await waitFor(
      () =>
        readFileSync(notifications, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((n) => n.notification_type === 'permission_prompt'),
      30_000,
      'the permission_prompt Notification',
    );
    assert.match(String(prompt.message), /needs your permission/);
    // The plugin's hook was called for both events: PermissionRequest, then the Notification.
    await waitFor(() => (calls() >= callsBefore + 2 ? true : undefined), 10_000, 'both hook calls');
    await new Promise((r) => setTimeout(r, 1000));
    const all = (await history()).filter((h) => h.text.includes('needs your permission'));
    assert.deepEqual(
      all.map((h) => [h.id, h.outcome === 'deduped']),
      [[asked.id, false]],
      'one announcement, no second request at all',
    );
    tmux('send-keys', '-t', 'cc', 'Escape');
    await waitFor(() => (/Interrupted|Did not run/.test(pane()) ? true : undefined), 15_000, 'the dialog to close');
    assert.equal(existsSync(join(project, 'made-by-claude.txt')), false);
  });
});

describe(
  'the real Claude Code, interactive in tmux, with command hooks only',
  { skip: claudeSkip || needTool('tmux') },
  () => {
    const PLAIN_TOOL = (name: string) => `mcp__vox__${name}`;
    let d: Daemon;
    let api: StandIn;
    let home: string;
    let cc: InteractiveClaude;

    const find = (what: string, pred: (h: HistoryEntry) => boolean) => findIn(d, what, pred);

    before(async () => {
      d = await startDaemon();
      api = await startMessagesApi(modelWith(PLAIN_TOOL));
      home = tempDir('vox-claude-tmux-commands-');
      const project = join(home, 'cmds');
      mkdirSync(join(project, '.vox'), { recursive: true });
      writeFileSync(join(project, '.vox', 'config.md'), '---\nrate: 90\n---\n');
      const env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
      // What a user of an older Claude Code gets: `vox hook` commands, and vox mcp added as a plain server.
      const installed = await vox(['hooks', 'install', '--project', '--type', 'command'], { env, cwd: project });
      assert.equal(installed.code, 0, installed.stderr);
      assert.match(
        readFileSync(join(project, '.claude', 'settings.json'), 'utf8'),
        /vox\.cjs' hook Stop|vox\.cjs hook Stop/,
      );
      const servers = { mcpServers: { vox: { type: 'stdio', command: process.execPath, args: [VOX, 'mcp'] } } };
      const allowed = [PLAIN_TOOL('speak'), PLAIN_TOOL('stop')].join(',');
      cc = await startInteractiveClaude({
        home,
        project,
        env,
        name: 'commands',
        args: [
          '--strict-mcp-config',
          '--mcp-config',
          JSON.stringify(servers),
          '--permission-mode',
          'default',
          '--allowedTools',
          allowed,
        ],
      });
    });
    after(async () => {
      await cc?.close();
      await api?.close();
      await d?.stop();
      if (d) removeDir(d.home);
      if (home) removeDir(home);
    });

    test("/clear: the Stop command hook notes the new id, and the model's stop stops the summary spoken under it", async () => {
      cc.type('hello');
      const before = await find('the first Stop summary', (h) => h.text === 'Hello from before the clear.');
      cc.type('/clear');
      await waitFor(
        () => (/SessionStart:clear/.test(readFileSync(cc.debug, 'utf8')) ? true : undefined),
        20_000,
        'SessionStart:clear',
      );
      cc.type('LONG');
      const summary = await find('the Stop summary after /clear', (h) =>
        h.text.startsWith('I rewrote the invoice exporter'),
      );
      assert.notEqual(summary.session, before.session, 'the hooks carry the new session id');
      cc.type('QUIET');
      await stopCoversBoth(d, api, before, summary);
    });
  },
);
