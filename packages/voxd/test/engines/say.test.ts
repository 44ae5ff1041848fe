import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseSayVoices, SayEngine } from '../../src/engines/say.js';
import { collect } from '../fixtures/sine-engine.js';

// A stand-in `say` (a node script) lets the engine run on any OS.
const fakeSay = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-say.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'vox-say-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('not ready off macOS, and says so', async () => {
  const engine = new SayEngine({ platform: 'linux' });
  const r = await engine.ready();
  assert.equal(r.ready, false);
  assert.match((r as { reason: string }).reason, /macOS only/);
  assert.deepEqual(await engine.voices(), []);
  await assert.rejects(engine.synthesize({ text: 'x' }), {
    code: 'VOX_ERR_SYNTHESIS_FAILED',
    message: /not available on linux/,
  });
});

test('renders a WAV through say, streams it, and cleans up', async () => {
  const engine = new SayEngine({ platform: 'darwin', bin: fakeSay, tmpDir: tmp });
  assert.deepEqual(await engine.ready(), { ready: true });
  const s = await engine.synthesize({ text: 'hello there', rate: 200, volume: 0.5 });
  assert.deepEqual(s.format, { sampleRate: 22050, channels: 1, bitDepth: 16 });
  const pcm = await collect(s.chunks);
  assert.equal(pcm.length, Math.round(22050 * 11 * 0.01) * 2);
  const peak = Math.max(...Array.from({ length: 500 }, (_, i) => Math.abs(pcm.readInt16LE(i * 2))));
  assert.ok(peak <= 5001 && peak > 4000, `volume 0.5 halves the samples (peak ${peak})`);
  assert.deepEqual(readdirSync(tmp), [], 'temp files removed');
});

test('a failing say rejects with its message and leaves no temp files', async () => {
  const engine = new SayEngine({ platform: 'darwin', bin: fakeSay, tmpDir: tmp });
  await assert.rejects(engine.synthesize({ text: 'x', voice: 'fail' }), {
    code: 'VOX_ERR_SYNTHESIS_FAILED',
    message: /say exited with code 1: Voice `fail' not found/,
  });
  assert.deepEqual(readdirSync(tmp), []);
});

test('voices from say -v ?', async () => {
  const engine = new SayEngine({ platform: 'darwin', bin: fakeSay });
  const voices = await engine.voices();
  assert.deepEqual(
    voices.map((v) => [v.id, v.languages[0]]),
    [
      ['Alex', 'en-US'],
      ['Bad News', 'en-US'],
      ['Amélie', 'fr-CA'],
    ],
  );
  assert.deepEqual(parseSayVoices('garbage\n'), []);
});
