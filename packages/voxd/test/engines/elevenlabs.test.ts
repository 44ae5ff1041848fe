import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  ElevenLabsEngine,
  ELEVENLABS_DEFAULT_MODEL,
  ELEVENLABS_DEFAULT_VOICE,
  ELEVENLABS_FALLBACK_VOICES,
  rateToElevenSpeed,
} from '../../src/engines/elevenlabs.js';
import { CloudError, type HttpClientOptions } from '../../src/engines/http.js';
import {
  FAKE_ELEVEN_KEY,
  FAKE_ELEVEN_VOICES,
  startFakeElevenLabs,
  type FakeElevenLabs,
} from '../fixtures/fake-elevenlabs.js';
import { collect } from '../fixtures/sine-engine.js';

const FAST: HttpClientOptions = { headersTimeoutMs: 2000, bodyIdleTimeoutMs: 2000, backoffMs: 1, maxBackoffMs: 20 };

function keys(value: string | undefined) {
  return { get: (name: string) => (name === 'ELEVENLABS_API_KEY' ? value : undefined) };
}

async function rejection(p: Promise<unknown>): Promise<CloudError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CloudError, `expected CloudError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('elevenlabs engine', () => {
  let api: FakeElevenLabs;
  const engines: ElevenLabsEngine[] = [];
  const make = (opts: { key?: string | undefined; http?: HttpClientOptions } = {}) => {
    const e = new ElevenLabsEngine({
      keys: keys('key' in opts ? opts.key : FAKE_ELEVEN_KEY),
      env: { ELEVENLABS_BASE_URL: api.url },
      http: opts.http ?? FAST,
    });
    engines.push(e);
    return e;
  };
  const speechRequests = () => api.requests.filter((r) => r.method === 'POST');

  before(async () => {
    api = await startFakeElevenLabs();
  });
  after(async () => {
    for (const e of engines) await e.close();
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
    api.script.length = 0;
    api.defaultReply = { kind: 'audio' };
    api.voicesStatus = 200;
  });

  test('posts to the streaming endpoint with xi-api-key, model and pcm_22050', async () => {
    const engine = make();
    const s = await engine.synthesize({
      text: '[excited] Tests pass!',
      voice: 'AAAAAAAAAAAAAAAAAAA1',
      model: 'eleven_v3',
      rate: 200,
    });
    assert.deepEqual(s.format, { sampleRate: 22050, channels: 1, bitDepth: 16 });
    assert.deepEqual(await collect(s.chunks), api.audio());
    const r = api.requests[0]!;
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/v1/text-to-speech/AAAAAAAAAAAAAAAAAAA1/stream?output_format=pcm_22050');
    assert.equal(r.headers['xi-api-key'], FAKE_ELEVEN_KEY);
    assert.equal(r.headers.authorization, undefined);
    assert.deepEqual(r.json, { text: '[excited] Tests pass!', model_id: 'eleven_v3', voice_settings: { speed: 1.14 } });
  });

  test('defaults: flash model, the default voice, no voice_settings', async () => {
    const engine = make();
    await collect((await engine.synthesize({ text: 'hi' })).chunks);
    const r = api.requests[0]!;
    assert.equal(r.url, `/v1/text-to-speech/${ELEVENLABS_DEFAULT_VOICE}/stream?output_format=pcm_22050`);
    assert.deepEqual(r.json, { text: 'hi', model_id: ELEVENLABS_DEFAULT_MODEL });
  });

  test('only eleven_v3 performs tags', () => {
    const engine = make();
    assert.equal(engine.understandsTags('eleven_v3'), true);
    assert.equal(engine.understandsTags('eleven_flash_v2_5'), false);
    assert.equal(engine.understandsTags(undefined), false);
  });

  test('rate maps to voice_settings.speed within 0.7–1.2', () => {
    assert.equal(rateToElevenSpeed(undefined), undefined);
    assert.equal(rateToElevenSpeed(175), 1);
    assert.equal(rateToElevenSpeed(80), 0.7);
    assert.equal(rateToElevenSpeed(500), 1.2);
  });

  test('a premade voice name resolves without a network call', async () => {
    const engine = make();
    await collect((await engine.synthesize({ text: 'x', voice: 'rachel' })).chunks);
    assert.equal(api.requests.length, 1);
    assert.match(api.requests[0]!.url, /^\/v1\/text-to-speech\/21m00Tcm4TlvDq8ikWAM\/stream/);
  });

  test('an account voice name is looked up in GET /v1/voices, once', async () => {
    const engine = make();
    await collect((await engine.synthesize({ text: 'x', voice: 'Marvin' })).chunks);
    await collect((await engine.synthesize({ text: 'y', voice: 'nova custom' })).chunks);
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`),
      [
        'GET /v1/voices',
        'POST /v1/text-to-speech/AAAAAAAAAAAAAAAAAAA2/stream',
        'POST /v1/text-to-speech/AAAAAAAAAAAAAAAAAAA1/stream',
      ],
    );
  });

  test('voices() lists the account voices and caches them', async () => {
    const engine = make();
    const v = await engine.voices();
    assert.deepEqual(
      v.map((x) => [x.id, x.name, x.languages]),
      FAKE_ELEVEN_VOICES.map((x) => [x.voice_id, x.name, x.voice_id.endsWith('1') ? ['en', 'fr'] : ['en']]),
    );
    await engine.voices();
    assert.equal(api.requests.length, 1);
    assert.equal(api.requests[0]!.headers['xi-api-key'], FAKE_ELEVEN_KEY);
  });

  test('voices() falls back to the built-in list without a key or when the call fails', async () => {
    assert.equal((await make({ key: undefined }).voices()).length, ELEVENLABS_FALLBACK_VOICES.length);
    assert.equal(api.requests.length, 0);
    api.voicesStatus = 500;
    const v = await make({ http: { ...FAST, retries: 0 } }).voices();
    assert.deepEqual(
      v.map((x) => x.id),
      ELEVENLABS_FALLBACK_VOICES.map((x) => x.id),
    );
  });

  test('an unknown voice reaches the API, whose 404 is reported', async () => {
    api.voicesStatus = 200;
    const engine = make();
    const err = await rejection(engine.synthesize({ text: 'x', voice: 'nobody-here' }));
    assert.equal(err.kind, 'client');
    assert.match(err.message, /^404 not found: A voice with the voice_id was not found/);
  });

  test('401: names ELEVENLABS_API_KEY and never the key', async () => {
    const engine = make({ key: 'wrongwrongwrongwrongwrong' });
    const err = await rejection(engine.synthesize({ text: 'x', voice: ELEVENLABS_DEFAULT_VOICE }));
    assert.equal(err.kind, 'auth');
    assert.match(err.message, /^401 unauthorized: Invalid API key/);
    assert.match(err.message, /check ELEVENLABS_API_KEY/);
    assert.ok(!err.message.includes('wrongwrongwrongwrongwrong'), err.message);
    assert.equal(api.requests.length, 1);
  });

  test('429 then success', async () => {
    api.script.push({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '0' },
      body: { detail: { status: 'too_many_concurrent_requests', message: 'busy' } },
    });
    const engine = make();
    assert.deepEqual(await collect((await engine.synthesize({ text: 'x' })).chunks), api.audio());
    assert.equal(speechRequests().length, 2);
  });

  test('500 on every attempt: a server error', async () => {
    api.defaultReply = { kind: 'error', status: 500, body: { detail: 'internal' } };
    const engine = make({ http: { ...FAST, retries: 2 } });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'server');
    assert.match(err.message, /^500 server error after 3 attempts: internal/);
    assert.equal(speechRequests().length, 3);
  });

  test('a slow, chunked stream arrives whole', async () => {
    api.defaultReply = { kind: 'audio', ms: 200, chunkBytes: 1001, gapMs: 15 };
    const engine = make();
    const chunks: Buffer[] = [];
    for await (const c of (await engine.synthesize({ text: 'x' })).chunks) chunks.push(c);
    assert.ok(chunks.length > 3);
    assert.ok(chunks.every((c) => c.length % 2 === 0));
    assert.deepEqual(Buffer.concat(chunks), api.audio(200));
  });

  test('timeout: a server that never answers', async () => {
    api.defaultReply = { kind: 'hang' };
    const engine = make({ http: { ...FAST, headersTimeoutMs: 150 } });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'timeout');
  });

  test('24 kHz output when asked', async () => {
    const api24 = await startFakeElevenLabs(FAKE_ELEVEN_KEY, 24000);
    const engine = new ElevenLabsEngine({
      keys: keys(FAKE_ELEVEN_KEY),
      env: { ELEVENLABS_BASE_URL: api24.url },
      http: FAST,
      sampleRate: 24000,
    });
    try {
      const s = await engine.synthesize({ text: 'x' });
      assert.equal(s.format.sampleRate, 24000);
      assert.deepEqual(await collect(s.chunks), api24.audio());
      assert.match(api24.requests[0]!.url, /output_format=pcm_24000$/);
    } finally {
      await engine.close();
      await api24.close();
    }
  });

  test('ready() needs ELEVENLABS_API_KEY', async () => {
    assert.deepEqual(await make().ready(), { ready: true });
    const r = await make({ key: undefined }).ready();
    assert.equal(r.ready, false);
    assert.match((r as { reason: string }).reason, /ELEVENLABS_API_KEY/);
  });
});
