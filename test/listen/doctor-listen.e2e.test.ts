/**
 * `vox doctor` on offline speech to text: the local recognizer in
 * VOX_HOME/asr (present, its files whole, in use or not by transcriber.kind)
 * and Silero VAD's model (VOX_HOME/vad, used or not by listen.vad). The real
 * `vox doctor --json`; the recognizer is the synthetic one
 * (scripts/synthetic-recognizer.mjs), the VAD model the CI's pinned copy.
 * And its microphone line while voice barge-in has the microphone open (a
 * real voxd with listen.bargeIn voice, the recorder shim, the file sink).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, removeDir, startDaemon, tempDir, vox, waitFor, writeSettings } from '../helpers/daemon.js';
import { micEnv, setMic } from '../helpers/recorder-shim.js';
import { needTool } from '../helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { writeSyntheticRecognizer } from '../../scripts/synthetic-recognizer.mjs';

type Check = { name: string; level: string; detail: string; fix?: string };
const SILERO = '/var/cache/vox-ci/silero-vad/1.0.3/silero_vad.onnx';

async function checks(env: NodeJS.ProcessEnv, cwd: string): Promise<Record<string, Check>> {
  const r = await vox(['doctor', '--json'], { env, cwd });
  const body = JSON.parse(r.stdout) as { checks: Check[] };
  return Object.fromEntries(
    body.checks.filter((c) => ['recognizer', 'vad', 'transcriber'].includes(c.name)).map((c) => [c.name, c]),
  );
}

test(
  'doctor names the local recognizer and the VAD: none, installed and in use, damaged, not used by transcriber.kind server',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const home = tempDir('vox-doctor-asr-');
    const voxHome = join(home, 'vox');
    const env = cleanEnv(voxHome, { HOME: home, VOX_NO_AUTOSTART: '1' });
    try {
      let c = await checks(env, home);
      assert.equal(c.recognizer?.level, 'ok');
      assert.match(c.transcriber!.detail, /without a transcript/);
      assert.match(c.recognizer!.detail, /none installed \(optional\): "vox voices install whisper-tiny\.en-int8"/);
      assert.match(c.vad!.detail, /^energy \(listen\.vad auto; Silero VAD's model is not installed/);

      const model = writeSyntheticRecognizer(join(voxHome, 'asr'));
      if (existsSync(SILERO)) {
        mkdirSync(join(voxHome, 'vad'), { recursive: true });
        copyFileSync(SILERO, join(voxHome, 'vad', 'silero_vad.onnx'));
      }
      c = await checks(env, home);
      assert.equal(c.recognizer?.level, 'ok', c.recognizer?.detail);
      assert.match(
        c.recognizer!.detail,
        /^synthetic-asr \(nemo_ctc\) in .*asr[\\/]synthetic-asr, its files present; in use \(transcriber\.kind auto\)/,
      );
      assert.match(
        c.transcriber!.detail,
        /not set \(optional\): the local recognizer transcribes/,
        'no "without a transcript" while a local model is in use',
      );
      if (existsSync(SILERO))
        assert.match(c.vad!.detail, /^Silero VAD \(listen\.vad auto\), .*silero_vad\.onnx \(2327524 bytes\)/);

      writeSettings(env, { 'transcriber.kind': 'server', 'listen.vad': 'energy' });
      c = await checks(env, home);
      assert.match(c.recognizer!.detail, /not in use: transcriber\.kind is server/);
      assert.match(c.vad!.detail, /^energy \(listen\.vad energy/);

      rmSync(join(model, 'tokens.txt'));
      writeSettings(env, { 'transcriber.kind': 'local' });
      c = await checks(env, home);
      assert.equal(c.recognizer?.level, 'warn');
      assert.match(c.recognizer!.detail, /synthetic-asr \(nemo_ctc\) lacks its tokens file/);
      assert.match(c.recognizer!.fix ?? '', /vox voices install synthetic-asr --force/);

      rmSync(model, { recursive: true });
      c = await checks(env, home);
      assert.equal(c.recognizer?.level, 'warn');
      assert.match(c.recognizer!.detail, /transcriber\.kind is local, but no model is installed/);
    } finally {
      removeDir(home);
    }
  },
);

test('doctor and status say the microphone is open for voice barge-in while vox speaks, and why; free once it stops', async () => {
  const dir = tempDir('vox-doctor-barge-');
  const d = await startDaemon({ home: dir, env: micEnv(dir, { VOXD_BARGE_IN: 'voice' }) });
  try {
    // Silence at the microphone: nothing cuts the utterance while doctor looks.
    setMic(dir, { leadMs: 120_000 });
    const long = 'This announcement is long on purpose, so that doctor can look while it plays. '.repeat(4);
    const spoken = d.api('POST', '/v1/speak', { text: long, wait: true });
    const open = await waitFor(
      async () => ((l) => (l?.open ? l : undefined))((await d.api('GET', '/v1/status')).body.listening),
      20_000,
      'the monitor to open the microphone',
    );
    assert.deepEqual(open, { id: 'voice-barge-in', open: true });
    const r = await vox(['doctor', '--json'], { env: d.env });
    const mic = (JSON.parse(r.stdout) as { checks: Check[] }).checks.find((c) => c.name === 'microphone');
    assert.equal(mic?.level, 'ok', JSON.stringify(mic));
    assert.match(
      mic!.detail,
      /^open while vox speaks: listen\.bargeIn is voice, so voxd listens for your voice to cut the utterance \(use a headset/,
    );
    assert.doesNotMatch(mic!.detail, /held by|waits its turn/, 'not a listen holding the floor');
    const status = await vox(['status'], { env: d.env });
    assert.match(
      status.stdout,
      /^mic: {4}open for voice barge-in while vox speaks \(listen\.bargeIn voice\)/m,
      status.stdout,
    );
    await d.api('POST', '/v1/stop', { scope: 'all' });
    assert.equal((await spoken).body.status, 'stopped');
    await waitFor(
      async () => ((await d.api('GET', '/v1/status')).body.listening === null ? true : undefined),
      10_000,
      'the microphone to close',
    );
    const after = (
      JSON.parse((await vox(['doctor', '--json'], { env: d.env })).stdout) as { checks: Check[] }
    ).checks.find((c) => c.name === 'microphone');
    assert.equal(after?.detail, 'free: voxd is not listening');
  } finally {
    await d.stop();
    removeDir(dir);
  }
});
