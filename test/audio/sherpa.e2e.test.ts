/**
 * The sherpa engine end to end: the real voxd loads a voice model that the test
 * generates (scripts/synthetic-voice.mjs: a VITS-format ONNX graph with the
 * metadata and tokens sherpa-onnx expects) through the real sherpa-onnx-node,
 * and speaks into the file sink. Also: selection (auto order, a project voice
 * naming a speaker), a damaged model, and sherpa-onnx missing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, removeDir, startDaemon, tempDir, VOX, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { wavStats } from '../helpers/wav.js';
import { expectedSamples, HOP, SAMPLE_RATE, writeSyntheticVoice } from '../../scripts/synthetic-voice.mjs';

function homeWithModel(options: { speakers?: number; name?: string } = {}): { home: string; dir: string } {
  const home = tempDir('vox-sherpa-');
  const dir = writeSyntheticVoice(join(home, 'models'), { installed: true, ...options }) as string;
  return { home, dir };
}

test(
  'an installed model speaks through sherpa-onnx into the file sink: non-silent, as long as its tokens',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const { home } = homeWithModel();
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'auto' } });
    try {
      const voices = await d.api('GET', '/v1/voices');
      assert.equal(voices.body.engine, 'sherpa', 'auto puts an installed model before eSpeak');
      assert.deepEqual(
        voices.body.voices.map((v: { id: string }) => v.id),
        ['synthetic'],
      );
      const text = 'Hello world. This is the synthetic voice!';
      const r = await d.api('POST', '/v1/speak', { text, wait: true });
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.equal(r.body.engine, 'sherpa');
      assert.equal(r.body.fallbackReason, undefined);
      const [wav] = d.wavs();
      const stats = wavStats(wav!);
      assert.equal(stats.sampleRate, SAMPLE_RATE, 'the model metadata sets the rate');
      // voxd speaks sentence by sentence: the space between them is not rendered.
      const expected = expectedSamples('Hello world.') + expectedSamples('This is the synthetic voice!');
      assert.equal(stats.frames, expected, `${HOP} samples per character`);
      assert.ok(stats.rms > 0.2, `not silence (rms ${stats.rms})`);
      // A faster rate renders fewer samples (speed = rate / 175 wpm).
      const fast = await d.api('POST', '/v1/speak', { text: 'Quickly now.', rate: 350, wait: true });
      assert.equal(fast.body.status, 'played');
      assert.equal(wavStats(d.wavs()[1]!).frames, expectedSamples('Quickly now.', 2));
      const status = await d.api('GET', '/v1/status');
      assert.deepEqual(status.body.engine, { name: 'sherpa', ready: true });
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test(
  'the first sentence of a playback is rendered as its first phrase and then the rest; the sentences after it whole',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const { home } = homeWithModel();
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'auto' } });
    try {
      const first = 'The build finished and all the tests passed on the main branch today.';
      const second = 'Three services went out to staging, and the smoke tests run right now.';
      const r = await d.api('POST', '/v1/speak', { text: `${first} ${second}`, wait: true });
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.equal(r.body.engine, 'sherpa');
      // Two renders lose the space between the phrase and the rest: one HOP fewer than the sentence whole.
      const expected =
        expectedSamples('The build finished') +
        expectedSamples('and all the tests passed on the main branch today.') +
        expectedSamples(second);
      assert.equal(wavStats(d.wavs()[0]!).frames, expected);
      assert.equal(expected, expectedSamples(first) + expectedSamples(second) - HOP);
      // A recording is not a playback: nothing waits on its first chunk, so it renders whole.
      const rec = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: first, engine: 'sherpa' }),
      });
      assert.equal(rec.status, 200);
      assert.equal(rec.headers.get('x-vox-engine'), 'sherpa');
      assert.equal(wavStats(Buffer.from(await rec.arrayBuffer())).frames, expectedSamples(first));
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test(
  'a voice names a speaker of a model; auto takes sherpa for it and eSpeak for its own voices; vox voices lists the speakers',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const { home } = homeWithModel({ speakers: 2, name: 'tones' });
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'auto' } });
    try {
      const out = spawnSync(process.execPath, [VOX, 'voices'], {
        env: cleanEnv(home, { VOXD_PORT: String(d.port) }),
        encoding: 'utf8',
      });
      assert.equal(out.status, 0, out.stderr);
      assert.match(out.stdout, /^tones:tone1\s+Synthetic tone 1/m);
      assert.match(out.stdout, /^tones:tone2\s+Synthetic tone 2/m);
      const a = await d.api('POST', '/v1/speak', { text: 'Speaker one.', voice: 'tones:tone1', wait: true });
      const b = await d.api('POST', '/v1/speak', { text: 'Speaker two.', voice: 'tone2', wait: true });
      assert.equal(a.body.engine, 'sherpa');
      assert.equal(b.body.engine, 'sherpa', 'a bare speaker name is found in any model');
      const [wa, wb] = d.wavs().map((f) => readFileSync(f));
      assert.equal(wavStats(wa!).frames, wavStats(wb!).frames);
      assert.notDeepEqual(wa!.subarray(44), wb!.subarray(44), 'two speakers, two voices');
      // A voice the model does not have stays with eSpeak, with no fallback to explain.
      const e = await d.api('POST', '/v1/speak', { text: 'An eSpeak voice.', voice: 'en-gb', wait: true });
      assert.equal(e.body.status, 'played');
      assert.match(e.body.engine, /^espeak/);
      assert.equal(e.body.fallbackReason, undefined);
      // Named explicitly with a speaker no model has: refused at once, as every engine's unknown voice is.
      const u = await d.api('POST', '/v1/speak', {
        text: 'No such speaker.',
        engine: 'sherpa',
        voice: 'tones:nobody',
        wait: true,
      });
      assert.equal(u.status, 400, JSON.stringify(u.body));
      assert.equal(u.body.code, 'VOX_ERR_VOICE_UNKNOWN');
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test('with no model installed, eSpeak stays the automatic engine and sherpa says why it is not ready', async () => {
  const home = tempDir('vox-sherpa-none-');
  const d = await startDaemon({ home, env: { VOXD_ENGINE: 'auto' } });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Plain eSpeak.', wait: true });
    assert.equal(r.body.status, 'played');
    assert.match(r.body.engine, /^espeak/);
    const s = await d.api('POST', '/v1/speak', { text: 'Asked for sherpa.', engine: 'sherpa', wait: true });
    assert.equal(s.body.engine, 'espeak');
    // (Without sherpa-onnx-node, that is the reason given first.)
    assert.match(
      s.body.fallbackReason,
      needTool('sherpa-onnx')
        ? /sherpa: not ready \(sherpa-onnx-node is not installed/
        : /sherpa: not ready \(no voice model is installed \("vox voices install NAME"/,
    );
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test('sherpa-onnx absent (an optional dependency that failed to install): ready() false with the reason, eSpeak speaks', async () => {
  const { home } = homeWithModel();
  const d = await startDaemon({
    home,
    env: { VOXD_ENGINE: 'sherpa', VOXD_SHERPA_MODULE: 'sherpa-onnx-node-not-installed' },
  });
  try {
    const status = await d.api('GET', '/v1/status');
    assert.equal(status.body.engine.ready, false);
    assert.match(status.body.engine.reason, /sherpa-onnx-node-not-installed is not installed \(an optional dependency/);
    const r = await d.api('POST', '/v1/speak', { text: 'Still spoken.', wait: true });
    assert.equal(r.body.status, 'played');
    assert.equal(r.body.engine, 'espeak');
    assert.match(r.body.fallbackReason, /not installed/);
    assert.ok(wavStats(d.wavs()[0]!).rms > 0.01);
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test(
  'a damaged model is never loaded half-way: a short file is refused by name, a corrupt one costs only its host process',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const { home, dir } = homeWithModel();
    const model = join(dir, 'model.onnx');
    const size = statSync(model).size;
    truncateSync(model, size - 100);
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'sherpa' } });
    try {
      let status = await d.api('GET', '/v1/status');
      assert.equal(status.body.engine.ready, false);
      assert.match(
        status.body.engine.reason,
        new RegExp(`model synthetic is not usable: file model.onnx is ${size - 100} bytes, ${size} expected`),
      );
      assert.match(status.body.engine.reason, /vox voices install synthetic --force/);
      // Same size, garbage bytes: passes the size check, and sherpa-onnx aborts loading it. voxd does not.
      writeFileSync(model, Buffer.alloc(size, 7));
      const r = await d.api('POST', '/v1/speak', { text: 'Corrupt model.', wait: true });
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.equal(r.body.engine, 'espeak');
      assert.match(
        r.body.fallbackReason,
        /model synthetic failed to load: (Load model from model\.onnx failed:Protobuf parsing failed|crashed \(SIGABRT\))/,
      );
      assert.doesNotMatch(r.body.fallbackReason, /\/models\//, 'paths are given inside the model');
      status = await d.api('GET', '/v1/status');
      assert.match(status.body.engine.reason, /model synthetic failed to load/);
      assert.equal(d.proc.exitCode, null, 'voxd still runs');
      // Reinstalled (a new manifest): loaded again, and spoken by sherpa.
      rmSync(dir, { recursive: true });
      writeSyntheticVoice(join(home, 'models'), { installed: true });
      const again = await d.api('POST', '/v1/speak', { text: 'Whole again.', wait: true });
      assert.equal(again.body.status, 'played', JSON.stringify(again.body));
      assert.equal(again.body.engine, 'sherpa', JSON.stringify(again.body));
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test(
  'a stop cuts sherpa mid-utterance, and the model host goes on serving the next request',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const home = tempDir('vox-sherpa-stop-');
    // Dense layers make each sentence take real time to render, as a real model's does.
    writeSyntheticVoice(join(home, 'models'), { installed: true, work: 300 });
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'sherpa' } });
    try {
      const long = Array.from(
        { length: 12 },
        (_, i) => `This is sentence number ${i + 1} of a long report that nobody wants to hear to the end.`,
      ).join(' ');
      const accepted = await d.api('POST', '/v1/speak', { text: long });
      assert.equal(accepted.body.status, 'queued');
      await waitFor(
        async () => ((await d.api('GET', '/v1/status')).body.playing?.id === accepted.body.id ? true : undefined),
        30_000,
        'the long text to play',
      );
      const stop = await d.api('POST', '/v1/stop', { scope: 'all' });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const history = await waitFor(
        async () => {
          const h = (await d.api('GET', '/v1/status')).body.history.find(
            (e: { id: string }) => e.id === accepted.body.id,
          );
          return h?.outcome && h.outcome !== 'playing' ? h : undefined;
        },
        30_000,
        'the stopped utterance to settle',
      );
      assert.equal(history.outcome, 'stopped');
      const next = await d.api('POST', '/v1/speak', { text: 'After the stop.', wait: true });
      assert.equal(next.body.status, 'played', JSON.stringify(next.body));
      assert.equal(next.body.engine, 'sherpa');
      assert.equal(next.body.fallbackReason, undefined);
      const wavs = d.wavs();
      assert.equal(wavStats(wavs[wavs.length - 1]!).frames, expectedSamples('After the stop.'));
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);
