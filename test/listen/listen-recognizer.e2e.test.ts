/**
 * The local recognizer that cannot run, in the real voxd with the recorder
 * shim as its microphone: `transcriber.kind: local` with no model installed,
 * and a model installed where sherpa-onnx-node does not load (the module
 * named by VOXD_SHERPA_MODULE is missing, as after a failed optional
 * install). Each is VOX_ERR_RECOGNIZER_UNAVAILABLE naming the cause and its
 * fix, with the recording kept; `vox listen` prints it, `vox status` says
 * beforehand that a listen has no transcriber.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, removeDir, startDaemon, tempDir, vox } from '../helpers/daemon.js';
// @ts-expect-error: a plain .mjs script
import { writeSyntheticRecognizer } from '../../scripts/synthetic-recognizer.mjs';

const SHIM = join(FIXTURES, 'listen', 'arecord');

test('transcriber.kind local with no model: the listen names the cause and the install (online and --from FILE); status says so first', async () => {
  const dir = tempDir('vox-asr-none-');
  writeFileSync(join(dir, 'mic.json'), '{}');
  const d = await startDaemon({
    home: dir,
    env: { VOXD_RECORDER: SHIM, VOX_TEST_MIC_CONTROL: join(dir, 'mic.json'), VOXD_TRANSCRIBER_KIND: 'local' },
  });
  try {
    const status = await vox(['status'], { env: d.env });
    assert.match(
      status.stdout,
      /^stt: {4}none \(no model is installed in .*asr; to fix: "vox voices install whisper-tiny\.en-int8" \(offline: add --from FILE\).*\) \(transcriber\.kind local\)$/m,
      status.stdout,
    );
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_RECOGNIZER_UNAVAILABLE');
    assert.match(
      r.body.message,
      /^The local recognizer cannot run: transcriber\.kind is local, but no model is installed in \S+asr\. To fix: install one: "vox voices install whisper-tiny\.en-int8" \(offline: "vox voices install whisper-tiny\.en-int8 --from FILE", the archive fetched elsewhere\), or transcribe with a server: "vox daemon config set transcriber\.kind server" and transcriber\.url; the recording is kept \(audioPath\)\.$/,
    );
    assert.ok(existsSync(r.body.audioPath), 'the recording is kept');
    const cli = await vox(['listen', '--silence', '700', '--no-prompt'], { env: d.env });
    assert.equal(cli.code, 3, cli.stderr);
    assert.equal(cli.stdout, '');
    assert.match(
      cli.stderr,
      /^vox listen: VOX_ERR_RECOGNIZER_UNAVAILABLE: The local recognizer cannot run: .*"vox voices install whisper-tiny\.en-int8 --from FILE".* The recording: \S+\.wav$/m,
    );
  } finally {
    await d.stop();
    removeDir(dir);
  }
});

test('a model installed but sherpa-onnx-node missing: the listen says the module is not installed and how to add it', async () => {
  const dir = tempDir('vox-asr-nosherpa-');
  writeSyntheticRecognizer(join(dir, 'asr'));
  writeFileSync(join(dir, 'mic.json'), '{}');
  const d = await startDaemon({
    home: dir,
    env: {
      VOXD_RECORDER: SHIM,
      VOX_TEST_MIC_CONTROL: join(dir, 'mic.json'),
      VOXD_SHERPA_MODULE: 'sherpa-onnx-node-not-installed',
    },
  });
  try {
    assert.deepEqual(
      (await d.api('GET', '/v1/status')).body.transcriber,
      { kind: 'auto', using: 'local synthetic-asr (nemo_ctc)' },
      'auto picks the installed model',
    );
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_RECOGNIZER_UNAVAILABLE');
    assert.match(
      r.body.message,
      /^The local recognizer cannot run: sherpa-onnx-node-not-installed, which runs model synthetic-asr, is not installed \(an optional dependency of voxd that did not install\)\. To fix: "npm install sherpa-onnx-node" in vox's directory adds it, or transcribe with a server: "vox daemon config set transcriber\.kind server" and transcriber\.url; the recording is kept/,
    );
    assert.ok(existsSync(r.body.audioPath), 'the recording is kept');
  } finally {
    await d.stop();
    removeDir(dir);
  }
});

test('a model that loads but throws while decoding: VOX_ERR_RECOGNIZER_FAILED with its words and the reinstall, the recording kept, not an internal error', async () => {
  const dir = tempDir('vox-asr-decode-');
  writeSyntheticRecognizer(join(dir, 'asr'));
  writeFileSync(join(dir, 'mic.json'), '{}');
  const d = await startDaemon({
    home: dir,
    env: {
      VOXD_RECORDER: SHIM,
      VOX_TEST_MIC_CONTROL: join(dir, 'mic.json'),
      VOXD_SHERPA_MODULE: join(FIXTURES, 'listen', 'sherpa-decode-fails.cjs'),
    },
  });
  try {
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 500, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_RECOGNIZER_FAILED');
    assert.match(
      r.body.message,
      /^The local recognizer failed on this recording: model synthetic-asr \(nemo_ctc\) threw "Non-zero status code returned while running Gather node"\. Listen again; if it fails again, install it again: "vox voices install synthetic-asr --force" .*; the recording is kept \(audioPath\)\.$/,
    );
    assert.doesNotMatch(r.body.message, /transcriber\.url|second line/);
    assert.ok(existsSync(r.body.audioPath), 'the recording is kept');
    const cli = await vox(['listen', '--silence', '700', '--no-prompt'], { env: d.env });
    assert.equal(cli.code, 3, cli.stderr);
    assert.match(
      cli.stderr,
      /^vox listen: VOX_ERR_RECOGNIZER_FAILED: The local recognizer failed on this recording: .* The recording: \S+\.wav$/m,
    );
  } finally {
    await d.stop();
    removeDir(dir);
  }
});
