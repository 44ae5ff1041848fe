/**
 * Attention (dispatch/attention.ts) through voxd's routes: with `attention:
 * focus`, the session in focus speaks, a background one speaks only what
 * needs the person (important, needsPerson), and the rest is held and said
 * as one digest: never sooner than 30 s after its first item, at most one a
 * period, at a quiet moment; its items are heard (not recapped again). The
 * clock is injected and the digest's timer is fired by the test, never
 * waited for; what is spoken is counted at the file sink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '@vox/protocol';
import { DIGEST_FIRST_MS } from '../../src/dispatch/attention.js';
import { buildServer } from '../../src/server.js';
import { AUTH, routeRig } from '../fixtures/route-rig.js';

const API = 'api#9a1b2c';
const WEB = 'web#1f2e3d';
const DOCS = 'docs#4d5e6f';
const DIGEST_MS = 180_000;

async function rig(mode: 'all' | 'focus' = 'focus') {
  let now = 1_000_000;
  const timers: Array<{ fn: () => void; ms: number; cleared: boolean }> = [];
  const r = routeRig({
    clock: () => now,
    attention: {
      mode,
      digestMs: DIGEST_MS,
      timers: {
        set: (fn, ms) => {
          const t = { fn, ms, cleared: false };
          timers.push(t);
          return t;
        },
        clear: (h) => ((h as { cleared: boolean }).cleared = true),
      },
    },
  });
  const { app, dispatcher } = await buildServer(r.options);
  const post = async (url: string, payload: object) =>
    (await app.inject({ method: 'POST', url, headers: AUTH, payload })).json();
  return {
    ...r,
    app,
    dispatcher,
    advance: (ms: number) => (now += ms),
    /** The digest's timer now set (the last one not cleared). */
    timer: () => timers.filter((t) => !t.cleared).at(-1),
    say: async (body: object) => (await post('/v1/speak', { wait: true, ...body })).status as string,
    post,
    status: async () => (await app.inject({ method: 'GET', url: '/v1/status', headers: AUTH })).json(),
  };
}

test('focus: the focused session speaks; a background one only when it needs the person; the rest is held', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  assert.equal(await r.say({ text: 'Web says this before any focus is known.', session: WEB }), 'played');
  assert.equal((await r.post('/v1/focus', { session: API })).focus, API);
  assert.equal(await r.say({ text: 'Api finished the refactor.', session: API, priority: 'text' }), 'played');
  assert.equal(await r.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'held');
  assert.equal(
    await r.say({ text: 'web needs your permission to use Bash', session: WEB, priority: 'important' }),
    'played',
  );
  assert.equal(await r.say({ text: 'web: the request failed.', session: WEB, needsPerson: true }), 'played');
  assert.equal(
    await r.say({ text: 'docs is waiting for your input', session: DOCS, priority: 'notification' }),
    'held',
  );
  assert.equal((await r.post('/v1/chime', { signal: 'done', session: WEB, priority: 'notification' })).status, 'held');
  assert.equal(await r.say({ text: 'No session is never background.' }), 'played');
  assert.equal(r.wavs().length, 5, 'five utterances reached the sink, none of the held ones');
  const s = await r.status();
  assert.equal(s.attention.mode, 'focus');
  assert.equal(s.attention.focus, API);
  assert.deepEqual(s.attention.held, [
    { session: WEB, held: 1 },
    { session: DOCS, held: 1 },
  ]);
  assert.equal(s.counters.held, 3);
});

