/**
 * Recording (POST /v1/synthesize) holds at most its byte cap of audio: a text
 * whose audio would be longer is refused with 413 VOX_ERR_SYNTHESIZE_TOO_LARGE
 * and the engine is stopped; one under the cap is returned whole. With the
 * real embedded espeak engine; the cap is lowered so the test stays small.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RECORDING_BYTES, record } from '../../src/synthesis/recording.js';
// The engine runs its worker from the built file (tsx cannot start a .ts worker): build first.
import { EspeakEngine } from '../../dist/engines/espeak.js';
import { buildServer, singleEngine } from '../../src/server.js';
import { splitSentences } from '../../src/text/sentences.js';
import { NullSink } from '../../src/sinks/null.js';
import { rmSync } from 'node:fs';
import { dyingEspeakNg } from '../fixtures/failing-engines.js';

const TOKEN = 'r'.repeat(43);
const prepare = async (t: string) => ({ text: t, sentences: splitSentences(t) });
const LONG = Array.from(
  { length: 12 },
  (_, i) => `This is sentence number ${i + 1} of a recording that is longer than its cap.`,
).join(' ');

let engine: EspeakEngine;
before(async () => {
  engine = new EspeakEngine();
  await engine.start();
});
after(() => engine.close());

test('the default cap is 32 MiB', () => {
  assert.equal(MAX_RECORDING_BYTES, 32 * 1024 * 1024);
});

test('a recording past its cap is refused with VOX_ERR_SYNTHESIZE_TOO_LARGE, and the engine is stopped before the end', async () => {
  const synth = singleEngine(engine);
  let sentencesAsked = 0;
  const counting = {
    ...synth,
    synthesize: (r: Parameters<typeof synth.synthesize>[0]) => (sentencesAsked++, synth.synthesize(r)),
  };
  const cap = 200_000; // some 4.5 s of 22,050 Hz audio
  await assert.rejects(
    record(counting, prepare, { text: LONG }, undefined, cap),
    (err: Error & { code?: string; statusCode?: number }) => {
      assert.equal(err.code, 'VOX_ERR_SYNTHESIZE_TOO_LARGE');
      assert.equal(err.statusCode, 413);
      assert.match(err.message, /shorter text, or split it/);
      return true;
    },
  );
  assert.ok(sentencesAsked < 12, `${sentencesAsked} of 12 sentences were synthesized`);
  const small = await record(synth, prepare, { text: 'Short enough.' }, undefined, cap);
  assert.ok(small.wav.length > 44 + 22050, 'a text under the cap is returned whole');
});

test('POST /v1/synthesize answers 413 in the documented error shape past the cap, and serves the next request', async () => {
  const { app } = await buildServer({
    token: TOKEN,
    synthesizer: singleEngine(engine),
    sink: new NullSink(),
    prepare,
    synthesizeMaxBytes: 200_000,
  });
  after(() => app.close());
  const big = await app.inject({
    method: 'POST',
    url: '/v1/synthesize',
    headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1' },
    payload: { text: LONG },
  });
  assert.equal(big.statusCode, 413);
  const body = big.json();
  assert.equal(body.code, 'VOX_ERR_SYNTHESIZE_TOO_LARGE');
  assert.equal(body.statusCode, 413);
  assert.match(body.message, /MB, about/);
  const ok = await app.inject({
    method: 'POST',
    url: '/v1/synthesize',
    headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1' },
    payload: { text: 'Short enough.' },
  });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.headers['content-type'], 'audio/wav');
});

test("POST /v1/synthesize says an engine's failure inside the catalogue's sentence", async (t) => {
  const { engine: dying, dir } = dyingEspeakNg();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { app } = await buildServer({ token: TOKEN, synthesizer: singleEngine(dying), sink: new NullSink(), prepare });
  t.after(() => app.close());
  const r = await app.inject({
    method: 'POST',
    url: '/v1/synthesize',
    headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1' },
    payload: { text: 'Dies halfway.' },
  });
  assert.equal(r.statusCode, 500);
  assert.deepEqual(r.json(), {
    code: 'VOX_ERR_SYNTHESIS_FAILED',
    statusCode: 500,
    message:
      'Speech synthesis failed: espeak-ng exited with code 3: fake espeak-ng died. Check "vox status" and the logs in VOX_HOME/logs.',
  });
});
