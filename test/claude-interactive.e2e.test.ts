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
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE, claudeSkip } from './helpers/claude-code.js';
import { ROOT, removeDir, startDaemon, tempDir, waitFor, type Daemon } from './helpers/daemon.js';
import { lastUser, offlineClaudeEnv, resultText, startMessagesApi, toolResults, userText, type MessagesRequest, type StandIn, type Turn } from './helpers/messages-api.js';
import { needTool } from './helpers/tools.js';

const TOOL = (name: string) => `mcp__plugin_vox_vox__${name}`;
const LONG =
  'I rewrote the invoice exporter so that every currency is rounded once at the very end of the calculation and never on the way there. The nightly export now matches the ledger to the cent for all of last month.';

function model(req: MessagesRequest): Turn {
  const last = lastUser(req);
  const results = toolResults(last);
  if (results.has('toolu_stop')) return { text: 'Quiet now.' };
  if (results.has('toolu_say')) return { text: 'Said.' };
  if (results.has('toolu_bash')) return { text: 'No file then.' };
  if (!req.tools?.length) return { text: 'ok' };
  const prompt = userText(last);
  if (prompt.includes('LONG')) return { text: LONG };
  if (prompt.includes('QUIET')) return { tools: [{ id: 'toolu_stop', name: TOOL('stop'), input: {} }] };
  if (prompt.includes('SAY')) return { tools: [{ id: 'toolu_say', name: TOOL('speak'), input: { text: 'After the clear.' } }] };
  if (prompt.includes('BASH')) return { tools: [{ id: 'toolu_bash', name: 'Bash', input: { command: 'touch made-by-claude.txt', description: 'Make a file' } }] };
  return { text: 'Hello from before the clear.' };
}

interface HistoryEntry {
  id: string;
  text: string;
  session?: string;
  outcome: string;
}

describe('the real Claude Code, interactive in tmux', { skip: claudeSkip || needTool('tmux') }, () => {
  let d: Daemon;
  let api: StandIn;
  let home: string;
  let project: string;
  let debug: string;
  let notifications: string;
  const socket = `vox-test-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  const pane = () => tmux('capture-pane', '-p', '-t', 'cc').stdout ?? '';
  const type = (text: string) => {
    tmux('send-keys', '-t', 'cc', '-l', text);
    tmux('send-keys', '-t', 'cc', 'Enter');
  };

  async function history(): Promise<HistoryEntry[]> {
    return (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
  }
  const find = (what: string, pred: (h: HistoryEntry) => boolean) => waitFor(async () => (await history()).find(pred), 30_000, what);

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
      JSON.stringify({ hooks: { Notification: [{ matcher: '', hooks: [{ type: 'command', command: `cat >> '${notifications}'; echo >> '${notifications}'` }] }] } }),
    );
    const env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
    // First-run screens answered beforehand: onboarding, the custom API key, trusting the folder.
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: { approved: [env.ANTHROPIC_API_KEY!.slice(-20)], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
    debug = join(home, 'claude-debug.log');
    const allowed = [TOOL('speak'), TOOL('stop')].join(',');
    // Claude Code's own temporary files (claude-UID, cc-socks) go into HOME, removed with it.
    const tmp = join(home, 'tmp');
    mkdirSync(tmp);
    const envArgs = Object.entries({ ...env, TMPDIR: tmp }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const args = ['--plugin-dir', join(ROOT, 'plugin'), '--permission-mode', 'default', '--allowedTools', allowed, '--debug-file', debug];
    const started = tmux('new-session', '-d', '-s', 'cc', '-x', '160', '-y', '50', '-c', project, ...envArgs, CLAUDE!, ...args);
    assert.equal(started.status, 0, started.stderr);
    await waitFor(() => (/manual mode on|for shortcuts/.test(pane()) ? true : undefined), 30_000, 'the prompt');
  });
  after(async () => {
    if (existsSync(debug ?? '')) {
      // /exit lets Claude Code end its MCP servers; the kill is the bound.
      type('/exit');
      await waitFor(() => (tmux('has-session', '-t', 'cc').status !== 0 ? true : undefined), 10_000, 'claude to exit').catch(() => {});
    }
    tmux('kill-server');
    await api?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test('/clear: the model follows the new session id from its first turn, and its stop stops the Stop summary spoken under it', async () => {
    type('hello');
    const before = await find('the first Stop summary', (h) => h.text === 'Hello from before the clear.');
    type('/clear');
    await waitFor(() => (/SessionStart:clear/.test(readFileSync(debug, 'utf8')) ? true : undefined), 20_000, 'SessionStart:clear');
    // The first turn after the clear: SessionStart's mcp_tool group (matcher clear) gave vox mcp the new id already.
    type('SAY');
    const said = await find("the model's speak after /clear", (h) => h.text === 'After the clear.');
    const saidSummary = await find('its Stop summary', (h) => h.text === 'Said.');
    assert.notEqual(saidSummary.session, before.session, 'the hooks carry the new session id');
    assert.equal(said.session, saidSummary.session, "the model's first speech after /clear has the hooks' new label");
    type('LONG');
    const summary = await find('the Stop summary after /clear', (h) => h.text.startsWith('I rewrote the invoice exporter'));
    assert.equal(summary.session, said.session);
    type('QUIET');
    const result = await waitFor(() => api.requests.map((r) => r.body && toolResults(lastUser(r.body)).get('toolu_stop')).find(Boolean), 30_000, 'the result of stop');
    const stopped = JSON.parse(resultText(result.content)) as { session: string; sessions: string[]; stopped: string[] };
    assert.equal(stopped.session, summary.session, "the model's label is the hooks' new one");
    assert.deepEqual(stopped.sessions, [before.session, summary.session]);
    assert.ok(stopped.stopped.includes(summary.id), `stop stopped the summary: ${JSON.stringify(stopped)}`);
    await d.idle();
    assert.equal((await history()).find((h) => h.id === summary.id)?.outcome, 'stopped');
  });

  test('a permission dialog is announced once, though PermissionRequest and a permission_prompt Notification both carry it', async () => {
    await d.idle();
    const calls = () => (readFileSync(debug, 'utf8').match(/mcp_tool calling plugin:vox:vox\/hook/g) ?? []).length;
    const callsBefore = calls();
    type('BASH');
    const asked = await find('the permission announcement', (h) => h.text === 'proj needs your permission to use Bash');
    // Claude Code's permission_prompt arrives about 6 s later, while the dialog is open.
    const prompt = await waitFor(
      () => readFileSync(notifications, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((n) => n.notification_type === 'permission_prompt'),
      30_000,
      'the permission_prompt Notification',
    );
    assert.match(String(prompt.message), /needs your permission/);
    // The plugin's hook was called for both events: PermissionRequest, then the Notification.
    await waitFor(() => (calls() >= callsBefore + 2 ? true : undefined), 10_000, 'both hook calls');
    await new Promise((r) => setTimeout(r, 1000));
    const all = (await history()).filter((h) => h.text.includes('needs your permission'));
    assert.deepEqual(all.map((h) => [h.id, h.outcome === 'deduped']), [[asked.id, false]], 'one announcement, no second request at all');
    tmux('send-keys', '-t', 'cc', 'Escape');
    await waitFor(() => (/Interrupted|Did not run/.test(pane()) ? true : undefined), 15_000, 'the dialog to close');
    assert.equal(existsSync(join(project, 'made-by-claude.txt')), false);
  });
});
