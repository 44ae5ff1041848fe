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
import { FIXTURES, removeDir, startDaemon, tempDir, vox, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { needTool } from '../helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { WORD, writeSyntheticRecognizer } from '../../scripts/synthetic-recognizer.mjs';

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
  d = await startDaemon({
    home: dir,
    env: { VOXD_RECORDER: SHIM, VOX_TEST_MIC_CONTROL: join(dir, 'mic.json'), VOXD_TRANSCRIBER_URL: api.url },
  });
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

  test('vox listen says which transcriber made the transcript (stderr; stdout is the words), and vox status which a listen would use', async () => {
    const plain = await vox(['listen', '--silence', '700', '--no-prompt'], { env: d.env });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, `${WORD}\n`);
    assert.match(plain.stderr, /^vox listen: transcribed by local synthetic-asr \(nemo_ctc\) in \d+ ms$/m);
    const status = await vox(['status'], { env: d.env });
    assert.match(
      status.stdout,
      /^stt: {4}local synthetic-asr \(nemo_ctc\) \(transcriber\.kind auto\)$/m,
      status.stdout,
    );
    const json = (await d.api('GET', '/v1/status')).body;
    assert.deepEqual(json.transcriber, { kind: 'auto', using: 'local synthetic-asr (nemo_ctc)' });
  });

  test('a damaged model is an error naming it, with the recording kept; without one, auto uses the server again', async () => {
    writeFileSync(join(model, 'vox-asr.json'), '{"format": 1, "type": "whisper", "files": {}}');
    const bad = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(bad.status, 503, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'VOX_ERR_RECOGNIZER_UNAVAILABLE');
    assert.match(
      bad.body.message,
      /^The local recognizer cannot run: model synthetic-asr is damaged: .*vox-asr\.json: files\.encoder must be a path inside /,
      'a whisper model needs its encoder',
    );
    assert.match(
      bad.body.message,
      /To fix: install it again: "vox voices install synthetic-asr --force" \(offline: "vox voices install synthetic-asr --force --from FILE", the archive fetched elsewhere\), or remove .*synthetic-asr; the recording is kept/,
    );
    assert.doesNotMatch(bad.body.message, /transcriber\.url/, "the server's fix is no help here");
    const status = (await d.api('GET', '/v1/status')).body;
    assert.equal(status.transcriber.using, null);
    assert.match(
      status.transcriber.problem,
      /^model synthetic-asr is damaged: .*; to fix: install it again: "vox voices install synthetic-asr --force"/,
    );
    writeFileSync(join(model, 'vox-asr.json'), '{"format": 1, "type": "conformer", "files": {}}');
    const other = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(other.status, 503, JSON.stringify(other.body));
    assert.match(
      other.body.message,
      /type "conformer" is not one voxd runs \(nemo_ctc, whisper, moonshine\)\. To fix: remove /,
    );
    assert.ok(existsSync(bad.body.audioPath), 'the recording is kept');
    renameSync(join(dir, 'asr'), join(dir, 'asr.away'));
    api.mode = { kind: 'ok', text: 'from the server' };
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.text, 'from the server');
    assert.equal(api.received.length, 1);
    assert.equal(r.body.transcriber, `server ${api.url}/audio/transcriptions`);
    const later = await vox(['status'], { env: d.env });
    assert.match(
      later.stdout,
      new RegExp(
        `^stt: {4}server ${api.url.replace(/[.]/g, '\\.')}/audio/transcriptions \\(transcriber\\.kind auto\\)$`,
        'm',
      ),
      later.stdout,
    );
  });
});
