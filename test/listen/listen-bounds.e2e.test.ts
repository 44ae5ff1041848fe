/**
 * Voice input does not trust its peers (issue 23): a real voxd, the recorder
 * shim test/fixtures/listen/arecord in its adversarial modes, and the real
 * transcription server of test/helpers/transcription-api.ts answering as a
 * broken or hostile transcriber would. Each case says what it proves; none
 * asserts a duration as its point (sizes, codes and processes instead).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { micEnv, micPid as shimPid, setMic } from '../helpers/recorder-shim.js';
import { wavStats } from '../helpers/wav.js';

const KEY = 'sk-bounds-transcriber-0123456789abcdef';
const TRANSCRIPT = 'Please turn on the lights in the kitchen.';
/** voxd reads at most this much of an answer (listen/transcriber.ts MAX_ANSWER_BYTES). */
const CAP = 64 * 1024;

let api: TranscriptionApi;
let d: Daemon;
let dir: string;

function mic(settings: { mode?: string; childPidFile?: string; leadMs?: number } = {}): void {
  setMic(dir, settings);
}

function micPid(): Promise<number> {
  return shimPid(dir);
}

/** Writes `chunk` until the peer stops reading (the socket closes) or `limit` bytes went out; resolves with the bytes written. */
function pour(res: import('node:http').ServerResponse, chunk: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    let ended = false;
    const end = () => {
      if (!ended) resolve(sent);
      ended = true;
    };
    res.on('close', end);
    const more = () => {
      while (!ended && sent < limit && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', more);
          return;
        }
      }
      if (sent >= limit) {
        res.end();
        end();
      }
    };
    more();
  });
}

before(async () => {
  api = await startTranscriptionApi();
  dir = tempDir('vox-listen-bounds-');
  writeFileSync(join(dir, 'keys.env'), `TRANSCRIBER_API_KEY=${KEY}\n`, { mode: 0o600 });
  d = await startDaemon({
    home: dir,
    env: micEnv(dir, { VOXD_TRANSCRIBER_URL: api.url, VOXD_TRANSCRIBER_TIMEOUT_MS: '3000' }),
  });
});
after(async () => {
  await d?.stop();
  await api?.close();
  removeDir(dir);
});

