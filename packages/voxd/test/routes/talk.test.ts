/**
 * POST /v1/talk and POST /v1/talk/wait through fastify's inject
 * (docs/protocol.md, docs/talk-back.md): the guard, the schema's refusals,
 * an unknown session (404 with the live labels), and a text delivered to the
 * session that polls, by its label or its project's name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TALK_MAX_CHARS, wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, routeRig } from '../fixtures/route-rig.js';

const post = (url: string, payload: object) => ({ method: 'POST' as const, url, headers: AUTH, payload });

test('the token is required and a browser page is refused, on both routes; nothing is delivered', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  await assertGuarded(app, post('/v1/talk/wait', { session: 'api#3c07f0', waitMs: 0 }));
  await assertGuarded(app, post('/v1/talk', { session: 'api#3c07f0', text: 'Hello.' }));
  // The refused poll did not make the session live.
  const r = await app.inject(post('/v1/talk', { session: 'api#3c07f0', text: 'Hello.' }));
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().code, 'VOX_ERR_TALK_UNKNOWN_SESSION');
});

test('the schema refuses a bad body with the documented code, naming the field', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const cases: Array<[string, object, ReturnType<typeof wireError>]> = [
    ['/v1/talk', { session: 'api' }, wireError('VOX_ERR_BODY_INVALID', 'missing field "text"')],
    [
      '/v1/talk',
      { session: 'api', text: 'x'.repeat(TALK_MAX_CHARS + 1) },
      // The route's own limit, not /v1/speak's.
      wireError('VOX_ERR_TEXT_TOO_LONG', TALK_MAX_CHARS),
    ],
    [
      '/v1/talk/wait',
      { session: 'api#3c07f0', waitMs: 60_001 },
      wireError('VOX_ERR_BODY_INVALID', 'field "waitMs" must be <= 60000'),
    ],
    [
      '/v1/talk/wait',
      { session: '' },
      wireError('VOX_ERR_BODY_INVALID', 'field "session" must NOT have fewer than 1 characters'),
    ],
  ];
  for (const [url, body, error] of cases) {
    const r = await app.inject(post(url, body));
    assert.equal(r.statusCode, error.statusCode, `${url} ${JSON.stringify(body)}`);
    assert.deepEqual(r.json(), error);
  }
});

test('a text reaches the session that polls, by label or project name; an unknown one is 404 with the live labels', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const none = await app.inject(post('/v1/talk', { session: 'api', text: 'Anyone?' }));
  assert.equal(none.statusCode, 404);
  assert.deepEqual(
    none.json(),
    wireError(
      'VOX_ERR_TALK_UNKNOWN_SESSION',
      'no live session "api"; no session is live (no vox mcp is running, or it is older than vox talk)',
    ),
  );
  // A poll that answers at once makes the session live.
  const first = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', waitMs: 0 }));
  assert.deepEqual(first.json(), { texts: [] });
  const held = await app.inject(post('/v1/talk', { session: 'api', text: 'Run the tests.' }));
  assert.equal(held.statusCode, 200);
  assert.deepEqual(held.json(), { delivered: 'api#3c07f0' });
  // The long poll gets what is held, and what comes while it waits.
  const taken = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', waitMs: 60_000 }));
  assert.deepEqual(taken.json(), { texts: ['Run the tests.'] });
  const poll = app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', waitMs: 60_000 }));
  const sent = await app.inject(post('/v1/talk', { session: 'api#3c07f0', text: 'Then commit.' }));
  assert.deepEqual(sent.json(), { delivered: 'api#3c07f0' });
  assert.deepEqual((await poll).json(), { texts: ['Then commit.'] });
  const other = await app.inject(post('/v1/talk', { session: 'shop', text: 'Hello?' }));
  assert.equal(other.statusCode, 404);
  assert.equal(other.json().message.includes('live sessions: api#3c07f0'), true, other.json().message);
});
