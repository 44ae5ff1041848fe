/**
 * The idle prompt through `vox hook`, each event its own process, as Claude
 * Code re-fires it while a session waits: said once per wait, and said again
 * once the session has worked (its Stop) since. The minutes between re-fires
 * do not matter (the window is ten minutes, voxd's idle waits end it): the
 * test sends the payloads back to back. The 5-minute count with a moved
 * clock is voxd's own test (packages/voxd/test/dispatch/idle-waits.test.ts).
 * Real voxd, file sink, the real `vox` binary.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { HistoryEntry } from '../helpers/hook-expectations.js';
import { removeDir, startDaemon, tempDir, vox, writeConfig, type Daemon } from '../helpers/daemon.js';

describe('vox hook: the idle prompt once per wait', () => {
  let d: Daemon;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-hook-idle-');
    writeConfig(join(root, 'api'), 'notify: normal');
    env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  const session = '9a1b2c3d-0000-4000-8000-000000000001';
  const payload = (event: string, extra: object) =>
    JSON.stringify({ session_id: session, cwd: join(root, 'api'), hook_event_name: event, ...extra });
  const idle = () =>
    payload('Notification', { message: 'Claude is waiting for your input', notification_type: 'idle_prompt' });

  /** Runs `vox hook EVENT`; the texts heard (not deduped) among the entries it added, once voxd is idle. */
  async function hook(event: string, input: string): Promise<string[]> {
    await d.idle();
    const seen = new Set(((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).map((h) => h.id));
    const r = await vox(['hook', event], { env, input, timeoutMs: 20_000 });
    assert.equal(r.code, 0, `vox hook ${event} exits 0: ${r.stderr}`);
    await d.idle();
    const added = ((await d.api('GET', '/v1/status')).body.history as HistoryEntry[]).filter((h) => !seen.has(h.id));
    assert.ok(added.length > 0, `vox hook ${event} reached voxd`);
    return added.filter((h) => h.outcome !== 'deduped').map((h) => h.text);
  }

  test('re-fired while the session waits: said once; after the session worked, the next wait is said', async () => {
    const wavs = d.wavs().length;
    assert.deepEqual(await hook('Notification', idle()), ['api is waiting for your input']);
    for (let i = 0; i < 4; i++) assert.deepEqual(await hook('Notification', idle()), [], `re-fire ${i + 1} is quiet`);
    assert.deepEqual(await hook('Stop', payload('Stop', { last_assistant_message: 'The migration ran.' })), [
      'The migration ran.',
    ]);
    assert.deepEqual(await hook('Notification', idle()), ['api is waiting for your input'], 'a new wait');
    assert.deepEqual(await hook('Notification', idle()), []);
    assert.equal(d.wavs().length, wavs + 3, 'the file sink played two idle prompts and the summary');
  });
});
