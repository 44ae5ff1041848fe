/**
 * LocalRecognizer on the synthetic NeMo CTC model (scripts/synthetic-recognizer.mjs),
 * run by the real sherpa-onnx-node: speech decodes to its word, silence to
 * nothing, and a manifest is read only as far as it is sound.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findAsrModel, LocalRecognizer } from '../../src/listen/recognizer.js';
import { toWav } from '../../src/audio/wav.js';
import { needTool } from '../../../../test/helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { WORD, writeSyntheticRecognizer } from '../../../../scripts/synthetic-recognizer.mjs';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const skip = needTool('sherpa-onnx');
const FORMAT = { sampleRate: 16_000, channels: 1, bitDepth: 16 } as const;

describe('LocalRecognizer', { skip }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'vox-asr-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  test('nothing installed: not installed, and transcribing says so', async () => {
    const r = new LocalRecognizer({ home, timeoutMs: 5000 });
    assert.equal(r.installed, false);
    await assert.rejects(r.transcribe(toWav(FORMAT, Buffer.alloc(32_000))), /no model is installed/);
  });

  test("the fixture decodes to the model's word, silence to nothing; the loaded model answers the same again", async () => {
    writeSyntheticRecognizer(join(home, 'asr'));
    const r = new LocalRecognizer({ home, timeoutMs: 10_000 });
    assert.equal(r.installed, true);
    const wav = readFileSync(join(ROOT, 'test/fixtures/listen/sentence.wav'));
    const speech = await r.transcribe(wav);
    assert.equal(speech.text, WORD);
    assert.ok(speech.ms >= 0);
    assert.equal((await r.transcribe(toWav(FORMAT, Buffer.alloc(64_000)))).text, '');
    // The same answer from the loaded model.
    assert.equal((await r.transcribe(wav)).text, WORD);
  });

  test('a client that goes away ends the wait at once', async () => {
    const r = new LocalRecognizer({ home, timeoutMs: 10_000 });
    const gone = new AbortController();
    gone.abort();
    await assert.rejects(
      r.transcribe(readFileSync(join(ROOT, 'test/fixtures/listen/sentence.wav')), { signal: gone.signal }),
      /cancelled/,
    );
  });

  test('manifests: a file outside the model directory, a missing file, an unknown type, not JSON, too large', () => {
    const h = mkdtempSync(join(tmpdir(), 'vox-asr-bad-'));
    try {
      const dir = join(h, 'asr', 'm');
      mkdirSync(dir, { recursive: true });
      const put = (m: string) => writeFileSync(join(dir, 'vox-asr.json'), m);
      put(JSON.stringify({ format: 1, type: 'nemo_ctc', files: { model: '../../../etc/passwd', tokens: 't' } }));
      assert.throws(() => findAsrModel(h), /files\.model must be a path inside/);
      put(JSON.stringify({ format: 1, type: 'nemo_ctc', files: { model: 'model.onnx', tokens: 'tokens.txt' } }));
      assert.throws(() => findAsrModel(h), /model\.onnx \(named in .*\) is missing/);
      put(JSON.stringify({ format: 1, type: 'paraformer', files: {} }));
      assert.throws(() => findAsrModel(h), /type "paraformer" is not one voxd runs/);
      put(JSON.stringify({ format: 1, type: 'moonshine', files: {} }));
      assert.throws(() => findAsrModel(h), /files\.preprocessor must be a path inside/);
      put('{');
      assert.throws(() => findAsrModel(h), /is not JSON/);
      put(' '.repeat(65 * 1024));
      assert.throws(() => findAsrModel(h), /over 64 KB/);
      rmSync(join(dir, 'vox-asr.json'));
      assert.equal(findAsrModel(h), undefined, 'a directory without a manifest is not a model');
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});
