/**
 * The `audioio` sink, end to end through the real voxd: speech plays through
 * @echogarden/audio-io into ALSA's file device (no sound card needed; only
 * libasound.so.2), a stop cuts it, and a device that cannot open is reported.
 * The null device does not pace, so nothing here is timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { pcmStats, wavStats } from '../helpers/wav.js';

/** audio-io plays through ALSA: without its runtime library there is nothing to test here (audio-outcomes covers that case). */
const SKIP = needTool('libasound2');

const ALSA_CONF = `pcm.!default {
    type file
    slave { pcm { type null } }
    file { @func getenv vars [ VOX_TEST_ALSA_FILE ] default "/tmp/vox-alsa.raw" }
    format "raw"
}
`;

function alsa(): { dir: string; conf: string; capture: string } {
  const dir = tempDir('vox-audioio-');
  const conf = join(dir, 'asound.conf');
  writeFileSync(conf, ALSA_CONF);
  return { dir, conf, capture: join(dir, 'capture.raw') };
}

const TEXT = 'Through audio I O into the ALSA file device. A second sentence follows the first.';

test(
  'speech plays through audio-io into the ALSA file device, and it is the speech that was synthesized',
  { skip: SKIP },
  async () => {
    const a = alsa();
    // VOXD_AUDIO empty is unset: the default order, where audio-io comes first.
    const d = await startDaemon({ audio: '', env: { ALSA_CONFIG_PATH: a.conf, VOX_TEST_ALSA_FILE: a.capture } });
    try {
      const r = await d.api('POST', '/v1/speak', { text: TEXT, wait: true });
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.deepEqual(r.body.sink, { name: 'auto:audioio', ok: true });
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.name, 'auto:audioio');
      assert.equal(s.body.sink.ok, true);

      // The same text, synthesized without playing: what should have been heard.
      const wav = await fetchWav(d, TEXT);
      const expected = wavStats(wav);
      // ALSA's file plugin writes its last buffer when the device thread closes, just after playback ends.
      const size = () => (existsSync(a.capture) ? readFileSync(a.capture).length : 0);
      await waitFor(
        () => (size() >= (wav.length - 44) * 0.95 ? true : undefined),
        10_000,
        'the capture to be complete',
      );
      const captured = readFileSync(a.capture);
      const heard = pcmStats(captured, { sampleRate: 22050, channels: 1 });
      // The device may pad with silence when it outruns the engine (the null device does), never drop or repeat:
      // the non-silent samples heard are exactly the non-silent samples synthesized, in order.
      const want = nonZero(wav.subarray(44));
      const got = nonZero(captured);
      assert.ok(want.length > 22050 * 0.5, 'the reference is at least half a second of speech');
      // Speech, not near-silence: measured on what was heard, without the silence the device padded
      // while it waited (how much padding there is depends on how busy the machine is).
      const rms = Math.sqrt(got.reduce((s, v) => s + v * v, 0) / Math.max(1, got.length)) / 32768;
      assert.ok(rms > 0.02, `RMS ${rms} of the heard samples looks like silence`);
      assert.equal(got.length, want.length, `heard ${got.length} non-silent samples, synthesized ${want.length}`);
      assert.deepEqual(got.slice(0, 2000), want.slice(0, 2000));
      assert.deepEqual(got.slice(-2000), want.slice(-2000));
      assert.ok(
        heard.durationMs >= expected.durationMs * 0.95,
        `captured ${heard.durationMs} ms of ${expected.durationMs} ms`,
      );
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(a.dir);
    }
  },
);

test('a stop cuts audio-io playback short, and the next request plays', { skip: SKIP }, async () => {
  const a = alsa();
  const d = await startDaemon({ audio: 'audioio', env: { ALSA_CONFIG_PATH: a.conf, VOX_TEST_ALSA_FILE: a.capture } });
  try {
    const long = 'This announcement goes on for a good while, sentence after sentence. '.repeat(6);
    const r = d.api('POST', '/v1/speak', { text: long, wait: true });
    // ALSA's file plugin writes the capture when the device closes, so the condition is voxd's: playing.
    await waitFor(async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined), 30_000, 'playback');
    const stop = await d.api('POST', '/v1/stop', { scope: 'all' });
    assert.equal(
      stop.body.stopped.length,
      1,
      `${JSON.stringify(stop.body)} ${JSON.stringify((await d.api('GET', '/v1/status')).body.history)}`,
    );
    const done = await r;
    assert.equal(done.body.status, 'stopped', JSON.stringify(done.body));
    // Counted in non-silent samples: the null device does not pace, so the capture also holds
    // however much silence the device was padded with while it was open, which depends on load.
    const full = nonZero((await fetchWav(d, long)).subarray(44)).length;
    const cut = nonZero(existsSync(a.capture) ? readFileSync(a.capture) : Buffer.alloc(0)).length;
    assert.ok(full > 22050 * 5, `the reference is ${full} samples, at least five seconds of speech`);
    assert.ok(cut < full / 2, `${cut} non-silent samples reached the device of ${full}`);
    const next = await d.api('POST', '/v1/speak', { text: 'And the next one.', wait: true });
    assert.equal(next.body.status, 'played', JSON.stringify(next.body));
  } finally {
    await d.stop();
    removeDir(d.home);
    removeDir(a.dir);
  }
});

test('a device that cannot open is refused with the cause, and voxd keeps serving', { skip: SKIP }, async () => {
  const a = alsa();
  writeFileSync(a.conf, 'pcm.!default { type hw card 7 device 3 }\n');
  const d = await startDaemon({ audio: 'audioio', env: { ALSA_CONFIG_PATH: a.conf } });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Nobody hears this.', wait: true });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
    assert.match(r.body.message, /audio-io: Failed to open audio device/);
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.sink.name, 'audioio');
    assert.equal(s.body.sink.ok, false);
    assert.match(s.body.sink.lastError, /Failed to open audio device/);
    assert.equal((await d.api('GET', '/v1/health')).status, 200);
  } finally {
    await d.stop();
    removeDir(d.home);
    removeDir(a.dir);
  }
});

/** The non-zero samples of s16le PCM, in order: what was heard, without the device's padding. */
function nonZero(pcm: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    const v = pcm.readInt16LE(i);
    if (v !== 0) out.push(v);
  }
  return out;
}

async function fetchWav(d: Awaited<ReturnType<typeof startDaemon>>, text: string): Promise<Buffer> {
  const res = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}
