/**
 * "What did I miss?" to `vox talk` runs the recap (docs/attention.md), typed
 * and through push-to-talk (the recorder shim and the stand-in transcriber),
 * with the real voxd and its file sink; a text that merely contains the
 * words, or names a session first, is a message for a session, and the
 * missed items stay for the next recap.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isRecapPhrase } from '../../packages/vox-mcp/src/talk/recap-phrase.js';
import { removeDir, startDaemon, tempDir, vox, waitFor, type Daemon } from '../helpers/daemon.js';
import { micEnv, setMic } from '../helpers/recorder-shim.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { wavStats } from '../helpers/wav.js';

const LONG = 'This message is long enough to keep the speakers busy for a few seconds while others arrive';

test('the phrase is the whole text, case and punctuation aside; a text that contains it is not', () => {
  for (const t of [
    'What did I miss?',
    'what did i miss',
    '  WHAT HAVE I MISSED!? ',
    'What\u2019d I miss?',
    'What did I miss.',
  ])
    assert.equal(isRecapPhrase(t), true, t);
  for (const t of [
    'ask api what did I miss in the logs',
    'api: what did I miss',
    'what did I miss in the tests',
    'did I miss',
    'what did I',
    '',
  ])
    assert.equal(isRecapPhrase(t), false, t);
});

describe('vox talk "what did I miss"', () => {
  let d: Daemon;
  let stt: TranscriptionApi;
  const mic = tempDir('talk-recap');
  const talk = (args: string[]) =>
    vox(['talk', ...args], { env: { ...d.env, VOX_NO_AUTOSTART: '1' }, timeoutMs: 60_000 });
  /** While LONG plays, a notification of web's arrives and is dropped: missed. */
  async function miss(text: string): Promise<void> {
    // Its own words each time: the same text again would be a duplicate, dropped.
    const busy = await d.api('POST', '/v1/speak', { text: `${LONG}: ${text}`, session: 'ops#000001' });
    assert.equal(busy.status, 202);
    await waitFor(async () => (await d.api('GET', '/v1/status')).body.playing?.id === busy.body.id || undefined);
    const r = await d.api('POST', '/v1/speak', { text, session: 'web#1f2e3d', priority: 'notification' });
    assert.equal(r.body.status, 'dropped', text);
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await d.idle();
  }
  /** The recap's WAV once it has played whole: the file sink writes it as it plays (a loaded machine read it half-made). */
  const wavOf = async (id: string) => {
    await waitFor(
      async () =>
        (await d.api('GET', '/v1/status')).body.history.some(
          (h: { id: string; outcome: string }) => h.id === id && h.outcome === 'played',
        ) || undefined,
      60_000,
      `the recap ${id} played`,
    );
    return waitFor(() => d.wavs().find((f) => f.endsWith(`-${id}.wav`)), 20_000, `the recap ${id} at the sink`);
  };

  before(async () => {
    stt = await startTranscriptionApi();
    d = await startDaemon({ env: { ...micEnv(mic), VOXD_TRANSCRIBER_URL: stt.url } });
  });
  after(async () => {
    await d?.stop();
    await stt?.close();
    if (d) removeDir(d.home);
  });

  test('typed, it speaks the recap instead of delivering text to a session', async () => {
    await miss('Web finished the migration.');
    const r = await talk(['What did I miss?', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const recap = JSON.parse(r.stdout);
    assert.equal(recap.items, 1);
    assert.equal(recap.text, 'You missed one thing. From web: Web finished the migration.');
    assert.ok(wavStats(await wavOf(recap.id)).durationMs > 0, 'the recap was heard at the sink');
  });

  test('a text that merely contains the words, or names a session first, is not the phrase: nothing missed is taken', async () => {
    await miss('Web deployed to staging.');
    const plain = await talk(['ask api what did I miss in the logs']);
    assert.equal(plain.code, 2, plain.stderr);
    assert.match(plain.stderr, /names no session/);
    // For session api, which is not live: voxd's talk route answers, not the recap.
    const addressed = await talk(['api: what did I miss']);
    assert.equal(addressed.code, 4, addressed.stderr);
    const named = await talk(['api', 'What did I miss?']);
    assert.equal(named.code, 4, named.stderr);
    const r = await vox(['recap', '--json'], { env: d.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).text, 'You missed one thing. From web: Web deployed to staging.');
  });

  test('spoken through push-to-talk, it speaks the recap too', async () => {
    await miss('Web needs a review.');
    setMic(mic, {});
    stt.mode = { kind: 'ok', text: 'What have I missed?' };
    const r = await talk(['--json']);
    assert.equal(r.code, 0, r.stderr);
    const recap = JSON.parse(r.stdout);
    assert.equal(recap.text, 'You missed one thing. From web: Web needs a review.');
    assert.ok(stt.received.length >= 1, 'the transcriber was asked');
    assert.ok(wavStats(await wavOf(recap.id)).durationMs > 0, 'the recap was heard at the sink');
  });
});