test('the digest: not before 30 s after its first item, then at most one a period, its items heard', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  await r.post('/v1/focus', { session: 'api' });
  assert.equal(
    await r.say({ text: 'Api is still speaking in full.', session: API }),
    'played',
    'a project name covers its sessions',
  );
  assert.equal(await r.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'held');
  assert.equal(r.timer()?.ms, DIGEST_FIRST_MS, 'due 30 s after the first item');
  r.advance(10_000);
  assert.equal(
    await r.say({ text: 'docs is waiting for your input', session: DOCS, priority: 'notification' }),
    'held',
  );
  assert.equal(r.timer()?.ms, DIGEST_FIRST_MS, 'a later item does not move it');
  const before = r.wavs().length;
  r.advance(DIGEST_FIRST_MS);
  r.timer()!.fn();
  await waitForWavs(r, before + 1);
  await r.dispatcher.idle();
  const digest = (await r.status()).history.find((h: HistoryEntry) => h.text.startsWith('While you were in'));
  assert.equal(
    digest?.text,
    'While you were in api: web: Web finished the migration. docs: docs is waiting for your input.',
  );
  assert.equal(digest?.outcome, 'played');
  assert.deepEqual((await r.status()).attention.held, [], 'nothing held any more');
  const recap = await r.post('/v1/recap', { wait: true });
  assert.equal(recap.items, 0, 'a digest is heard: the recap does not say it again');
  // The next one waits a period after the digest, however soon its first item.
  r.advance(60_000);
  assert.equal(await r.say({ text: 'Web ran the tests.', session: WEB }), 'held');
  assert.equal(r.timer()?.ms, DIGEST_MS - 60_000);
});

test('the digest waits for a quiet moment', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  await r.post('/v1/focus', { session: API });
  assert.equal(await r.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'held');
  r.advance(DIGEST_FIRST_MS);
  const long = await r.post('/v1/speak', { text: 'Api talks for a while. '.repeat(20), session: API });
  await waitFor(async () => (await r.status()).playing?.id === long.id);
  const events: string[] = [];
  r.dispatcher.on('event', (e) => events.push(`${e.type} ${e.id === long.id ? 'long' : 'other'}`));
  r.timer()!.fn();
  // The digest's own settled entry, not a count of WAVs: the long one's WAV may appear after the count was taken.
  await waitFor(async () =>
    (await r.status()).history.some(
      (h: HistoryEntry) => h.text.startsWith('While you were in api') && h.outcome === 'played',
    ),
  );
  await r.dispatcher.idle();
  const texts = (await r.status()).history.map((h: HistoryEntry) => h.text);
  assert.ok(texts[0]!.startsWith('While you were in api'), `the digest was spoken last: ${texts.join(' | ')}`);
  // Spoken at once, it would have been queued while api played.
  assert.deepEqual(
    events.slice(0, 2),
    ['finished long', 'queued other'],
    `the digest came after api finished: ${events.join(', ')}`,
  );
});

test('a recap says what is held, once, and takes the place of the digest; attention: all holds nothing', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  await r.post('/v1/focus', { session: API });
  assert.equal(await r.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'held');
  const recap = await r.post('/v1/recap', { wait: true });
  assert.equal(recap.text, 'You missed one thing. From web: Web finished the migration.');
  assert.equal((await r.post('/v1/recap', { wait: true })).items, 0);
  assert.equal((await r.status()).attention.digestDueAt, undefined);
  const all = await rig('all');
  t.after(() => all.app.close());
  await all.post('/v1/focus', { session: API });
  assert.equal(await all.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'played');
  assert.equal((await all.status()).attention.focus, API, 'the focus is known in all mode too');
});

test('a new prompt (the narration cut) moves the focus', async (t) => {
  const r = await rig();
  t.after(() => r.app.close());
  await r.post('/v1/focus', { session: API });
  assert.equal(await r.say({ text: 'Web finished the migration.', session: WEB, priority: 'text' }), 'held');
  await r.post('/v1/narration/cut', { session: WEB });
  const s = await r.status();
  assert.equal(s.attention.focus, WEB);
  assert.equal(s.attention.reason, 'prompt');
  assert.equal(await r.say({ text: 'Web ran the tests.', session: WEB, priority: 'text' }), 'played');
  assert.equal(await r.say({ text: 'Api finished the refactor.', session: API, priority: 'text' }), 'held');
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setImmediate(r));
}

async function waitForWavs(r: { wavs(): string[] }, n: number): Promise<void> {
  await waitFor(async () => r.wavs().length >= n);
}
