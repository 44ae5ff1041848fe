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
  const { secret } = first.json();
  assert.deepEqual(first.json(), { texts: [], secret });
  const held = await app.inject(post('/v1/talk', { session: 'api', text: 'Run the tests.' }));
  assert.equal(held.statusCode, 200);
  assert.deepEqual(held.json(), { delivered: 'api#3c07f0' });
  // The long poll gets what is held, and what comes while it waits.
  const taken = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', secret, waitMs: 60_000 }));
  assert.deepEqual(taken.json(), { texts: ['Run the tests.'], secret });
  const poll = app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', secret, waitMs: 60_000 }));
  const sent = await app.inject(post('/v1/talk', { session: 'api#3c07f0', text: 'Then commit.' }));
  assert.deepEqual(sent.json(), { delivered: 'api#3c07f0' });
  assert.deepEqual((await poll).json(), { texts: ['Then commit.'], secret });
  const other = await app.inject(post('/v1/talk', { session: 'shop', text: 'Hello?' }));
  assert.equal(other.statusCode, 404);
  assert.equal(other.json().message.includes('live sessions: api#3c07f0'), true, other.json().message);
});

const SECRET = 'a'.repeat(32);
const OTHER = 'b'.repeat(32);

test("a session's texts go only to the vox mcp that registered its label: a poll with another secret, or none, is refused and takes nothing", async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const first = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', secret: SECRET, waitMs: 0 }));
  assert.deepEqual(first.json(), { texts: [], secret: SECRET });
  assert.equal((await app.inject(post('/v1/talk', { session: 'api', text: 'Run the tests.' }))).statusCode, 200);
  for (const thief of [{}, { secret: OTHER }]) {
    const r = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', waitMs: 0, ...thief }));
    assert.equal(r.statusCode, 409, JSON.stringify(thief));
    assert.deepEqual(
      r.json(),
      wireError(
        'VOX_ERR_TALK_SESSION_TAKEN',
        'api#3c07f0',
        thief.secret ? 'this poll presented another secret' : 'this poll presented no secret',
      ),
    );
  }
  const owner = await app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', secret: SECRET, waitMs: 0 }));
  assert.deepEqual(owner.json(), { texts: ['Run the tests.'], secret: SECRET });
  // A first poll without a secret is given one, which its later polls present.
  const issued = await app.inject(post('/v1/talk/wait', { session: 'web#1', waitMs: 0 }));
  assert.match(issued.json().secret, /^[0-9a-f]{32}$/);
  const again = await app.inject(post('/v1/talk/wait', { session: 'web#1', waitMs: 0, secret: issued.json().secret }));
  assert.equal(again.statusCode, 200);
});

test('a label must be printable: control characters, bidi controls and other invisibles are refused on both routes', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const refused = wireError(
    'VOX_ERR_BODY_INVALID',
    'field "session" must be printable (no control, bidi, zero-width or other invisible character)',
  );
  for (const label of ['evil\x1b]0;pwned\x07\x1b[2J#1', 'api\u202e#1', 'api\u200b#1', 'a\u0085b', 'x\u2028y']) {
    const wait = await app.inject(post('/v1/talk/wait', { session: label, secret: SECRET, waitMs: 0 }));
    assert.deepEqual(wait.json(), refused, JSON.stringify(label));
    const talk = await app.inject(post('/v1/talk', { session: label, text: 'hi' }));
    assert.deepEqual(talk.json(), refused, JSON.stringify(label));
  }
  // Nothing was registered; letters of any script and spaces are fine.
  const fine = await app.inject(post('/v1/talk/wait', { session: 'проект café#1', secret: SECRET, waitMs: 0 }));
  assert.equal(fine.statusCode, 200);
  const live = await app.inject(post('/v1/talk', { session: 'nobody', text: 'hi' }));
  assert.match(live.json().message, /live sessions: проект café#1\. /);
});

test('256 junk registrations, idle or long-polling, do not crowd out a new session', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  // Idle junk (polls that answer at once, each without a secret), then junk that holds its long poll open.
  for (let i = 0; i < 256; i++)
    assert.equal((await app.inject(post('/v1/talk/wait', { session: `junk${i}#1`, waitMs: 0 }))).statusCode, 200);
  const open = Array.from({ length: 256 }, (_, i) =>
    app.inject(post('/v1/talk/wait', { session: `poll${i}#1`, waitMs: 60_000 })),
  );
  const poll = app.inject(post('/v1/talk/wait', { session: 'api#3c07f0', secret: SECRET, waitMs: 60_000 }));
  const sent = await waitForDelivery(app, 'api#3c07f0');
  assert.deepEqual(sent, { delivered: 'api#3c07f0' });
  assert.deepEqual((await poll).json(), { texts: ['Run the tests.'], secret: SECRET });
  await app.close();
  await Promise.all(open);
});

test('one client (one secret) holds at most 4 labels: its newest label pushes out its oldest', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  for (let i = 1; i <= 6; i++)
    assert.equal(
      (await app.inject(post('/v1/talk/wait', { session: `junk#${i}`, secret: OTHER, waitMs: 0 }))).statusCode,
      200,
    );
  const r = await app.inject(post('/v1/talk', { session: 'nobody', text: 'hi' }));
  assert.match(r.json().message, /live sessions: junk#3, junk#4, junk#5, junk#6\. /);
});

/** Sends "Run the tests." to `label` once its poll has registered it (a poll is answered by the event loop, not at once). */
async function waitForDelivery(app: Awaited<ReturnType<typeof buildServer>>['app'], label: string): Promise<unknown> {
  for (;;) {
    const r = await app.inject(post('/v1/talk', { session: label, text: 'Run the tests.' }));
    if (r.statusCode === 200) return r.json();
    assert.equal(r.statusCode, 404, r.body);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