describe('a transcriber is read within bounds', () => {
  // Before: the whole answer was read (50 MB lifted voxd from 124 to 444 MB RSS), and a body
  // that never ended was read until the timeout (1.09 GB in 2 s) and ended as a timeout.
  for (const [name, declared] of [
    ['an answer of 50 MB (declared) is refused', true],
    ['an answer whose body never ends is refused once past the cap', false],
  ] as const) {
    test(`${name}, and read no further`, async () => {
      mic();
      let sent: Promise<number> | undefined;
      api.mode = {
        kind: 'custom',
        respond(res) {
          res.writeHead(200, {
            'content-type': 'application/json',
            ...(declared ? { 'content-length': String(50 * 1024 * 1024) } : {}),
          });
          res.write('{"text":"');
          sent = pour(res, Buffer.alloc(64 * 1024, 'a'), declared ? 50 * 1024 * 1024 : 2 * 1024 * 1024 * 1024);
        },
      };
      const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
      assert.match(r.body.message, /more than 64 KB/);
      assert.ok(existsSync(r.body.audioPath), 'the recording is kept');
      const bytes = await sent!;
      // Socket buffers on both sides hold a few MB; a reader that went on would take it all.
      assert.ok(bytes < 32 * 1024 * 1024, `the server got ${bytes} bytes out before voxd closed the connection`);
    });
  }

  test('a JSON answer with a huge "text" is refused, not returned', async () => {
    mic();
    api.mode = {
      kind: 'custom',
      respond: (res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ text: 'word '.repeat(200_000) })),
    };
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.body.code, 'VOX_ERR_TRANSCRIBER_FAILED', JSON.stringify(r.body).slice(0, 300));
    assert.ok(JSON.stringify(r.body).length < CAP, 'the answer to the client is small');
  });

  test('a key the transcriber echoes in a 200 does not come back in the transcript', async () => {
    mic();
    api.mode = {
      kind: 'custom',
      respond: (res, got) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ text: `${TRANSCRIPT} (${got.authorization})` })),
    };
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(!JSON.stringify(r.body).includes(KEY), r.body.text);
    assert.equal(r.body.text, `${TRANSCRIPT} (Bearer [key])`);
    // Plain text answers too.
    mic();
    api.mode = {
      kind: 'custom',
      respond: (res, got) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${got.authorization}`),
    };
    const plain = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(plain.body.text, 'Bearer [key]');
  });

  test('a redirect is not followed: the recording and the key go nowhere else', async () => {
    const elsewhere = await startTranscriptionApi();
    try {
      elsewhere.mode = { kind: 'ok', text: 'stolen' };
      mic();
      api.mode = {
        kind: 'custom',
        respond: (res) => res.writeHead(307, { location: `${elsewhere.url}/audio/transcriptions?token=x` }).end(),
      };
      const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
      assert.match(
        r.body.message,
        /HTTP 307, a redirect to http:\/\/127\.0\.0\.1:\d+\/v1\/audio\/transcriptions, which is not followed/,
      );
      assert.ok(!r.body.message.includes('token=x'), 'the query is left out');
      assert.equal(elsewhere.received.length, 0, 'the other server got nothing');
    } finally {
      await elsewhere.close();
    }
  });

  test('an HTML page is not a transcript; JSON that does not parse is said so', async () => {
    mic();
    api.mode = {
      kind: 'custom',
      respond: (res) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<html><body>Welcome to nginx!</body></html>'),
    };
    const html = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(html.body.code, 'VOX_ERR_TRANSCRIBER_FAILED', JSON.stringify(html.body));
    assert.match(html.body.message, /answered text\/html, not a transcript/);
    mic();
    api.mode = {
      kind: 'custom',
      respond: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text": "unterminated'),
    };
    const bad = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(bad.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
    assert.match(bad.body.message, /JSON that does not parse/);
  });

  test('an answer trickled byte by byte ends at the timeout, as a timeout', async () => {
    mic();
    let timer: NodeJS.Timeout | undefined;
    api.mode = {
      kind: 'custom',
      respond(res) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const body = JSON.stringify({ text: TRANSCRIPT.repeat(50) });
        let i = 0;
        timer = setInterval(
          () => (i < body.length && !res.destroyed ? res.write(body[i++]) : clearInterval(timer)),
          50,
        );
        res.on('close', () => clearInterval(timer));
      },
    };
    try {
      const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, 504, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_TRANSCRIBER_TIMEOUT');
    } finally {
      clearInterval(timer);
      api.mode = { kind: 'ok', text: TRANSCRIPT };
    }
  });
});

describe("a recorder is held to the listen's bounds", () => {
  // Before: the listen waited for the audio's own clock, which never started: 31.6 s, ended as "max".
  test('a recorder that never writes ends at startTimeoutMs and is reported as stuck', async () => {
    mic({ mode: 'mute' });
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const r = await d.api('POST', '/v1/listen', { startTimeoutMs: 1000, prompt: false });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_MIC_UNAVAILABLE');
    assert.match(r.body.message, /wrote no audio for 1000 ms \(startTimeoutMs\)/);
    const pid = await micPid();
    await waitFor(() => (!isRunning(pid) ? true : undefined), 5000, 'the stuck recorder to be killed');
  });

  // Before: durationMs 6,144 for maxSeconds 5 (whole 64 KB blocks were kept past the maximum).
  test('a flooding recorder gives at most maxSeconds of audio', async () => {
    mic({ mode: 'flood' });
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { maxSeconds: 2, silenceMs: 5000, prompt: false, keepAudio: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'max');
    assert.ok(r.body.durationMs <= 2000, `durationMs ${r.body.durationMs}`);
    assert.ok(wavStats(r.body.audioPath).durationMs <= 2000);
    assert.ok(api.received.at(-1)!.wav!.durationMs <= 2000, 'the transcriber got no more either');
  });

  // Before: the child left the recorder's process group and outlived the listen.
  test("a recorder's child that called setsid does not outlive the listen", async () => {
    const childPidFile = join(dir, 'setsid-child.pid');
    rmSync(childPidFile, { force: true });
    mic({ mode: 'setsid', childPidFile });
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const child = Number(readFileSync(childPidFile, 'utf8'));
    assert.ok(child > 0);
    await waitFor(() => (!isRunning(child) ? true : undefined), 5000, `the setsid child ${child} to be killed`);
  });

  test('a recorder that exits at once is a clear 503', async () => {
    mic({ mode: 'exit' });
    const r = await d.api('POST', '/v1/listen', { prompt: false });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_MIC_UNAVAILABLE');
    assert.match(r.body.message, /exited with code 0 before any audio/);
  });

  test('garbage, an odd byte count, or a WAV header claiming 4 GB: bounded audio in whole samples, and voxd serves on', async () => {
    mic({ mode: 'garbage' });
    const g = await d.api('POST', '/v1/listen', { maxSeconds: 1, prompt: false, keepAudio: true });
    assert.ok(g.status === 200 || g.status === 502, JSON.stringify(g.body));
    const s = wavStats(g.body.audioPath);
    assert.ok(s.durationMs <= 1000, `durationMs ${s.durationMs}`);
    assert.equal(readFileSync(g.body.audioPath).length % 2, 0, 'whole samples');
    mic({ mode: 'wavheader' });
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const w = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    assert.equal(w.body.text, TRANSCRIPT);
    assert.equal((await d.api('GET', '/v1/health')).status, 200);
  });
});
