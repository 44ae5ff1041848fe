/**
 * POST /v1/chime through fastify's inject (docs/protocol.md, "POST /v1/chime"):
 * the guard, the schema's refusals, 202 queued and the chime's audio at the
 * file sink, the final outcome with `wait`, and the signal's duplicate window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wireError } from '@vox/protocol';
import { chimePcm } from '../../src/audio/chimes.js';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, nextEvent, routeRig } from '../fixtures/route-rig.js';

const chime = (payload: object) => ({ method: 'POST' as const, url: '/v1/chime', headers: AUTH, payload });

test('the token is required and a browser page is refused; nothing is queued', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, chime({ signal: 'done' }));
  assert.equal(dispatcher.counters.accepted, 0);
  assert.deepEqual(rig.wavs(), []);
});

test('the schema refuses a bad body with the documented code, naming the field', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const cases: Array<[object, ReturnType<typeof wireError>]> = [
    [{}, wireError('VOX_ERR_BODY_INVALID', 'missing field "signal"')],
    [
      { signal: 'ding' },
      wireError('VOX_ERR_BODY_INVALID', 'field "signal" must be equal to one of the allowed values'),
    ],
    [{ signal: 'done', volume: -1 }, wireError('VOX_ERR_BODY_INVALID', 'field "volume" must be >= 0')],
    [{ signal: 'done', text: 'no' }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "text"')],
  ];
  for (const [body, error] of cases) {
    const r = await app.inject(chime(body));
    assert.equal(r.statusCode, error.statusCode, JSON.stringify(body));
    assert.deepEqual(r.json(), error);
  }
  assert.equal(dispatcher.counters.accepted, 0);
});

test("202 queued, then the signal's tone at the sink; within 5 s the same signal is a duplicate", async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const finished = nextEvent(dispatcher, 'finished');
  const r = await app.inject(chime({ signal: 'error', session: 'api#9a1b2c', volume: 0.5 }));
  assert.equal(r.statusCode, 202);
  const body = r.json();
  assert.deepEqual(body, {
    id: body.id,
    status: 'queued',
    text: '(error chime)',
    sink: { name: rig.sink.name, ok: true },
  });
  assert.equal((await finished).id, body.id);
  const [wav] = rig.wavs();
  assert.ok(wav?.endsWith(`-${body.id}.wav`), wav);
  // The tone itself, as the file sink wrote it after its 44-byte header.
  assert.deepEqual(readFileSync(join(rig.sink.dir, wav!)).subarray(44), chimePcm('error', 0.5));
  assert.deepEqual(rig.engine.requests, [], 'a chime needs no engine');
  const again = await app.inject(chime({ signal: 'error' }));
  assert.equal(again.statusCode, 200);
  assert.equal(again.json().status, 'deduped');
  assert.equal(again.json().originalId, body.id);
});

test('with wait, 200 and the outcome played', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const r = await app.inject(chime({ signal: 'attention', wait: true }));
  assert.equal(r.statusCode, 200);
  const body = r.json();
  assert.equal(body.status, 'played');
  assert.equal(body.text, '(attention chime)');
  assert.equal(rig.wavs().length, 1);
});
