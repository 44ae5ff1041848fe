/**
 * Silero VAD in the real voxd: `listen.vad: silero` with the pinned model in
 * VOX_HOME/vad (scripts/ci/silero-vad.sh fetches it from the npm registry and
 * checks it) end-points the recorder shim's fixture and tells noise from
 * speech, where a voxd on `auto` without the model falls back to energy and
 * takes the noise for speech; without its model, `silero` refuses the listen.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES, removeDir, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { inCI, needTool } from '../helpers/tools.js';

const SHIM = join(FIXTURES, 'listen', 'arecord');
const FETCH = fileURLToPath(new URL('../../scripts/ci/silero-vad.sh', import.meta.url));
/** Where the fixture's speech is (scripts/make-listen-fixture.mjs prints it). */
const SPEECH_START_MS = 300;
const SPEECH_MS = 1740;

let skip: string | false = needTool('sherpa-onnx');
if (!skip)
  try {
    execFileSync(FETCH, { stdio: 'ignore' });
  } catch (err) {
    // Under CI the registry is reachable: a model that cannot be had is a failure, not a skip.
    if (inCI()) throw err;
    skip = `the Silero model is not obtainable here: ${(err as Error).message.split('\n')[0]}`;
  }

let api: TranscriptionApi;
let d: Daemon;
let bare: Daemon;
let dir: string;
let bareDir: string;

function micEnv(home: string, vad: string): NodeJS.ProcessEnv {
  return {
    VOXD_RECORDER: SHIM,
    VOX_TEST_MIC_CONTROL: join(home, 'mic.json'),
    VOXD_VAD: vad,
    VOXD_TRANSCRIBER_URL: api.url,
  };
}

before(async () => {
  if (skip) return;
  api = await startTranscriptionApi();
  dir = tempDir('vox-silero-');
  bareDir = tempDir('vox-silero-none-');
  execFileSync(FETCH, [join(dir, 'vad')], { stdio: 'ignore' });
  [d, bare] = await Promise.all([
    startDaemon({ home: dir, env: micEnv(dir, 'silero') }),
    startDaemon({ home: bareDir, env: micEnv(bareDir, 'auto') }),
  ]);
});
after(async () => {
  await d?.stop();
  await bare?.stop();
  await api?.close();
  if (dir) removeDir(dir);
  if (bareDir) removeDir(bareDir);
});

describe('listen.vad: silero', { skip }, () => {
  test('the real Silero model end-points the fixture: speechMs within 100 ms of its speech, ended by the silence window', async () => {
    writeFileSync(join(dir, 'mic.json'), '{}');
    api.mode = { kind: 'ok', text: 'Please turn on the lights in the kitchen.' };
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'silence');
    assert.ok(
      Math.abs(r.body.speechMs - SPEECH_MS) <= 100,
      `speechMs ${r.body.speechMs} vs the fixture's ${SPEECH_MS}`,
    );
    assert.ok(
      r.body.durationMs >= SPEECH_START_MS + SPEECH_MS + 700 - 100 &&
        r.body.durationMs <= SPEECH_START_MS + SPEECH_MS + 700 + 300,
      `durationMs ${r.body.durationMs}`,
    );
    assert.equal(r.body.transcribed, true);
    assert.equal(api.received.length, 1);
    assert.ok(
      Math.abs(api.received[0]!.wav!.durationMs - r.body.durationMs) <= 1,
      'the WAV sent is the recording up to the decision',
    );
  });

  test('random bytes at full scale (the shim\'s "garbage") are not speech: the listen times out and nothing is transcribed', async () => {
    writeFileSync(join(dir, 'mic.json'), JSON.stringify({ mode: 'garbage' }));
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { startTimeoutMs: 1500, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'timeout');
    assert.equal(r.body.speechMs, 0);
    assert.equal(r.body.transcribed, false);
    assert.equal(api.received.length, 0);
    // The same noise to a voxd on auto without the model: energy end-pointing, which hears speech in it.
    writeFileSync(join(bareDir, 'mic.json'), JSON.stringify({ mode: 'garbage' }));
    api.mode = { kind: 'ok', text: 'noise' };
    const e = await bare.api('POST', '/v1/listen', { startTimeoutMs: 1500, maxSeconds: 2, prompt: false });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    assert.ok(e.body.speechMs > 0, `energy hears speech in the noise: ${JSON.stringify(e.body)}`);
    assert.equal(api.received.length, 1);
  });

  test('without the model, a listen is refused with VOX_ERR_VAD_UNAVAILABLE naming the file and the fix', async () => {
    writeFileSync(join(dir, 'mic.json'), '{}');
    const model = join(dir, 'vad', 'silero_vad.onnx');
    renameSync(model, `${model}.away`);
    let r;
    try {
      r = await d.api('POST', '/v1/listen', { prompt: false });
    } finally {
      renameSync(`${model}.away`, model);
    }
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_VAD_UNAVAILABLE');
    assert.match(r.body.message, /vad\/silero_vad\.onnx/);
    assert.match(r.body.message, /listen\.vad/);
  });
});
