/**
 * POST /v1/synthesize through fastify's inject (docs/protocol.md, "POST
 * /v1/synthesize"): the guard, the schema's refusals (the queueing fields are
 * not its own), and the audio as a WAV, not played. With the sine engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireError } from '@vox/protocol';
import { buildServer } from '../../src/server.js';
import { sine } from '../fixtures/sine-engine.js';
import { assertGuarded, AUTH, routeRig } from '../fixtures/route-rig.js';

const synthesize = (payload: object) => ({ method: 'POST' as const, url: '/v1/synthesize', headers: AUTH, payload });

test('the token is required and a browser page is refused; nothing is synthesized', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  await assertGuarded(app, synthesize({ text: 'Never rendered.' }));
  assert.deepEqual(rig.engine.requests, []);
});

test('the schema refuses a bad body with the documented code, naming the field', async (t) => {
  const rig = routeRig();
  const { app } = await buildServer(rig.options);
  t.after(() => app.close());
  const cases: Array<[object, ReturnType<typeof wireError>]> = [
    [{ voice: 'high' }, wireError('VOX_ERR_BODY_INVALID', 'missing field "text"')],
    [{ text: 'Hi.', wait: true }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "wait"')],
    [{ text: 'Hi.', priority: 'text' }, wireError('VOX_ERR_BODY_INVALID', 'unknown field "priority"')],
    [{ text: 'Hi.', rate: 20 }, wireError('VOX_ERR_BODY_INVALID', 'field "rate" must be >= 80')],
  ];
  for (const [body, error] of cases) {
    const r = await app.inject(synthesize(body));
    assert.equal(r.statusCode, error.statusCode, JSON.stringify(body));
    assert.deepEqual(r.json(), error);
  }
  assert.deepEqual(rig.engine.requests, []);
});

test("200 audio/wav: the engine's audio of each sentence, with its name, and nothing played", async (t) => {
  const rig = routeRig();
  const { app, dispatcher } = await buildServer(rig.options);
  t.after(() => app.close());
  const r = await app.inject(synthesize({ text: 'One sentence. And another.', voice: 'high' }));
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'audio/wav');
  assert.equal(r.headers['x-vox-engine'], 'espeak');
  assert.equal(r.headers['x-vox-fallback-reason'], undefined);
  const wav = r.rawPayload;
  assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
  assert.equal(wav.toString('ascii', 8, 12), 'WAVE');
  assert.equal(wav.readUInt16LE(22), 1, 'mono');
  assert.equal(wav.readUInt32LE(24), 22050);
  assert.equal(wav.readUInt16LE(34), 16);
  // The sine engine's tone at 880 Hz ("high") for each sentence, one after the other.
  const pcm = Buffer.concat(['One sentence.', 'And another.'].map((s) => sine(s.length * 10, 22050, 880)));
  assert.equal(wav.readUInt32LE(40), pcm.length);
  assert.deepEqual(wav.subarray(44), pcm);
  assert.deepEqual(
    rig.engine.requests.map((q) => [q.text, q.voice]),
    [
      ['One sentence.', 'high'],
      ['And another.', 'high'],
    ],
  );
  assert.deepEqual(rig.wavs(), [], 'nothing played');
  assert.equal(dispatcher.counters.accepted, 0);
});
