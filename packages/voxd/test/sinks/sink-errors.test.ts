/**
 * A sink that cannot play rejects with VOX_ERR_PLAYBACK_FAILED in its own
 * words (SinkError), which the player keeps as the utterance's code and
 * reason; the words are the same as before they had a code. What the audio
 * itself throws (an engine that died) is passed on, not taken as the sink's.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandSink, type SpawnFn } from '../../src/sinks/command.js';
import { FileSink } from '../../src/sinks/file.js';
import { SpeakerSink } from '../../src/sinks/speaker.js';
import { AutoSink } from '../../src/sinks/auto.js';
import { audioIoFix } from '../../src/sinks/audioio.js';
import { AUDIO_LIBRARY_FIX } from '@vox/protocol';
import { EngineError } from '../../src/engines/engine.js';

const FORMAT = { sampleRate: 22050, channels: 1, bitDepth: 16 } as const;
const audio = async function* () {
  yield Buffer.alloc(441 * 2);
};

test('the file sink whose directory went away', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-sink-errors-'));
  const sink = new FileSink(dir, { realtime: false });
  rmSync(dir, { recursive: true, force: true });
  await assert.rejects(sink.play(FORMAT, audio(), new AbortController().signal, { id: 'x' }), {
    code: 'VOX_ERR_PLAYBACK_FAILED',
    statusCode: 500,
    message: `the file sink's directory ${dir} does not exist`,
  });
});

test('the command sink with no player on PATH', async () => {
  const sink = new CommandSink({ env: { PATH: '/nonexistent' } });
  await assert.rejects(sink.play(FORMAT, audio(), new AbortController().signal), {
    code: 'VOX_ERR_PLAYBACK_FAILED',
    message: /^no audio player found \(tried .*\); install pulseaudio-utils or alsa-utils, or set VOXD_AUDIO=file:DIR$/,
  });
});

test('the auto sink with nothing that plays', async () => {
  const sink = new AutoSink([new CommandSink({ env: { PATH: '/nonexistent' } })]);
  await assert.rejects(sink.play(FORMAT, audio(), new AbortController().signal, { id: 'x' }), {
    code: 'VOX_ERR_PLAYBACK_FAILED',
    message: /^no audio output: no player command on PATH/,
  });
  await sink.close();
});

test('the speaker sink whose device fails, with no player to fall back on', async () => {
  // The probe's child exits 1 at once: the speaker module cannot play here.
  const spawn = (() => {
    const child = new EventEmitter();
    setImmediate(() => child.emit('close', 1, null));
    return child;
  }) as unknown as SpawnFn;
  const sink = new SpeakerSink({ env: { PATH: '/nonexistent' }, spawn });
  assert.equal(await sink.probe(), 'speaker process exited with code 1');
  await assert.rejects(sink.play(FORMAT, audio(), new AbortController().signal, { id: 'x' }), {
    code: 'VOX_ERR_PLAYBACK_FAILED',
    message: /^no audio output: speaker failed \(speaker process exited with code 1\) and no player command was found/,
  });
  await sink.close();
});

test("an engine that dies mid-stream is passed on as it is, not taken for the player's failure", async () => {
  // A player that takes whatever it is given and exits 0 at the end of its input.
  const spawn = ((_cmd: string, _args: string[], options: object) =>
    nodeSpawn(process.execPath, ['-e', 'process.stdin.resume()'], options)) as unknown as SpawnFn;
  const sink = new CommandSink({ player: 'aplay', spawn, env: process.env });
  const dying = async function* () {
    yield Buffer.alloc(441 * 2);
    throw new EngineError('espeak-ng exited with code 3: it died');
  };
  await assert.rejects(sink.play(FORMAT, dying(), new AbortController().signal), {
    code: 'VOX_ERR_SYNTHESIS_FAILED',
    message: 'espeak-ng exited with code 3: it died',
  });
  // Before, the player was blamed: VOX_ERR_PLAYBACK_FAILED, and its state said the engine's words.
  assert.equal(sink.state().ok, true);
  assert.equal(sink.state().lastError, undefined);
  await sink.close();
});

test("audio-io without libasound.so.2: the fix names the packages in vox doctor's words, then a player or files", () => {
  const fix = audioIoFix('libasound.so.2: cannot open shared object file: No such file or directory');
  assert.ok(fix.startsWith(`${AUDIO_LIBRARY_FIX}, or install a player command`), fix);
  assert.match(fix, /"apt-get install libasound2" \(the package is libasound2t64 on Debian 13 and Ubuntu 24\.04/);
  assert.match(fix, /"vox daemon config set audio file:DIR"/);
});
