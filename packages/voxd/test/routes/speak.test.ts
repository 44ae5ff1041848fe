/**
 * POST /v1/speak through fastify's inject (docs/protocol.md, "POST /v1/speak"):
 * the guard, the schema's refusals with their codes, and the answers: queued,
 * the final outcome with `wait`, a duplicate, and no audio output. With the
 * sine engine and a real-time file sink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TEXT_CHARS, wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, nextEvent, routeRig } from '../fixtures/route-rig.js';

/** The sine engine's 10 ms a character at 22,050 Hz, 16-bit mono, after the 44-byte WAV header. */
const wavBytes = (text: string) => 44 + Math.round((22050 * text.length * 10) / 1000) * 2;

const speak = (payload: object | string) => ({
  method: 'POST' as const,
  url: '/v1/speak',
  headers: { ...AUTH, 'content-type': 'application/json' },
  payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
});

test('the token is required and a browser page is refused; nothing is queued', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, speak({ text: 'Never heard.' }));
  assert.equal(dispatcher.counters.accepted, 0);
  assert.deepEqual(rig.engine.requests, []);
});

test('the schema refuses a bad body with the documented code, naming the field', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const cases: Array<[object | string, ReturnType<typeof wireError>]> = [
    [{}, wireError('VOX_ERR_BODY_INVALID', 'missing field "text"')],
    [{ text: '' }, wireError('VOX_ERR_BODY_INVALID', 'field "text" must NOT have fewer than 1 characters')],
    [{ text: 'Hi.', rate: 'fast' }, wireError('VOX_ERR_BODY_INVALID', 'field "rate" must be number')],
    [{ text: 'Hi.', volume: 2 }, wireError('VOX_ERR_BODY_INVALID', 'field "volume" must be <= 1')],
    [{ text: 'Hi.', colour: 'red' }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "colour"')],
    [
      { text: 'Hi.', priority: 'urgent' },
      wireError('VOX_ERR_BODY_INVALID', 'field "priority" must be equal to one of the allowed values'),
    ],
    [{ text: 'x'.repeat(MAX_TEXT_CHARS + 1) }, wireError('VOX_ERR_TEXT_TOO_LONG', MAX_TEXT_CHARS)],
  ];
  for (const [body, error] of cases) {
    const r = await app.inject(speak(body));
    assert.equal(r.statusCode, error.statusCode, JSON.stringify(body).slice(0, 80));
    assert.deepEqual(r.json(), error);
  }
  const json = await app.inject(speak('{"text": "unterminated'));
  assert.equal(json.statusCode, 400);
  assert.equal(json.json().code, 'VOX_ERR_BODY_INVALID_JSON');
  const engine = await app.inject(speak({ text: 'Hi.', engine: 'nope' }));
  assert.equal(engine.statusCode, 400);
  assert.equal(engine.json().code, 'VOX_ERR_ENGINE_UNKNOWN');
  assert.match(engine.json().message, /"nope"/);
  assert.equal(dispatcher.counters.accepted, 0, 'nothing refused was queued');
  assert.deepEqual(rig.engine.requests, []);
});

test('202 queued with the text and the sink; the utterance is played to the file sink', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const text = 'The build is green.';
  const finishedEvent = nextEvent(dispatcher, 'finished');
  const r = await app.inject(speak({ text, session: 'shop#3c07f0' }));
  assert.equal(r.statusCode, 202);
  const body = r.json();
  assert.match(body.id, /^\S+$/);
  assert.deepEqual(body, { id: body.id, status: 'queued', text, sink: { name: rig.sink.name, ok: true } });
  const finished = await finishedEvent;
  assert.equal(finished.id, body.id);
  assert.equal(finished.session, 'shop#3c07f0');
  const wavs = rig.wavs();
  assert.equal(wavs.length, 1);
  assert.ok(wavs[0]!.endsWith(`-${body.id}.wav`), wavs[0]);
  assert.equal(statSync(join(rig.sink.dir, wavs[0]!)).size, wavBytes(text));
  assert.deepEqual(
    rig.engine.requests.map((q) => q.text),
    [text],
  );
});

test('with wait, 200 and the final outcome; the same text again is a duplicate of it', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const text = 'Deployed to staging.';
  const r = await app.inject(speak({ text, wait: true, voice: 'high' }));
  assert.equal(r.statusCode, 200);
  const played = r.json();
  assert.deepEqual(played, {
    id: played.id,
    status: 'played',
    text,
    engine: 'espeak',
    sink: { name: rig.sink.name, ok: true },
  });
  assert.equal(rig.engine.requests[0]!.voice, 'high');
  const again = await app.inject(speak({ text: 'deployed to  STAGING', once: 60 }));
  assert.equal(again.statusCode, 200);
  const dup = again.json();
  assert.equal(dup.status, 'deduped');
  assert.equal(dup.originalId, played.id);
  assert.equal(dup.duplicate.originalId, played.id);
  assert.equal(dup.duplicate.originalStatus, 'played');
  assert.ok(dup.duplicate.windowRemainingMs > 0 && dup.duplicate.windowRemainingMs <= 60_000);
  assert.equal(rig.wavs().length, 1, 'the duplicate was not played');
});

test('503 VOX_ERR_AUDIO_UNAVAILABLE when the sink cannot play, and nothing is queued', async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  rmSync(rig.sink.dir, { recursive: true });
  const r = await app.inject(speak({ text: 'Nobody hears this.' }));
  assert.equal(r.statusCode, 503);
  const body = r.json();
  assert.equal(body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
  assert.equal(body.statusCode, 503);
  assert.match(body.message, /does not exist/);
  assert.equal(dispatcher.counters.accepted, 0);
  assert.equal(dispatcher.queueLength, 0);
});
