/**
 * The idle prompt is said once per wait (dispatch/idle-waits.ts): re-fired
 * every 60 s for 5 minutes it is spoken once; after its window (600 s, what
 * vox's hooks ask) it is said again as a reminder; anything else from the
 * session, or a cut of its narration (a new prompt), ends the wait. Time is
 * an injected clock moved by the test, never waited for; what is spoken is
 * counted at the file sink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildServer } from '../../src/server.js';
import { AUTH, routeRig } from '../fixtures/route-rig.js';

const SESSION = 'api#9a1b2c';
/** The body `vox hook Notification` sends for an idle_prompt (hooks/policy.ts, hookDelivery). */
const idle = (session = SESSION) => ({
  text: 'api is waiting for your input',
  session,
  priority: 'notification',
  once: 600,
  maxAgeMs: 30_000,
  dedupKey: `${session} idle prompt`,
  idlePrompt: true,
  wait: true,
});
const speak = (payload: object) => ({ method: 'POST' as const, url: '/v1/speak', headers: AUTH, payload });

async function rig() {
  let now = 1_000_000;
  const r = routeRig({ clock: () => now });
  const { app } = await buildServer(r.options);
  return {
    ...r,
    app,
    advance: (ms: number) => (now += ms),
    fire: async (body: object = idle()) => (await app.inject(speak(body))).json().status as string,
  };
}

test('re-fired every 60 s for 5 minutes, the idle prompt is said once; a reminder after its window', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  const heard: string[] = [];
  for (let minute = 0; minute <= 5; minute++) {
    heard.push(await r.fire());
    r.advance(60_000);
  }
  assert.deepEqual(heard, ['played', 'deduped', 'deduped', 'deduped', 'deduped', 'deduped']);
  assert.equal(r.wavs().length, 1, 'one idle prompt at the sink in 5 minutes');
  // Still waiting 10 minutes after it was said: one reminder, then quiet again.
  r.advance(5 * 60_000);
  assert.deepEqual([await r.fire(), (r.advance(60_000), await r.fire())], ['played', 'deduped']);
  assert.equal(r.wavs().length, 2);
});

test('a new prompt (the narration cut) ends the wait: the next wait is said again', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  assert.equal(await r.fire(), 'played');
  r.advance(60_000);
  assert.equal(await r.fire(), 'deduped');
  const cut = await r.app.inject({ ...speak({ session: SESSION }), url: '/v1/narration/cut' });
  assert.equal(cut.statusCode, 200);
  r.advance(60_000);
  assert.equal(await r.fire(), 'played', 'a new wait');
  assert.equal(await r.fire(), 'deduped');
  assert.equal(r.wavs().length, 2);
});

test("anything else the session says ends its wait; another session's speech does not", async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  assert.equal(await r.fire(), 'played');
  assert.equal(await r.fire(idle('web#1f2e3d')), 'played', 'each session waits on its own');
  assert.equal(await r.fire(speak({ text: 'web finished.', session: 'web#1f2e3d', wait: true }).payload), 'played');
  assert.equal(await r.fire(), 'deduped', "web's speech is no prompt to api");
  assert.equal(await r.fire(idle('web#1f2e3d')), 'played', "web's wait ended with its speech");
  assert.equal(
    await r.fire({ text: 'api is done.', session: SESSION, priority: 'text', wait: true }),
    'played',
    'api worked: someone prompted it',
  );
  assert.equal(await r.fire(), 'played');
  assert.equal(r.wavs().length, 6);
});
