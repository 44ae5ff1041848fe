/**
 * Engines through the real voxd: a cloud engine against a real HTTP server on
 * 127.0.0.1 that speaks OpenAI's API, the fallback to the embedded voice when
 * it fails, recording with POST /v1/synthesize and `vox say --out`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeOpenAI, FAKE_OPENAI_KEY } from '../../packages/voxd/test/fixtures/fake-openai.js';
import type { FakeApi } from '../../packages/voxd/test/fixtures/fake-api.js';
import { http, removeDir, startDaemon, tempDir, vox, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

describe('cloud engine, fallback and recording', () => {
  let api: FakeApi;
  let d: Daemon;
  before(async () => {
    api = await startFakeOpenAI();
    d = await startDaemon({ env: { OPENAI_API_KEY: FAKE_OPENAI_KEY, OPENAI_BASE_URL: `${api.url}/v1` } });
  });
  after(async () => {
    await d.stop();
    await api.close();
    removeDir(d.home);
  });

  test('a request for openai is synthesized by the API and played at its 24 kHz', async () => {
    api.script = [{ kind: 'audio', ms: 800 }];
    const before = d.wavs().length;
    const r = await d.api('POST', '/v1/speak', {
      text: 'Hello from the cloud [excited].',
      engine: 'openai',
      voice: 'nova',
      wait: true,
    });
    assert.equal(r.body.status, 'played');
    assert.equal(r.body.engine, 'openai');
    const sent = api.requests.at(-1)!;
    assert.equal(sent.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
    assert.equal(sent.json?.voice, 'nova');
    assert.equal(sent.json?.input, 'Hello from the cloud.', 'tags are stripped for a model that would read them');
    const wav = d.wavs().at(-1)!;
    assert.equal(d.wavs().length, before + 1);
    const stats = wavStats(wav);
    assert.equal(stats.sampleRate, 24000);
    assert.ok(stats.durationMs > 700 && stats.rms > 0.01);
  });

  test('when the cloud engine fails, the embedded voice speaks and status says why', async () => {
    api.script = [
      { kind: 'error', status: 500, body: { error: { message: 'upstream exploded' } } },
      { kind: 'error', status: 500 },
      { kind: 'error', status: 500 },
    ];
    const r = await d.api('POST', '/v1/speak', {
      text: 'The cloud is down but you still hear this.',
      engine: 'openai',
      wait: true,
    });
    assert.equal(r.body.status, 'played');
    assert.equal(r.body.engine, 'espeak');
    assert.match(r.body.fallbackReason, /openai: 500/);
    const s = await d.api('GET', '/v1/status');
    const h = s.body.history.find((e: any) => e.id === r.body.id);
    assert.equal(h.engine, 'espeak');
    assert.match(h.fallbackReason, /openai/);
    assert.ok(wavStats(d.wavs().at(-1)!).rms > 0.01, 'the fallback really spoke');
    const logs = readdirSync(join(d.home, 'logs'))
      .map((f) => readFileSync(join(d.home, 'logs', f), 'utf8'))
      .join('\n');
    assert.ok(!logs.includes(FAKE_OPENAI_KEY), 'the key never reaches the log');
    assert.ok(!JSON.stringify(s.body).includes(FAKE_OPENAI_KEY), 'nor the status');
  });

  test('a wrong key falls back too, and the key is never echoed', async () => {
    api.script = [];
    const r = await d.api('POST', '/v1/speak', {
      text: 'Wrong key test.',
      engine: 'openai',
      apiKey: 'sk-wrong-key-which-is-secret',
      wait: true,
    });
    assert.equal(r.body.engine, 'espeak');
    assert.match(r.body.fallbackReason, /401/);
    assert.ok(!JSON.stringify(r.body).includes('sk-wrong-key-which-is-secret'));
  });

  test('POST /v1/synthesize returns the WAV without playing it', async () => {
    const before = d.wavs().length;
    const res = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Recorded, not played. Two sentences.', engine: 'espeak' }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    assert.equal(res.headers.get('x-vox-engine'), 'espeak');
    const stats = wavStats(Buffer.from(await res.arrayBuffer()));
    assert.ok(stats.durationMs > 1000 && stats.rms > 0.01);
    assert.equal(d.wavs().length, before, 'nothing was played');
  });

  test('vox say --out FILE.wav saves the audio, relative to the working directory', async (t) => {
    const dir = tempDir('vox-out-');
    t.after(() => removeDir(dir));
    mkdirSync(join(dir, 'clips'));
    const r = await vox(['say', '--engine', 'espeak', '--out', 'clips/hello.wav', 'Hello, saved to a file.'], {
      env: d.env,
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    const stats = wavStats(join(dir, 'clips', 'hello.wav'));
    assert.ok(stats.durationMs > 500 && stats.rms > 0.01);
  });

  test('voices per engine over HTTP and through vox voices --engine', async () => {
    const r = await d.api('GET', '/v1/voices?engine=openai');
    assert.equal(r.body.engine, 'openai');
    assert.ok(r.body.voices.some((v: any) => v.id === 'nova'));
    const cli = await vox(['voices', '--engine', 'openai'], { env: d.env });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /nova/);
    const bad = await http(d.port, 'GET', '/v1/voices?engine=nope', { token: d.token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VOX_ERR_ENGINE_UNKNOWN');
  });
});
