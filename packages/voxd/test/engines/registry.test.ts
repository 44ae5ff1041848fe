import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createCache } from '../../src/audio/cache.js';
import { createEngineRegistry, type EngineRegistryOptions } from '../../src/engines/registry.js';
import type { FakeApi } from '../fixtures/fake-api.js';
import { FAKE_ELEVEN_KEY, startFakeElevenLabs } from '../fixtures/fake-elevenlabs.js';
import { FAKE_OPENAI_KEY, startFakeOpenAI } from '../fixtures/fake-openai.js';
import { collect, SineEngine } from '../fixtures/sine-engine.js';

const FAST = { headersTimeoutMs: 1000, bodyIdleTimeoutMs: 1000, backoffMs: 1, maxBackoffMs: 10, retries: 1 };
const dirs: string[] = [];

describe('engine registry', () => {
  let openai: FakeApi;
  let eleven: FakeApi;
  let warnings: Array<{ obj: object; msg?: string }>;
  const registries: Array<{ close(): Promise<void> }> = [];

  before(async () => {
    openai = await startFakeOpenAI();
    eleven = await startFakeElevenLabs();
  });
  after(async () => {
    for (const r of registries) await r.close();
    await openai.close();
    await eleven.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    warnings = [];
    for (const api of [openai, eleven]) {
      api.requests.length = 0;
      api.script.length = 0;
      api.defaultReply = { kind: 'audio' };
    }
  });

  function home(): string {
    const d = mkdtempSync(join(tmpdir(), 'vox-registry-'));
    dirs.push(d);
    return d;
  }

  /** A registry with no system engine on PATH, cloud engines pointed at the fakes. */
  function make(env: NodeJS.ProcessEnv = {}, extra: Partial<EngineRegistryOptions> = {}) {
    const embedded = new SineEngine();
    const registry = createEngineRegistry({
      env: { PATH: '/nonexistent', OPENAI_BASE_URL: `${openai.url}/v1`, ELEVENLABS_BASE_URL: eleven.url, ...env },
      home: home(),
      embedded,
      log: { warn: (obj, msg) => warnings.push({ obj, ...(msg ? { msg } : {}) }), info: () => {} },
      platform: 'linux',
      http: FAST,
      ...extra,
    });
    registries.push(registry);
    return { registry, embedded };
  }

  test('knows every engine by name', () => {
    const { registry, embedded } = make();
    assert.deepEqual(registry.names(), ['elevenlabs', 'openai', 'espeak-ng', 'say', 'sherpa', 'espeak']);
    assert.equal(registry.get('espeak'), embedded);
    assert.equal(registry.get('openai')?.name, 'openai');
    assert.equal(registry.get('nope'), undefined);
  });

  test('an unknown engine is VOX_ERR_ENGINE_UNKNOWN', async () => {
    const { registry } = make();
    await assert.rejects(registry.resolve('festival'), (err: { code?: string; message: string }) => {
      assert.equal(err.code, 'VOX_ERR_ENGINE_UNKNOWN');
      assert.match(err.message, /"festival".*elevenlabs, openai, espeak-ng, say, sherpa, espeak, auto/);
      return true;
    });
    await assert.rejects(registry.synthesize({ engine: 'festival', text: 'x' }), { code: 'VOX_ERR_ENGINE_UNKNOWN' });
    await assert.rejects(registry.voices('festival'), { code: 'VOX_ERR_ENGINE_UNKNOWN' });
  });

  test('automatic order: elevenlabs, openai, system, embedded', async () => {
    assert.equal((await make().registry.resolve()).name, 'espeak');
    assert.equal((await make({ OPENAI_API_KEY: 'k' }).registry.resolve('auto')).name, 'openai');
    assert.equal((await make({ OPENAI_API_KEY: 'k', ELEVENLABS_API_KEY: 'k' }).registry.resolve()).name, 'elevenlabs');
    // A named engine is returned even when not ready (synthesize falls back and says why).
    assert.equal((await make().registry.resolve('openai')).name, 'openai');
  });

  test('the system engine is espeak-ng when installed, say on macOS', async () => {
    const withPath = make({ PATH: process.env.PATH });
    const sys = await withPath.registry.get('espeak-ng')!.ready();
    assert.equal((await withPath.registry.resolve()).name, sys.ready ? 'espeak-ng' : 'espeak');
    // On "darwin" without a say binary on PATH, say is skipped.
    const mac = make({}, { platform: 'darwin' });
    assert.equal((await mac.registry.resolve()).name, 'espeak');
  });

  test('a failing cloud engine (401) falls back to the embedded engine and says why', async () => {
    const { registry, embedded } = make({ OPENAI_API_KEY: 'sk-wrong-0123456789abcdef' });
    const r = await registry.synthesize({
      engine: 'auto',
      text: 'Deploy done [alert] [serious]',
      voice: 'nova',
      model: 'tts-1',
      rate: 200,
    });
    assert.equal(r.engine, 'espeak');
    assert.equal(r.cached, false);
    assert.match(r.fallbackReason!, /^openai: 401 unauthorized.*\(check OPENAI_API_KEY\)$/);
    assert.ok(!r.fallbackReason!.includes('sk-wrong-0123456789abcdef'));
    assert.ok((await collect(r.synthesis.chunks)).length > 0);
    // Tags are stripped, the cloud voice and model dropped, the rate kept.
    assert.equal(embedded.requests.length, 1);
    assert.equal(embedded.requests[0]!.text, 'Deploy done');
    assert.equal(embedded.requests[0]!.voice, undefined);
    assert.equal(embedded.requests[0]!.model, undefined);
    assert.equal(embedded.requests[0]!.rate, 200);
    assert.equal(warnings.length, 1);
    assert.ok(!JSON.stringify(warnings).includes('sk-wrong'));
  });

  test('429 after retries, 500 and a timeout all fall back', async () => {
    const { registry } = make({ ELEVENLABS_API_KEY: FAKE_ELEVEN_KEY });
    eleven.defaultReply = {
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '0' },
      body: { detail: { status: 'quota_exceeded', message: 'quota exceeded' } },
    };
    let r = await registry.synthesize({ engine: 'elevenlabs', text: 'a' });
    assert.equal(r.engine, 'espeak');
    assert.match(r.fallbackReason!, /^elevenlabs: 429 rate limited or out of quota after 2 attempts: quota exceeded$/);

    eleven.defaultReply = { kind: 'error', status: 500 };
    r = await registry.synthesize({ engine: 'elevenlabs', text: 'b' });
    assert.match(r.fallbackReason!, /^elevenlabs: 500 server error/);

    eleven.defaultReply = { kind: 'hang' };
    r = await registry.synthesize({ engine: 'elevenlabs', text: 'c' });
    assert.equal(r.engine, 'espeak');
    assert.match(r.fallbackReason!, /^elevenlabs: no response within 1000 ms$/);
  });

  test('429 then success needs no fallback', async () => {
    const { registry } = make({ OPENAI_API_KEY: FAKE_OPENAI_KEY });
    openai.script.push({ kind: 'error', status: 429, headers: { 'retry-after': '0' } });
    const r = await registry.synthesize({ engine: 'openai', text: 'ok' });
    assert.equal(r.engine, 'openai');
    assert.equal(r.fallbackReason, undefined);
    assert.deepEqual(await collect(r.synthesis.chunks), openai.audio());
  });

  test('a named engine that is not ready falls back and says why', async () => {
    const { registry } = make();
    const r = await registry.synthesize({ engine: 'openai', text: 'x' });
    assert.equal(r.engine, 'espeak');
    assert.match(r.fallbackReason!, /^openai: not ready \(OPENAI_API_KEY is not set/);
    assert.equal(openai.requests.length, 0);
  });

  test('a failure after audio started is rethrown, not papered over', async () => {
    const { registry, embedded } = make({ OPENAI_API_KEY: FAKE_OPENAI_KEY });
    openai.defaultReply = { kind: 'cut', bytes: 3000 };
    const r = await registry.synthesize({ engine: 'openai', text: 'x' });
    assert.equal(r.engine, 'openai');
    await assert.rejects(collect(r.synthesis.chunks));
    assert.equal(embedded.requests.length, 0);
  });

  test('the embedded engine failing is an error, with both reasons', async () => {
    const { registry, embedded } = make({ OPENAI_API_KEY: 'sk-wrong-key-xxxxxxxx' });
    embedded.fail = 'before-audio';
    await assert.rejects(
      registry.synthesize({ engine: 'openai', text: 'x' }),
      (err: { code?: string; message: string }) => {
        assert.equal(err.code, 'VOX_ERR_SYNTHESIS_FAILED');
        assert.match(err.message, /^openai: 401 unauthorized.*the fallback espeak failed too: sine engine broken/);
        return true;
      },
    );
    await assert.rejects(registry.synthesize({ engine: 'espeak', text: 'x' }), /sine engine broken/);
  });

  test('an aborted request does not fall back', async () => {
    const { registry, embedded } = make({ OPENAI_API_KEY: FAKE_OPENAI_KEY });
    openai.defaultReply = { kind: 'hang' };
    const ac = new AbortController();
    const p = registry.synthesize({ engine: 'openai', text: 'x', signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await assert.rejects(p);
    assert.equal(embedded.requests.length, 0);
  });

  test('the same request is served from the cache; a changed rate, model or voice is not', async () => {
    const { registry, embedded } = make({ OPENAI_API_KEY: FAKE_OPENAI_KEY });
    const req = { engine: 'openai', text: 'Tests pass.', voice: 'nova', rate: 175, model: 'tts-1' };
    const first = await registry.synthesize(req);
    const pcm = await collect(first.synthesis.chunks);
    assert.equal(first.cached, false);
    await registry.close(); // waits for the cache write
    registries.pop();

    const again = createEngineRegistry({
      env: { PATH: '/nonexistent', OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: FAKE_OPENAI_KEY },
      home: dirs.at(-1)!,
      embedded,
      http: FAST,
      platform: 'linux',
    });
    registries.push(again);
    const hit = await again.synthesize(req);
    assert.equal(hit.cached, true);
    assert.equal(hit.engine, 'openai');
    assert.deepEqual(hit.synthesis.format, { sampleRate: 24000, channels: 1, bitDepth: 16 });
    assert.deepEqual(await collect(hit.synthesis.chunks), pcm);
    assert.equal(openai.requests.length, 1, 'no second API call');

    for (const change of [{ rate: 200 }, { model: 'gpt-4o-mini-tts' }, { voice: 'echo' }]) {
      const miss = await again.synthesize({ ...req, ...change });
      assert.equal(miss.cached, false, JSON.stringify(change));
      await collect(miss.synthesis.chunks);
    }
    assert.equal(openai.requests.length, 4);
  });

  test('a request with its own apiKey is never cached, and the key goes only to the named cloud engine', async () => {
    const h = home();
    const embedded = new SineEngine();
    const cache = createCache({ dir: join(h, 'cache') });
    const registry = createEngineRegistry({
      env: { PATH: '/nonexistent', OPENAI_BASE_URL: `${openai.url}/v1` },
      home: h,
      embedded,
      cache,
      http: FAST,
      platform: 'linux',
    });
    registries.push(registry);

    for (let i = 0; i < 2; i++) {
      const r = await registry.synthesize({ engine: 'openai', text: 'mine', apiKey: FAKE_OPENAI_KEY });
      assert.equal(r.engine, 'openai');
      assert.equal(r.cached, false);
      await collect(r.synthesis.chunks);
    }
    assert.equal(openai.requests.length, 2);
    assert.equal(openai.requests[0]!.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);

    // With `auto` the key has no named owner: it is not sent anywhere.
    const auto = await registry.synthesize({ engine: 'auto', text: 'mine', apiKey: FAKE_OPENAI_KEY });
    assert.equal(auto.engine, 'espeak');
    await collect(auto.synthesis.chunks);
    assert.equal(openai.requests.length, 2);

    await registry.close();
    assert.equal((await cache.stats()).entries, 0);
    assert.deepEqual(
      readdirSync(join(h, 'cache')).filter((f) => f.endsWith('.vox')),
      [],
    );
  });

  test('a bad request key falls back, pointing at the request key, not the env var', async () => {
    const { registry } = make();
    const r = await registry.synthesize({ engine: 'openai', text: 'x', apiKey: 'sk-bad-request-key-123456' });
    assert.equal(r.engine, 'espeak');
    assert.match(r.fallbackReason!, /apiKey sent with the request/);
    assert.ok(!r.fallbackReason!.includes('sk-bad-request-key-123456'));
  });

  test('an aborted or abandoned synthesis is not cached', async () => {
    const h = home();
    const embedded = new SineEngine();
    const cache = createCache({ dir: join(h, 'cache') });
    const registry = createEngineRegistry({
      env: { PATH: '/nonexistent' },
      home: h,
      embedded,
      cache,
      platform: 'linux',
    });
    registries.push(registry);
    const ac = new AbortController();
    const r = await registry.synthesize({
      engine: 'espeak',
      text: 'long enough to have several chunks',
      signal: ac.signal,
    });
    await assert.rejects(async () => {
      for await (const _ of r.synthesis.chunks) ac.abort();
    }, /abort/);
    const r2 = await registry.synthesize({ engine: 'espeak', text: 'another long text with several chunks' });
    for await (const _ of r2.synthesis.chunks) break;
    await registry.close();
    assert.equal((await cache.stats()).entries, 0);
  });

  test('tags are kept for an engine that performs them', async () => {
    const { registry } = make({ ELEVENLABS_API_KEY: FAKE_ELEVEN_KEY });
    await collect(
      (await registry.synthesize({ engine: 'elevenlabs', model: 'eleven_v3', text: 'Yes! [excited]' })).synthesis
        .chunks,
    );
    // The text comes prepared for the engine (text/cleanup.ts strips tags it does not perform); only a fallback strips them here.
    const texts = eleven.requests.filter((r) => r.method === 'POST').map((r) => r.json?.text);
    assert.deepEqual(texts, ['Yes! [excited]']);
  });

  test('voices of a named engine, or of the automatic one', async () => {
    const { registry } = make();
    assert.deepEqual(
      (await registry.voices()).map((v) => v.id),
      ['low', 'high'],
    );
    assert.equal((await registry.voices('openai'))[0]!.engine, 'openai');
  });

  test('keys.env with a wide mode is logged as a warning without the key', async () => {
    const { writeFileSync, chmodSync } = await import('node:fs');
    const h = home();
    writeFileSync(join(h, 'keys.env'), `OPENAI_API_KEY=${FAKE_OPENAI_KEY}\n`);
    chmodSync(join(h, 'keys.env'), 0o644);
    const logged: string[] = [];
    const registry = createEngineRegistry({
      env: { PATH: '/nonexistent', OPENAI_BASE_URL: `${openai.url}/v1` },
      home: h,
      embedded: new SineEngine(),
      cache: false,
      platform: 'linux',
      log: { warn: (o, m) => logged.push(JSON.stringify(o) + (m ?? '')), info: () => {} },
    });
    registries.push(registry);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /chmod 600/);
    assert.ok(!logged[0]!.includes(FAKE_OPENAI_KEY));
    assert.equal((await registry.resolve()).name, 'openai');
  });

  test('close() closes every engine once, and twice is harmless', async () => {
    const { registry, embedded } = make();
    await registry.close();
    await registry.close();
    assert.equal(embedded.closed, 1);
  });
});
