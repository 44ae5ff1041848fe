/**
 * POST /v1/listen and POST /v1/listen/release through fastify's inject
 * (docs/protocol.md, "POST /v1/listen"): the guard, the schema's refusals, a
 * listen that records the recorder shim (test/fixtures/listen/arecord, which
 * plays a spoken sentence at real time) until the silence after it, with no
 * transcriber set, keeping the floor; and the release of that floor and of
 * one no longer kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { wireError } from '@vox/protocol';
import { buildServer, type ServerOptions } from '../../src/server.js';
import { assertGuarded, AUTH, routeRig } from '../fixtures/route-rig.js';
import { micEnv, RECORDER_SHIM, setMic } from '../../../../test/helpers/recorder-shim.js';
import { wavStats } from '../../../../test/helpers/wav.js';

/** Where the fixture's speech is (scripts/make-listen-fixture.mjs prints it). */
const SPEECH_MS = 1740;
const post = (url: string, payload?: object) => ({
  method: 'POST' as const,
  url,
  headers: AUTH,
  ...(payload ? { payload } : {}),
});

/** A voxd whose microphone is the shim, steered from the rig's directory, with no transcriber. */
function listenRig() {
  const rig = routeRig();
  const listen: ServerOptions['listen'] = {
    home: rig.dir,
    recorder: RECORDER_SHIM,
    transcriber: { url: '', model: 'whisper-1', timeoutMs: 30_000 },
    env: { ...process.env, ...micEnv(rig.dir) },
  };
  setMic(rig.dir);
  return { ...rig, options: { ...rig.options, listen } };
}

test('the token is required and a browser page is refused, on both routes; the recorder never starts', async (t) => {
  const rig = listenRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, post('/v1/listen', { prompt: false }));
  await assertGuarded(
    app,
    post('/v1/listen/release', { token: `floor-${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}` }),
  );
  assert.equal(existsSync(join(rig.dir, 'mic.pid')), false, 'no recording');
});

test('the schema refuses a bad body with the documented code, naming the field; the recorder never starts', async (t) => {
  const rig = listenRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const cases: Array<[string, object, ReturnType<typeof wireError>]> = [
    ['/v1/listen', { silenceMs: 50 }, wireError('VOX_ERR_BODY_INVALID', 'field "silenceMs" must be >= 200')],
    ['/v1/listen', { maxSeconds: 301 }, wireError('VOX_ERR_BODY_INVALID', 'field "maxSeconds" must be <= 300')],
    [
      '/v1/listen',
      { language: 'english' },
      wireError('VOX_ERR_BODY_INVALID', 'field "language" must match pattern "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$"'),
    ],
    ['/v1/listen', { text: 'hi' }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "text"')],
    ['/v1/listen/release', {}, wireError('VOX_ERR_BODY_INVALID', 'missing field "token"')],
    [
      '/v1/listen/release',
      { token: 'floor-1' },
      wireError('VOX_ERR_BODY_INVALID', 'field "token" must match pattern "^floor-[0-9a-f-]{36}$"'),
    ],
  ];
  for (const [url, body, error] of cases) {
    const r = await app.inject(post(url, body));
    assert.equal(r.statusCode, error.statusCode, `${url} ${JSON.stringify(body)}`);
    assert.deepEqual(r.json(), error);
  }
  assert.equal(existsSync(join(rig.dir, 'mic.pid')), false, 'no recording');
});

test('releasing a floor nobody keeps answers released: false', async (t) => {
  const { app } = await buildServer(listenRig().options);
  t.after(() => app.close());
  const r = await app.inject(post('/v1/listen/release', { token: 'floor-0b7e4a52-3c1d-4f6e-9a8b-2d5c7e1f0a93' }));
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { released: false });
});

test('a listen ends on the silence after the sentence, keeps its audio with no transcriber, and keeps the floor until released', async (t) => {
  const rig = listenRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const r = await app.inject(
    post('/v1/listen', { prompt: false, silenceMs: 700, keepFloor: true, floorIdleMs: 60_000, session: 'kitchen#1' }),
  );
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.equal(body.text, '');
  assert.equal(body.endedBy, 'silence');
  assert.equal(body.transcribed, false);
  assert.match(body.reason, /no transcriber is set/);
  assert.ok(Math.abs(body.speechMs - SPEECH_MS) <= 200, `speechMs ${body.speechMs} vs the fixture's ${SPEECH_MS}`);
  assert.ok(body.durationMs >= body.speechMs + 700 - 100, `durationMs ${body.durationMs}`);
  assert.ok(body.audioPath.startsWith(join(rig.dir, 'listen')), body.audioPath);
  const wav = wavStats(body.audioPath);
  assert.deepEqual([wav.sampleRate, wav.channels, wav.bitsPerSample], [16000, 1, 16]);
  assert.ok(Math.abs(wav.durationMs - body.durationMs) <= 1, `${wav.durationMs} vs ${body.durationMs}`);
  assert.match(body.floor.token, /^floor-[0-9a-f-]{36}$/);
  assert.equal(body.floor.idleMs, 60_000);
  assert.deepEqual(rig.wavs(), [], 'no prompt chime was asked for');

  const kept = (await app.inject({ method: 'GET', url: '/v1/status', headers: AUTH })).json().listening;
  assert.equal(kept.session, 'kitchen#1');
  assert.equal(kept.open, false);
  assert.match(kept.id, /^listen-/);
  assert.ok(kept.kept.expiresInMs > 0 && kept.kept.expiresInMs <= 60_000, JSON.stringify(kept));
  const released = await app.inject(post('/v1/listen/release', { token: body.floor.token }));
  assert.deepEqual(released.json(), { released: true });
  const twice = await app.inject(post('/v1/listen/release', { token: body.floor.token }));
  assert.deepEqual(twice.json(), { released: false }, 'harmless twice');
  const free = (await app.inject({ method: 'GET', url: '/v1/status', headers: AUTH })).json().listening;
  assert.equal(free, null);
});
