/**
 * Barge-in by voice (issue 20 item 4, listen.bargeIn: voice): the real voxd
 * with the recorder shim as its microphone and the file sink as its speakers.
 * The user's voice (sentence.wav) cuts the utterance playing; silence does
 * not; with the setting off the recorder never starts. What the sink got is
 * measured with test/helpers/wav.ts; no duration budget is checked here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';
import { micEnv, micPid, setMic } from '../helpers/recorder-shim.js';
import { wavStats } from '../helpers/wav.js';

const LONG =
  'This announcement is long on purpose, so that the user can cut it while it plays. ' +
  'It goes on with a second sentence about nothing in particular, and a third one closes it.';

/** Speak `text` and wait for its answer; the WAV the sink wrote for it, and what GET /v1/status said of the microphone meanwhile. */
async function speak(d: Daemon, text: string): Promise<{ body: any; wav: string; listening: any[] }> {
  const seen = new Set(d.wavs());
  const listening: any[] = [];
  let done = false;
  const answer = d.api('POST', '/v1/speak', { text, wait: true }).finally(() => (done = true));
  while (!done) {
    const s = (await d.api('GET', '/v1/status')).body;
    if (s.playing) listening.push(s.listening);
    await new Promise((r) => setTimeout(r, 50));
  }
  const body = (await answer).body;
  const wav = await waitFor(() => d.wavs().find((w) => !seen.has(w)), 5000, 'the WAV');
  return { body, wav, listening };
}

describe('listen.bargeIn: voice', () => {
  let d: Daemon;
  let dir: string;
  let fullMs = 0;
  before(async () => {
    dir = tempDir('vox-voice-barge-');
    d = await startDaemon({ home: dir, env: micEnv(dir, { VOXD_BARGE_IN: 'voice' }) });
  });
  after(async () => {
    await d?.stop();
    removeDir(dir);
  });

  test('silence does not cut: the utterance plays whole, status shows the microphone open while it plays, and it closes after', async () => {
    // A minute of silence before the sentence: all this utterance hears.
    setMic(dir, { leadMs: 60_000 });
    const r = await speak(d, LONG);
    assert.equal(r.body.status, 'played', JSON.stringify(r.body));
    fullMs = wavStats(r.wav).durationMs;
    assert.ok(fullMs > 4000, `the full utterance is ${fullMs} ms`);
    assert.ok(
      r.listening.some((l) => l?.id === 'voice-barge-in' && l.open === true),
      `status while playing: ${JSON.stringify(r.listening)}`,
    );
    const pid = await micPid(dir);
    await waitFor(() => (isRunning(pid) ? undefined : true), 5000, 'the recorder to be stopped after the utterance');
    assert.equal((await d.api('GET', '/v1/status')).body.listening, null);
  });

  test("the user's voice cuts the utterance: it ends interrupted, and the sink got less than the full utterance", async () => {
    setMic(dir, { leadMs: 800 });
    const r = await speak(d, `Once more. ${LONG}`);
    assert.equal(r.body.status, 'interrupted', JSON.stringify(r.body));
    assert.match(r.body.reason, /voice barge-in/);
    const cutMs = wavStats(r.wav).durationMs;
    assert.ok(cutMs < fullMs / 2, `the sink got ${cutMs} ms of a ${fullMs} ms utterance`);
    const pid = await micPid(dir);
    await waitFor(() => (isRunning(pid) ? undefined : true), 5000, 'the recorder to be stopped after the cut');
  });
});

describe('listen.bargeIn: off (the default)', () => {
  test('nothing listens: the recorder never starts and status shows no microphone', async () => {
    const dir = tempDir('vox-voice-barge-off-');
    const d = await startDaemon({ home: dir, env: micEnv(dir) });
    try {
      setMic(dir, { leadMs: 800 });
      const r = await speak(d, LONG);
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.ok(r.listening.length > 0, 'status was read while it played');
      assert.ok(
        r.listening.every((l) => l === null),
        JSON.stringify(r.listening),
      );
      assert.equal(existsSync(join(dir, 'mic.pid')), false, 'the recorder was started');
    } finally {
      await d.stop();
      removeDir(dir);
    }
  });
});
