/**
 * The local recognizer in the real voxd: the synthetic NeMo CTC model
 * (scripts/synthetic-recognizer.mjs; it decodes each utterance it hears to
 * "heard", silence to nothing) installed in VOX_HOME/asr, run by
 * sherpa-onnx-node on what the recorder shim played. `transcriber.kind: auto`
 * prefers it to the server (a real stand-in on 127.0.0.1, which then gets
 * nothing), and falls back to the server once it is gone, without a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, removeDir, startDaemon, tempDir, type Daemon } from './helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from './helpers/transcription-api.js';
import { needTool } from './helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { WORD, writeSyntheticRecognizer } from '../scripts/synthetic-recognizer.mjs';

const SHIM = join(FIXTURES, 'listen', 'arecord');
const skip = needTool('sherpa-onnx');

let api: TranscriptionApi;
let d: Daemon;
let dir: string;
let model: string;

before(async () => {
  if (skip) return;
  api = await startTranscriptionApi();
  dir = tempDir('vox-asr-');
  model = writeSyntheticRecognizer(join(dir, 'asr'));
  writeFileSync(join(dir, 'mic.json'), '{}');
  d = await startDaemon({ home: dir, env: { VOXD_RECORDER: SHIM, VOX_TEST_MIC_CONTROL: join(dir, 'mic.json'), VOXD_TRANSCRIBER_URL: api.url } });
});
after(async () => {
  await d?.stop();
  await api?.close();
  if (dir) removeDir(dir);
});

describe('transcriber.kind: auto with a local model', { skip }, () => {
  test('the recording is transcribed in voxd by the installed model; the server gets nothing', async () => {
    api.mode = { kind: 'ok', text: 'from the server' };
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'silence');
    assert.equal(r.body.transcribed, true);
    assert.equal(r.body.text, WORD);
    assert.equal(typeof r.body.transcribeMs, 'number');
    assert.equal(api.received.length, 0);
  });

  test('a damaged model is an error naming it, with the recording kept; without one, auto uses the server again', async () => {
    writeFileSync(join(model, 'vox-asr.json'), '{"format": 1, "type": "whisper", "files": {}}');
    const bad = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(bad.status, 502, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
    assert.match(bad.body.message, /the local recognizer: .*vox-asr\.json: files\.encoder must be a path inside /, 'a whisper model needs its encoder');
    writeFileSync(join(model, 'vox-asr.json'), '{"format": 1, "type": "conformer", "files": {}}');
    const other = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(other.status, 502, JSON.stringify(other.body));
    assert.match(other.body.message, /type "conformer" is not one voxd runs \(nemo_ctc, whisper, moonshine\)/);
    assert.ok(existsSync(bad.body.audioPath), 'the recording is kept');
    renameSync(join(dir, 'asr'), join(dir, 'asr.away'));
    api.mode = { kind: 'ok', text: 'from the server' };
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.text, 'from the server');
    assert.equal(api.received.length, 1);
  });
});
