/**
 * POST /v1/stop through fastify's inject (docs/protocol.md, "POST /v1/stop"):
 * the guard, the schema's refusals (and a scope without its target), an
 * empty body meaning every scope, and the ids stopped, each ending `stopped`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, nextEvent, routeRig } from '../fixtures/route-rig.js';

const stop = (payload?: object) => ({
  method: 'POST' as const,
  url: '/v1/stop',
  headers: AUTH,
  ...(payload ? { payload } : {}),
});
/** A text the sine engine makes 4 s of audio of: it plays until stopped. */
const LONG = 'A long announcement that keeps the speaker busy until the test stops it. '.repeat(5).trim();

test('the token is required and a browser page is refused; nothing is stopped', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const started = nextEvent(dispatcher, 'started');
  const queued = await app.inject({ method: 'POST', url: '/v1/speak', headers: AUTH, payload: { text: LONG } });
  const id = queued.json().id;
  assert.equal((await started).id, id);
  await assertGuarded(app, stop({ scope: 'all' }));
  assert.equal(dispatcher.playing?.id, id, 'still playing');
  const r = await app.inject(stop());
  assert.deepEqual(r.json(), { stopped: [id] });
});

test('the schema refuses a bad body, and a scope without its target, with the documented code', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const cases: Array<[object, ReturnType<typeof wireError>]> = [
    [
      { scope: 'everything' },
      wireError('VOX_ERR_BODY_INVALID', 'field "scope" must be equal to one of the allowed values'),
    ],
    [{ scope: 'all', who: 'me' }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "who"')],
    [{ scope: 'session' }, wireError('VOX_ERR_BODY_INVALID', 'scope "session" needs the field "session"')],
    [{ scope: 'id' }, wireError('VOX_ERR_BODY_INVALID', 'scope "id" needs the field "id"')],
  ];
  for (const [body, error] of cases) {
    const r = await app.inject(stop(body));
    assert.equal(r.statusCode, error.statusCode, JSON.stringify(body));
    assert.deepEqual(r.json(), error);
  }
});

test('no body stops everything: the one playing and the queued, each ending stopped', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const empty = await app.inject(stop());
  assert.equal(empty.statusCode, 200);
  assert.deepEqual(empty.json(), { stopped: [] }, 'nothing to stop');
  const say = (text: string, session: string) =>
    app.inject({ method: 'POST', url: '/v1/speak', headers: AUTH, payload: { text, session } });
  const started = nextEvent(dispatcher, 'started');
  const first = (await say(LONG, 'a#1')).json().id;
  assert.equal((await started).id, first);
  const second = (await say('Then this one.', 'b#2')).json().id;
  const third = (await say('And this one.', 'a#1')).json().id;
  const bySession = await app.inject(stop({ scope: 'session', session: 'b#2' }));
  assert.deepEqual(bySession.json(), { stopped: [second] });
  const r = await app.inject(stop());
  assert.equal(r.statusCode, 200);
  assert.deepEqual(new Set(r.json().stopped), new Set([first, third]));
  assert.equal(dispatcher.playing, null);
  assert.equal(dispatcher.queueLength, 0);
  const outcomes = new Map(dispatcher.history().map((h) => [h.id, h.outcome]));
  assert.deepEqual([outcomes.get(first), outcomes.get(second), outcomes.get(third)], ['stopped', 'stopped', 'stopped']);
});
