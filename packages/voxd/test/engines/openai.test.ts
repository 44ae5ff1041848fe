import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { OpenAIEngine, OPENAI_DEFAULT_MODEL, OPENAI_DEFAULT_VOICE, rateToSpeed } from '../../src/engines/openai.js';
import { CloudError, retryAfterMs, type HttpClientOptions } from '../../src/engines/http.js';
import type { FakeApi } from '../fixtures/fake-api.js';
import { FAKE_OPENAI_KEY, startFakeOpenAI } from '../fixtures/fake-openai.js';
import { collect } from '../fixtures/sine-engine.js';

const FAST: HttpClientOptions = { headersTimeoutMs: 2000, bodyIdleTimeoutMs: 2000, backoffMs: 1, maxBackoffMs: 20 };

function keys(value: string | undefined) {
  return { get: (name: string) => (name === 'OPENAI_API_KEY' ? value : undefined) };
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

describe('openai engine', () => {
  let api: FakeApi;
  const engines: OpenAIEngine[] = [];
  const make = (opts: { key?: string; http?: HttpClientOptions } = {}) => {
    const e = new OpenAIEngine({
      keys: keys('key' in opts ? opts.key : FAKE_OPENAI_KEY),
      env: { OPENAI_BASE_URL: `${api.url}/v1/` },
      http: opts.http ?? FAST,
    });
    engines.push(e);
    return e;
  };

  before(async () => {
    api = await startFakeOpenAI();
  });
  after(async () => {
    for (const e of engines) await e.close();
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
    api.script.length = 0;
    api.defaultReply = { kind: 'audio' };
  });

  test('sends the Bearer key and the speech body, and streams 24 kHz PCM', async () => {
    const engine = make();
    const s = await engine.synthesize({ text: 'Build finished.', voice: 'nova', rate: 350, model: 'gpt-4o-mini-tts' });
    assert.deepEqual(s.format, { sampleRate: 24000, channels: 1, bitDepth: 16 });
    const pcm = await collect(s.chunks);
    assert.deepEqual(pcm, api.audio());
    assert.equal(api.requests.length, 1);
    const r = api.requests[0]!;
    assert.equal(r.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.json, {
      model: 'gpt-4o-mini-tts',
      input: 'Build finished.',
      voice: 'nova',
      response_format: 'pcm',
      speed: 2,
    });
  });

  test('defaults: tts-1, alloy, speed 1', async () => {
    const engine = make();
    await collect((await engine.synthesize({ text: 'hi' })).chunks);
    assert.deepEqual(api.requests[0]!.json, {
      model: OPENAI_DEFAULT_MODEL,
      input: 'hi',
      voice: OPENAI_DEFAULT_VOICE,
      response_format: 'pcm',
      speed: 1,
    });
    assert.equal(OPENAI_DEFAULT_MODEL, 'tts-1');
  });

  test('rate maps to speed: 175 wpm is 1.0, clamped to 0.25–4', () => {
    assert.equal(rateToSpeed(undefined), 1);
    assert.equal(rateToSpeed(175), 1);
    assert.equal(rateToSpeed(262.5), 1.5);
    assert.equal(rateToSpeed(10), 0.25);
    assert.equal(rateToSpeed(5000), 4);
  });

  test('a slow stream with gaps arrives whole, in sample-aligned chunks', async () => {
    api.defaultReply = { kind: 'audio', ms: 300, chunkBytes: 4001, gapMs: 30, firstByteDelayMs: 50 };
    const engine = make();
    const s = await engine.synthesize({ text: 'slow' });
    const chunks: Buffer[] = [];
    for await (const c of s.chunks) chunks.push(c);
    assert.ok(chunks.length > 3, 'streamed in several chunks');
    for (const c of chunks) assert.equal(c.length % 2, 0, 'every chunk holds whole samples');
    assert.deepEqual(Buffer.concat(chunks), api.audio(300));
  });

  test('volume below 1 scales the samples', async () => {
    const engine = make();
    const pcm = await collect((await engine.synthesize({ text: 'quiet', volume: 0.5 })).chunks);
    const src = api.audio();
    assert.equal(pcm.length, src.length);
    assert.equal(pcm.readInt16LE(200), Math.round(src.readInt16LE(200) * 0.5));
  });

  test('401: an auth error that names the variable and never the key', async () => {
    const engine = make({ key: 'sk-wrong-key-abcdefghijklmnop' });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'auth');
    assert.equal(err.status, 401);
    assert.match(err.message, /^401 unauthorized/);
    assert.match(err.message, /check OPENAI_API_KEY/);
    assert.ok(!err.message.includes('sk-wrong-key-abcdefghijklmnop'), err.message);
    assert.ok(!err.message.includes('abcdefghijklmnop'), err.message);
    assert.equal(api.requests.length, 1, 'no retry on 401');
  });

  test("a request's own apiKey is used, and a 401 then points at it", async () => {
    const engine = make({ key: undefined });
    const ok = await engine.synthesize({ text: 'x', apiKey: FAKE_OPENAI_KEY });
    await collect(ok.chunks);
    assert.equal(api.requests[0]!.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
    const err = await rejection(engine.synthesize({ text: 'x', apiKey: 'sk-callers-own-key-123456' }));
    assert.match(err.message, /apiKey sent with the request/);
    assert.ok(!err.message.includes('sk-callers-own-key-123456'));
  });

  test('429 then success: retried, honouring Retry-After', async () => {
    api.script.push({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '0' },
      body: { error: { message: 'Rate limit reached' } },
    });
    const engine = make();
    const pcm = await collect((await engine.synthesize({ text: 'again' })).chunks);
    assert.deepEqual(pcm, api.audio());
    assert.equal(api.requests.length, 2);
  });

  test('429 every time: a rate-limit error after all attempts, with the API detail', async () => {
    api.defaultReply = {
      kind: 'error',
      status: 429,
      headers: { 'retry-after-ms': '1' },
      body: { error: { message: 'You exceeded your current quota' } },
    };
    const engine = make({ http: { ...FAST, retries: 2 } });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'rate-limit');
    assert.equal(err.attempts, 3);
    assert.equal(api.requests.length, 3);
    assert.match(err.message, /429 rate limited or out of quota after 3 attempts: You exceeded your current quota/);
  });

  test('500: retried, then a server error', async () => {
    api.defaultReply = { kind: 'error', status: 500, body: { error: { message: 'The server had an error' } } };
    const engine = make({ http: { ...FAST, retries: 1 } });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'server');
    assert.equal(err.status, 500);
    assert.equal(api.requests.length, 2);
  });

  test('500 then success', async () => {
    api.script.push({ kind: 'error', status: 503 });
    const engine = make();
    await collect((await engine.synthesize({ text: 'x' })).chunks);
    assert.equal(api.requests.length, 2);
  });

  test('400: no retry, the API says why', async () => {
    api.script.push({ kind: 'error', status: 400, body: { error: { message: "Invalid value for 'voice'" } } });
    const engine = make();
    const err = await rejection(engine.synthesize({ text: 'x', voice: 'nobody' }));
    assert.equal(err.kind, 'client');
    assert.equal(api.requests.length, 1);
    assert.match(err.message, /^400 bad request: Invalid value for 'voice'/);
  });

  test('timeout: a server that never answers gives a timeout error', async () => {
    api.defaultReply = { kind: 'hang' };
    const engine = make({ http: { ...FAST, headersTimeoutMs: 150 } });
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'timeout');
    assert.equal(api.requests.length, 1, 'a timeout is not retried');
  });

  test('a stream that stalls after audio started fails with a timeout while reading', async () => {
    api.defaultReply = { kind: 'stall', bytes: 2000 };
    const engine = make({ http: { ...FAST, bodyIdleTimeoutMs: 150 } });
    const s = await engine.synthesize({ text: 'x' });
    let got = 0;
    const err = await rejection(
      (async () => {
        for await (const c of s.chunks) got += c.length;
      })(),
    );
    assert.equal(err.kind, 'timeout');
    assert.equal(got, 2000);
  });

  test('abort via the signal while waiting', async () => {
    api.defaultReply = { kind: 'hang' };
    const engine = make();
    const ac = new AbortController();
    const p = engine.synthesize({ text: 'x', signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    const err = await rejection(p);
    assert.equal(err.kind, 'aborted');
  });

  test('close() ends a request in flight instead of waiting for its timeout', async () => {
    api.defaultReply = { kind: 'hang' };
    const engine = make({ http: { ...FAST, headersTimeoutMs: 600_000 } });
    const p = engine.synthesize({ text: 'x' });
    while (api.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await engine.close();
    const err = await rejection(p);
    assert.equal(err.kind, 'network');
  });

  test('a refused connection is a network error', async () => {
    const engine = new OpenAIEngine({
      keys: keys(FAKE_OPENAI_KEY),
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
      http: FAST,
    });
    engines.push(engine);
    const err = await rejection(engine.synthesize({ text: 'x' }));
    assert.equal(err.kind, 'network');
    assert.match(err.message, /ECONNREFUSED/);
  });

  test('ready() needs a key and says which', async () => {
    assert.deepEqual(await make().ready(), { ready: true });
    const r = await make({ key: undefined }).ready();
    assert.equal(r.ready, false);
    assert.match((r as { reason: string }).reason, /OPENAI_API_KEY is not set/);
    await assert.rejects(make({ key: undefined }).synthesize({ text: 'x' }), (e: CloudError) => e.kind === 'auth');
  });

  test('voices, tags and cache parameters', async () => {
    const engine = make();
    const ids = (await engine.voices()).map((v) => v.id);
    assert.deepEqual(ids, [
      'alloy',
      'ash',
      'ballad',
      'coral',
      'echo',
      'fable',
      'onyx',
      'nova',
      'sage',
      'shimmer',
      'verse',
    ]);
    assert.equal(engine.understandsTags('gpt-4o-mini-tts'), false);
    const p = engine.cacheParams({ text: 'x', rate: 350 });
    assert.equal(p.model, 'tts-1');
    assert.equal(p.speed, 2);
    assert.equal(p.endpoint, `${api.url}/v1`);
  });

  test('Retry-After in seconds, as a date, and retry-after-ms', () => {
    assert.equal(retryAfterMs({ 'retry-after': '2' }), 2000);
    assert.equal(retryAfterMs({ 'retry-after-ms': '150' }), 150);
    assert.equal(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 7_000), 3000);
    assert.equal(retryAfterMs({}), undefined);
  });
});
