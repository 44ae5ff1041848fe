/**
 * GET /v1/status through fastify's inject (docs/protocol.md, "GET /v1/status"):
 * the guard, the query's schema (strings of digits), and the answer's fields:
 * the engine, the sink, the paged queue, what plays, counters and history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, nextEvent, routeRig } from '../fixtures/route-rig.js';

const status = (query = '') => ({ method: 'GET' as const, url: `/v1/status${query}`, headers: AUTH });
const LONG = 'A long announcement that keeps the speaker busy until the test stops it. '.repeat(5).trim();

test('the token is required and a browser page is refused', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  await assertGuarded(app, status());
});

test('the query is checked: whole numbers only, no unknown parameter', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const cases: Array<[string, ReturnType<typeof wireError>]> = [
    ['?limit=ten', wireError('VOX_ERR_BODY_INVALID', 'field "limit" must match pattern "^[0-9]{1,3}$"')],
    ['?offset=-1', wireError('VOX_ERR_BODY_INVALID', 'field "offset" must match pattern "^[0-9]{1,7}$"')],
    ['?page=2', wireError('VOX_ERR_BODY_INVALID', 'unknown field "page"')],
  ];
  for (const [query, error] of cases) {
    const r = await app.inject(status(query));
    assert.equal(r.statusCode, error.statusCode, query);
    assert.deepEqual(r.json(), error);
  }
});

test('an idle voxd: its version, process, engine and sink, an empty queue and nobody listening', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer({ ...rig.options, version: '9.8.7-test' });
  t.after(() => app.close());
  const r = await app.inject(status());
  assert.equal(r.statusCode, 200);
  const body = r.json();
  assert.equal(body.version, '9.8.7-test');
  assert.equal(body.pid, process.pid);
  assert.ok(Number.isInteger(body.uptimeMs) && body.uptimeMs >= 0);
  assert.deepEqual(body.engine, { name: 'espeak', ready: true });
  assert.deepEqual(body.sink, { name: rig.sink.name, ok: true, detail: rig.sink.dir });
  assert.deepEqual(body.queue, {
    length: 0,
    byPriority: { important: 0, message: 0, text: 0, progress: 0, notification: 0 },
    offset: 0,
    limit: 20,
    items: [],
  });
  assert.equal(body.playing, null);
  assert.deepEqual(body.counters, {
    accepted: 0,
    played: 0,
    deduped: 0,
    failed: 0,
    expired: 0,
    interrupted: 0,
    dropped: 0,
    held: 0,
  });
  assert.deepEqual(body.history, []);
  assert.deepEqual(body.attention, { mode: 'all', focus: null, held: [] }, 'nobody in focus yet, nothing held');
  assert.equal(body.listening, null);
  assert.deepEqual(body.narrating, { length: 0, items: [] });
  assert.deepEqual(body.sessionVoices, []);
  assert.equal('transcriber' in body, false, 'no voice input settings, no transcriber field');
});

test('what plays, the queue paged by offset and limit, then the history of what was stopped', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const say = async (text: string, extra: object = {}) =>
    (await app.inject({ method: 'POST', url: '/v1/speak', headers: AUTH, payload: { text, ...extra } })).json().id;
  const started = nextEvent(dispatcher, 'started');
  const playing = await say(LONG, { session: 'shop#3c07f0' });
  await started;
  // Two messages, then a text (a message that comes later would drop it: docs/priorities.md).
  const queued = [await say('Second.'), await say('Third.'), await say('Fourth.', { priority: 'text' })];
  const r = await app.inject(status('?offset=1&limit=1'));
  const body = r.json();
  assert.equal(body.playing.id, playing);
  assert.equal(body.playing.session, 'shop#3c07f0');
  assert.equal(body.playing.text, LONG);
  assert.equal(body.playing.priority, 'message');
  assert.ok(!Number.isNaN(Date.parse(body.playing.startedAt)), body.playing.startedAt);
  assert.equal(body.queue.length, 3);
  assert.deepEqual(body.queue.byPriority, { important: 0, message: 2, text: 1, progress: 0, notification: 0 });
  assert.deepEqual(body.queue.items, [{ id: queued[1], priority: 'message', text: 'Third.' }]);
  assert.equal(body.queue.offset, 1);
  assert.equal(body.queue.limit, 1);
  const capped = (await app.inject(status('?limit=999'))).json().queue;
  assert.equal(capped.limit, 200, 'a larger limit is taken as 200');
  assert.deepEqual(
    capped.items.map((i: { id: string }) => i.id),
    queued,
  );
  await app.inject({ method: 'POST', url: '/v1/stop', headers: AUTH, payload: {} });
  const after = (await app.inject(status())).json();
  assert.equal(after.playing, null);
  assert.equal(after.queue.length, 0);
  assert.equal(after.counters.accepted, 4);
  assert.deepEqual(
    after.history.map((h: { id: string; outcome: string }) => [h.id, h.outcome]).sort(),
    [playing, ...queued].map((id) => [id, 'stopped']).sort(),
  );
  const first = after.history.find((h: { id: string }) => h.id === playing);
  assert.equal(first.kind, 'speech');
  assert.equal(first.session, 'shop#3c07f0');
  assert.equal(first.text, LONG);
});
