/**
 * Attention (issue 33) through `vox hook`, each event its own process, three
 * sessions in three projects, a real voxd with `attention: focus` and the
 * file sink: the session in focus is heard; a background one that finishes
 * is not heard, even with nothing else speaking, until the digest (here
 * `vox recap`, which says it at once); a background permission ask is heard
 * at once; a prompt typed in another session (UserPromptSubmit) moves the
 * focus; `vox focus` names it; the recap says the held items once. The
 * digest's own timing is voxd's test (packages/voxd/test/dispatch/attention.test.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { HistoryEntry } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, writeConfig, type Daemon } from '../helpers/daemon.js';

const IDS = {
  api: '9a1b2c3d-0000-4000-8000-000000000001',
  web: '1f2e3d4c-0000-4000-8000-000000000002',
  docs: '4d5e6f70-0000-4000-8000-000000000003',
} as const;
type Project = keyof typeof IDS;
const label = (p: Project) => `${p}#${IDS[p].slice(0, 6)}`;

describe('attention: focus, through vox hook', () => {
  let d: Daemon;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startDaemon({ realtime: false, env: { VOXD_ATTENTION: 'focus' } });
    root = tempDir('vox-attention-');
    for (const p of Object.keys(IDS)) writeConfig(join(root, p), 'notify: normal');
    env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  const payload = (p: Project, event: string, extra: object = {}) =>
    JSON.stringify({ session_id: IDS[p], cwd: join(root, p), hook_event_name: event, ...extra });

  /** Runs `vox hook EVENT` for project `p`; the entries it added to voxd's history, once voxd is idle. */
  async function hook(p: Project, event: string, extra: object = {}): Promise<HistoryEntry[]> {
    await d.idle();
    const seen = new Set(((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).map((h) => h.id));
    const r = await vox(['hook', event], { env, input: payload(p, event, extra), timeoutMs: 20_000 });
    assert.equal(r.code, 0, `vox hook ${event} exits 0: ${r.stderr}`);
    await d.idle();
    return ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).filter((h) => !seen.has(h.id));
  }
  const stop = (p: Project, text: string) => hook(p, 'Stop', { last_assistant_message: text });
  const focus = async () => (await d.api('GET', '/v1/focus')).body;

  test('the focus speaks, a background finish is held, a background ask is heard at once, a prompt moves the focus', async () => {
    assert.equal((await focus()).focus, null, 'no focus before any prompt');
    assert.deepEqual(await hook('api', 'UserPromptSubmit', { prompt: 'refactor the router' }), []);
    assert.equal((await focus()).focus, label('api'));
    assert.equal((await focus()).reason, 'prompt');

    const wavs = d.wavs().length;
    const own = await stop('api', 'The router is refactored.');
    assert.deepEqual(
      own.map((h) => [h.outcome, h.text]),
      [['played', 'The router is refactored.']],
    );
    // Nothing else speaks, and still web's summary is not heard.
    const web = await stop('web', 'The migration ran.');
    assert.deepEqual(
      web.map((h) => [h.outcome, h.text]),
      [['held', 'The migration ran.']],
    );
    const ask = await hook('docs', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make' } });
    assert.deepEqual(
      ask.map((h) => [h.outcome, h.text]),
      [['played', 'docs needs your permission to use Bash']],
    );
    const failure = await hook('web', 'StopFailure', { error: 'rate_limit' });
    assert.equal(failure[0]?.outcome, 'played', 'a failure needs the person');
    assert.equal(d.wavs().length, wavs + 3, 'the sink played the summary in focus, the ask and the failure');

    const status = (await d.api('GET', '/v1/status')).body;
    assert.equal(status.attention.mode, 'focus');
    assert.deepEqual(status.attention.held, [{ session: label('web'), held: 1 }]);
    assert.ok(status.attention.digestDueAt, 'a digest is due');
    const shown = await vox(['status'], { env });
    assert.match(shown.stdout, new RegExp(`focus: +${label('api')} \\(prompt; attention focus`));
    assert.match(shown.stdout, new RegExp(`held +1 ${label('web')}`));

    // Typing in web moves the focus there: its summary is heard, api's is held.
    assert.deepEqual(await hook('web', 'UserPromptSubmit', { prompt: 'now the docs' }), []);
    assert.equal((await focus()).focus, label('web'));
    assert.equal((await stop('web', 'The docs build.'))[0]?.outcome, 'played');
    assert.equal((await stop('api', 'The router has tests.'))[0]?.outcome, 'held');
  });

  test('vox recap says the held items once, grouped; vox focus names and shows the focus', async () => {
    const recap = JSON.parse((await vox(['recap', '--wait', '--json'], { env, timeoutMs: 30_000 })).stdout);
    assert.equal(recap.status, 'played');
    assert.equal(recap.text, 'You missed 2 things. From web: The migration ran. From api: The router has tests.');
    const again = JSON.parse((await vox(['recap', '--wait', '--json'], { env, timeoutMs: 30_000 })).stdout);
    assert.equal(again.items, 0, 'said once');
    assert.deepEqual((await d.api('GET', '/v1/status')).body.attention.held, [], 'nothing held after the recap');

    const named = await vox(['focus', 'docs'], { env });
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /^focus: +docs \(named; attention focus\)/);
    assert.equal(
      (await stop('docs', 'The docs are published.'))[0]?.outcome,
      'played',
      'a project name covers its session',
    );
    assert.equal((await stop('api', 'The router is merged.'))[0]?.outcome, 'held');
    const shown = JSON.parse((await vox(['focus', '--json'], { env })).stdout);
    assert.equal(shown.focus, 'docs');
    assert.deepEqual(shown.held, [{ session: label('api'), held: 1 }]);
  });
});
