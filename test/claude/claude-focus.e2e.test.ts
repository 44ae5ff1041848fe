/**
 * Typing in a Claude Code session moves voxd's focus there (issue 33,
 * docs/attention.md): the real Claude Code (the pinned version, -p, offline
 * against the stand-in Messages API, the plugin from this checkout with
 * --plugin-dir), a real voxd with `attention: focus` and the file sink. web,
 * another agent's session, holds the focus through `vox hook` payloads; a
 * prompt in api's Claude Code session (its UserPromptSubmit hook, the
 * plugin's mcp_tool hook) moves the focus to api, reason prompt; api's
 * summary is then heard and web's next one is held. Then api narrates
 * (`narrate: stream`): its reply is narrated and heard, while web's
 * narration, in the background, is held for the digest.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSkip, runClaude } from '../helpers/claude-code.js';
import type { HistoryEntry } from '../helpers/hook-expectations.js';
import { ROOT, removeDir, startDaemon, tempDir, vox, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { lastUser, offlineClaudeEnv, startMessagesApi, userText, type StandIn } from '../helpers/messages-api.js';

const API_ID = '7c0de000-1111-4222-8333-444455556666';
const WEB_ID = '1f2e3d4c-0000-4000-8000-000000000002';
const API_ID_2 = '7c0de000-1111-4222-8333-444455556667';
const API = 'api#7c0de0';
const WEB = 'web#1f2e3d';

describe('a prompt typed in Claude Code moves the focus', { skip: claudeSkip }, () => {
  let d: Daemon;
  let stand: StandIn;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const history = async () => (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
  const attention = async () => (await d.api('GET', '/v1/status')).body.attention;

  /** `vox hook EVENT` for web, as another agent's hook sends it; what it added to voxd's history. */
  async function webHook(event: string, extra: object = {}): Promise<HistoryEntry[]> {
    await d.idle();
    const seen = new Set((await history()).map((h) => h.id));
    const input = JSON.stringify({ session_id: WEB_ID, cwd: join(home, 'web'), hook_event_name: event, ...extra });
    const r = await vox(['hook', event], { env: { ...d.env, VOX_NO_AUTOSTART: '1' }, input, timeoutMs: 20_000 });
    assert.equal(r.code, 0, `vox hook ${event}: ${r.stderr}`);
    await d.idle();
    return (await history()).filter((h) => !seen.has(h.id));
  }

  before(async () => {
    d = await startDaemon({ realtime: false, env: { VOXD_ATTENTION: 'focus' } });
    stand = await startMessagesApi((req) => ({
      text: userText(lastUser(req)).includes('NARRATE')
        ? 'The handlers are split in two.\n'
        : 'The router is refactored.',
    }));
    home = tempDir('vox-claude-focus-');
    for (const p of ['api', 'web']) writeConfig(join(home, p), 'notify: normal');
    env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: stand.url });
    // Claude Code's own temporary files go into HOME, removed with it.
    env.TMPDIR = join(home, 'tmp');
    mkdirSync(env.TMPDIR);
  });
  after(async () => {
    await stand?.close();
    await d?.stop();
    if (d) removeDir(d.home);
    if (home) removeDir(home);
  });

  test("web holds the focus; a prompt in api's Claude Code moves it to api, reason prompt", async () => {
    assert.deepEqual(await webHook('UserPromptSubmit', { prompt: 'run the migration' }), []);
    const before = await attention();
    assert.equal(before.mode, 'focus');
    assert.equal(before.focus, WEB);

    const run = await runClaude(
      ['--plugin-dir', join(ROOT, 'plugin'), '-p', 'refactor the router', '--session-id', API_ID],
      {
        cwd: join(home, 'api'),
        env,
      },
    );
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.ok(stand.requests.length > 0, 'the prompt reached the stand-in Messages API');
    const moved = await waitFor(
      async () => {
        const a = await attention();
        return a.focus === API ? a : undefined;
      },
      20_000,
      "voxd's focus to move to api",
    );
    assert.equal(moved.reason, 'prompt');
    // api is in focus: its summary is heard; web is in the background now: its summary is held.
    const own = await waitFor(
      async () => (await history()).find((h) => h.session === API && h.text === 'The router is refactored.'),
      20_000,
      "api's Stop summary",
    );
    await d.idle();
    assert.equal((await history()).find((h) => h.id === own.id)?.outcome, 'played');
    assert.deepEqual(
      (await webHook('Stop', { last_assistant_message: 'The migration ran.' })).map((h) => [h.outcome, h.text]),
      [['held', 'The migration ran.']],
    );
    assert.deepEqual((await attention()).held, [{ session: WEB, held: 1 }]);
  });

  test("api in focus narrates its reply, heard; web's narration in the background is held", async () => {
    writeConfig(join(home, 'api'), 'notify: normal\nnarrate: stream');
    const run = await runClaude(
      ['--plugin-dir', join(ROOT, 'plugin'), '-p', 'NARRATE the handlers', '--session-id', API_ID_2],
      { cwd: join(home, 'api'), env },
    );
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const log = join(d.home, 'logs', 'voxd.log');
    const narrated = await waitFor(
      () =>
        (existsSync(log) ? readFileSync(log, 'utf8') : '')
          .split('\n')
          .filter((l) => l.includes('"msg":"narration"'))
          .map((l) => JSON.parse(l) as { session: string; status: string; id?: string })
          .find((b) => b.session === API && b.status === 'queued' && b.id),
      20_000,
      "api's reply narrated",
    );
    const heard = await waitFor(
      async () => {
        const e = (await history()).find((h) => h.id === narrated.id);
        return e && e.outcome !== 'queued' && e.outcome !== 'playing' ? e : undefined;
      },
      20_000,
      "api's narration to end",
    );
    assert.deepEqual([heard.outcome, heard.text], ['played', 'The handlers are split in two.']);
    // web, in the background, narrates as vox mcp would send it: held whole for the digest, nothing aloud.
    const batch = await d.api('POST', '/v1/narration', {
      session: WEB,
      message: 'web-reply-1',
      index: 0,
      final: true,
      delta: 'The schema is migrated.\n',
    });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.match(batch.body.reason, /^held: the person is in api#7c0de0/);
    await d.idle();
    const web = (await history()).filter((h) => h.session === WEB && h.text === 'The schema is migrated.');
    assert.deepEqual(
      web.map((h) => h.outcome),
      ['held'],
    );
    assert.deepEqual((await attention()).held, [{ session: WEB, held: 2 }]);
  });
});
