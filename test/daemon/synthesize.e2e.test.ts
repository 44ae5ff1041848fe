/**
 * POST /v1/synthesize against the real voxd (issue 11): `volume` is applied,
 * an unknown voice is the caller's error (400, naming the field; for
 * /v1/speak too, at accept), a recording's size is capped, and the
 * number of recordings rendered and waiting at once is bounded (429 beyond).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { removeDir, startDaemon, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

let d: Daemon;
before(async () => {
  d = await startDaemon({ audio: 'null' });
});
after(async () => {
  await d.stop();
  removeDir(d.home);
});

/** The WAV bytes of a recording (the shared helper decodes bodies as text). */
function recording(body: object): Promise<{ status: number; wav: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: d.port,
        method: 'POST',
        path: '/v1/synthesize',
        headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, wav: Buffer.concat(parts) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('volume is applied to the recording', async () => {
  const text = 'The same words at two volumes.';
  const full = await recording({ text });
  const quiet = await recording({ text, volume: 0.25 });
  assert.equal(full.status, 200);
  assert.equal(quiet.status, 200);
  const a = wavStats(full.wav);
  const b = wavStats(quiet.wav);
  assert.ok(a.rms > 0.01, `the full recording is audible (rms ${a.rms})`);
  const ratio = b.rms / a.rms;
  assert.ok(ratio > 0.2 && ratio < 0.3, `volume 0.25 scales the audio by a quarter (got ${ratio})`);
});

test('an unknown voice is refused with 400 naming the field; voxd keeps serving', async () => {
  const r = await d.api('POST', '/v1/synthesize', { text: 'Hello.', voice: 'no-such-voice' });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.code, 'VOX_ERR_VOICE_UNKNOWN');
  assert.match(r.body.message, /"no-such-voice"/);
  assert.match(r.body.message, /field "voice"/);
  assert.match(r.body.message, /vox voices/);
  assert.equal((await d.api('POST', '/v1/synthesize', { text: 'Hello.' })).status, 200);
});

test('POST /v1/speak refuses an unknown voice at accept, with the same 400 as /v1/synthesize; nothing is queued', async () => {
  const before = (await d.api('GET', '/v1/status')).body.counters.accepted;
  const r = await d.api('POST', '/v1/speak', {
    text: 'Hello in a voice that does not exist.',
    voice: 'no-such-voice',
    wait: true,
  });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.code, 'VOX_ERR_VOICE_UNKNOWN');
  assert.match(r.body.message, /"no-such-voice"/);
  assert.match(r.body.message, /field "voice"/);
  const status = (await d.api('GET', '/v1/status')).body;
  assert.equal(status.counters.accepted, before, 'nothing was accepted');
  assert.ok(!status.history.some((h: any) => h.text.includes('does not exist')));
  // Voices eSpeak knows by language code and variant are accepted (and asked once each).
  for (const [i, voice] of ['en-gb+f3', 'de', 'en-gb+f3'].entries()) {
    const ok = await d.api('POST', '/v1/speak', { text: `Known voice number ${i + 1}.`, voice, wait: true });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.status, 'played');
  }
});

test('recordings beyond the concurrency limit wait their turn, and beyond the waiting line get 429 with Retry-After', async () => {
  const text = 'A long recording keeps a slot busy for a while, sentence after sentence. '.repeat(40);
  const replies = await Promise.all(
    Array.from({ length: 14 }, () => 0).map(() => d.api('POST', '/v1/synthesize', { text })),
  );
  const busy = replies.filter((r) => r.status === 429);
  const ok = replies.filter((r) => r.status === 200);
  assert.equal(busy.length + ok.length, 14, replies.map((r) => r.status).join(', '));
  assert.ok(ok.length >= 2 + 8, `those running and those waiting are rendered (${ok.length})`);
  assert.ok(busy.length >= 1, '14 at once exceed 2 running and 8 waiting');
  for (const r of busy) {
    assert.equal(r.body.code, 'VOX_ERR_SYNTHESIZE_BUSY');
    assert.match(r.body.message, /already rendering 2 .* with 8 more waiting/);
    assert.equal(r.headers['retry-after'], '1');
  }
  // The slots are given back.
  assert.equal((await d.api('POST', '/v1/synthesize', { text: 'Free again.' })).status, 200);
});
