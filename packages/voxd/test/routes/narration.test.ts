/**
 * POST /v1/narration and POST /v1/narration/cut through fastify's inject
 * (docs/protocol.md, "POST /v1/narration"): the guard, the schema's refusals,
 * and the answers: a batch queued with the sentences it completed, a re-sent
 * index repeated, a cut naming the message's utterance, and a batch after the
 * cut dropped. With the sine engine and a real-time file sink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, nextEvent, routeRig } from '../fixtures/route-rig.js';

const post = (url: string, payload: object) => ({ method: 'POST' as const, url, headers: AUTH, payload });
const batch = (index: number, delta: string, final = false) =>
  post('/v1/narration', { session: 'api#9a1b2c', message: 'msg_01ABC', index, final, delta });

test('the token is required and a browser page is refused, on both routes; nothing is narrated', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, batch(0, 'Never spoken.\n', true));
  await assertGuarded(app, post('/v1/narration/cut', { session: 'api#9a1b2c' }));
  assert.equal(dispatcher.counters.accepted, 0);
  assert.deepEqual(rig.engine.requests, []);
});

test('the schema refuses a bad body with the documented code, naming the field', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const ok = { session: 'api#9a1b2c', message: 'msg_01ABC', index: 0, final: false, delta: 'Hi.\n' };
  const cases: Array<[string, object, ReturnType<typeof wireError>]> = [
    ['/v1/narration', { ...ok, delta: undefined }, wireError('VOX_ERR_BODY_INVALID', 'missing field "delta"')],
    ['/v1/narration', { ...ok, index: -1 }, wireError('VOX_ERR_BODY_INVALID', 'field "index" must be >= 0')],
    [
      '/v1/narration',
      { ...ok, message: 'no spaces allowed' },
      wireError('VOX_ERR_BODY_INVALID', 'field "message" must match pattern "^[A-Za-z0-9_.:-]+$"'),
    ],
    ['/v1/narration', { ...ok, wait: true }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "wait"')],
    ['/v1/narration/cut', {}, wireError('VOX_ERR_BODY_INVALID', 'missing field "session"')],
  ];
  for (const [url, body, error] of cases) {
    const r = await app.inject(post(url, body));
    assert.equal(r.statusCode, error.statusCode, `${url} ${JSON.stringify(body)}`);
    assert.deepEqual(r.json(), error);
  }
  assert.equal(dispatcher.counters.accepted, 0);
});

test('a batch is queued with its sentences; a re-send is repeated; a cut names the utterance, and drops what follows', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const started = nextEvent(dispatcher, 'started');
  const first = await app.inject(batch(0, 'The first sentence is done. So is the second one.\nThe third is still'));
  assert.equal(first.statusCode, 202);
  const { id } = first.json();
  assert.deepEqual(first.json(), { id, status: 'queued', sentences: 2 });
  assert.equal((await started).id, id);
  const again = await app.inject(batch(0, 'The first sentence is done. So is the second one.\nThe third is still'));
  assert.equal(again.statusCode, 200);
  assert.deepEqual(again.json(), { id, status: 'repeated', sentences: 0 });
  const cut = await app.inject(post('/v1/narration/cut', { session: 'api#9a1b2c' }));
  assert.equal(cut.statusCode, 200);
  assert.deepEqual(cut.json(), { cut: [id] });
  const late = await app.inject(batch(1, ' being written.\n', true));
  assert.equal(late.statusCode, 200);
  const body = late.json();
  assert.equal(body.status, 'dropped');
  assert.equal(body.sentences, 0);
  assert.equal(typeof body.reason, 'string');
  const none = await app.inject(post('/v1/narration/cut', { session: 'api#9a1b2c' }));
  assert.deepEqual(none.json(), { cut: [] }, 'nothing left to cut');
});

test("a cut naming the session's earlier labels (a /clear) cuts their narration too, and no other session's", async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const start = (session: string, message: string) =>
    app.inject(post('/v1/narration', { session, message, index: 0, final: false, delta: 'One sentence here.\n' }));
  const old = (await start('api#9a1b2c', 'msg_old')).json().id;
  const other = (await start('web#777777', 'msg_other')).json().id;
  const fresh = (await start('api#c1ea12', 'msg_new')).json().id;
  const cut = await app.inject(post('/v1/narration/cut', { session: 'api#c1ea12', earlier: ['api#9a1b2c'] }));
  assert.equal(cut.statusCode, 200);
  assert.deepEqual(new Set(cut.json().cut), new Set([fresh, old]));
  assert.ok(!cut.json().cut.includes(other), 'another session goes on');
  const tooMany = await app.inject(
    post('/v1/narration/cut', { session: 'api#c1ea12', earlier: Array.from({ length: 33 }, (_, i) => `api#${i}`) }),
  );
  assert.equal(tooMany.statusCode, 400);
});

test('a warm-up resolves the engine and answers it ready, speaking nothing; it is guarded and its body checked', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, post('/v1/narration/warm', { session: 'api#9a1b2c' }));
  const r = await app.inject(post('/v1/narration/warm', { session: 'api#9a1b2c' }));
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().ready, true);
  assert.equal(typeof r.json().engine, 'string');
  const bad = await app.inject(post('/v1/narration/warm', { session: 'api#9a1b2c', delta: 'x' }));
  assert.deepEqual(bad.json(), wireError('VOX_ERR_BODY_INVALID', 'unknown field "delta"'));
  assert.equal(dispatcher.counters.accepted, 0);
  assert.deepEqual(rig.engine.requests, []);
});

test("the vox mod's batches are spoken only for a session its vox mcp declared narrating, as declared", async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, post('/v1/narration/session', { session: 'api#9a1b2c', narrates: true }));
  const mod = (message: string, delta: string) =>
    app.inject(post('/v1/narration', { session: 'api#9a1b2c', message, index: 0, final: true, delta, source: 'mod' }));
  const undeclared = await mod('mod.t0.0.0', 'Not declared yet.\n');
  assert.equal(undeclared.statusCode, 200);
  assert.equal(undeclared.json().status, 'dropped');
  assert.equal(undeclared.json().untilCut, true);
  assert.match(undeclared.json().reason, /no vox mcp has declared how this session narrates/);
  // vox mcp's own batch still narrates the turn: the dropped mod batch claimed nothing.
  const mcp = await app.inject(
    post('/v1/narration', { session: 'api#9a1b2c', message: 'msg_0', index: 0, final: true, delta: 'From mcp.\n' }),
  );
  assert.equal(mcp.json().status, 'queued');
  await app.inject(post('/v1/narration/cut', { session: 'api#9a1b2c' }));

  const off = await app.inject(
    post('/v1/narration/session', { session: 'api#9a1b2c', narrates: false, reason: 'narrate: summary' }),
  );
  assert.deepEqual(off.json(), { narrates: false });
  const quiet = await mod('mod.t1.0.0', 'Still not.\n');
  assert.equal(quiet.json().status, 'dropped');
  assert.match(quiet.json().reason, /does not narrate \(narrate: summary\)/);

  const declared = await app.inject(
    post('/v1/narration/session', {
      session: 'api#9a1b2c',
      narrates: true,
      voice: 'high',
      rate: 200,
      announce: 'api',
      pronunciations: [{ word: 'kubectl', say: 'cube control' }],
    }),
  );
  assert.equal(declared.statusCode, 200);
  const started = nextEvent(dispatcher, 'started');
  const taken = await mod('mod.t2.0.0', 'I ran kubectl.\n');
  assert.equal(taken.statusCode, 202, taken.body);
  assert.equal((await started).id, taken.json().id, 'the mod batch is spoken');
  const r = rig.engine.requests.find((q) => q.text.includes('cube'));
  assert.ok(r, `the declared pronunciation applied: ${JSON.stringify(rig.engine.requests.map((q) => q.text))}`);
  assert.deepEqual({ voice: r.voice, rate: r.rate }, { voice: 'high', rate: 200 });
  assert.match(r.text, /^api\W+I ran cube control\.?$/, 'the announce label starts the message');

  const bad = await app.inject(
    post('/v1/narration/session', { session: 'api#9a1b2c', narrates: true, pronunciations: [{ word: 'x', say: '' }] }),
  );
  assert.equal(bad.statusCode, 400);
  assert.equal(
    (await app.inject(post('/v1/narration/session', { session: 'api#9a1b2c' }))).json().code,
    'VOX_ERR_BODY_INVALID',
  );
});
