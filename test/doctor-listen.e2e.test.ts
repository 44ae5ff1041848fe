/**
 * `vox doctor` on offline speech to text: the local recognizer in
 * VOX_HOME/asr (present, its files whole, in use or not by transcriber.kind)
 * and Silero VAD's model (VOX_HOME/vad, used or not by listen.vad). The real
 * `vox doctor --json`; the recognizer is the synthetic one
 * (scripts/synthetic-recognizer.mjs), the VAD model the CI's pinned copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, removeDir, tempDir, vox, writeSettings } from './helpers/daemon.js';
import { needTool } from './helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { writeSyntheticRecognizer } from '../scripts/synthetic-recognizer.mjs';

type Check = { name: string; level: string; detail: string; fix?: string };
const SILERO = '/var/cache/vox-ci/silero-vad/1.0.3/silero_vad.onnx';

async function checks(env: NodeJS.ProcessEnv, cwd: string): Promise<Record<string, Check>> {
  const r = await vox(['doctor', '--json'], { env, cwd });
  const body = JSON.parse(r.stdout) as { checks: Check[] };
  return Object.fromEntries(body.checks.filter((c) => ['recognizer', 'vad', 'transcriber'].includes(c.name)).map((c) => [c.name, c]));
}

test('doctor names the local recognizer and the VAD: none, installed and in use, damaged, not used by transcriber.kind server', { skip: needTool('sherpa-onnx') }, async () => {
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
    assert.match(c.recognizer!.detail, /^synthetic-asr \(nemo_ctc\) in .*asr[\\/]synthetic-asr, its files present; in use \(transcriber\.kind auto\)/);
    assert.match(c.transcriber!.detail, /not set \(optional\): the local recognizer transcribes/, 'no "without a transcript" while a local model is in use');
    if (existsSync(SILERO)) assert.match(c.vad!.detail, /^Silero VAD \(listen\.vad auto\), .*silero_vad\.onnx \(2327524 bytes\)/);

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
});
