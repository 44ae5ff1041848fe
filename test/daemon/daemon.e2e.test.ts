/**
 * voxd and `vox say`, end to end: the real daemon on port 0 with a temp
 * VOX_HOME and the file sink, real HTTP, the real `vox` binary, WAVs read back to check the audio.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  VOXD,
  cleanEnv,
  http,
  removeDir,
  startDaemon,
  stopDaemonsUnder,
  tempDir,
  vox,
  waitFor,
  writeSettings,
  type Daemon,
} from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

/** A stand-in audio player: a Node script run by this Node, so it needs no shell or coreutils. */
/** What voxd's probe of a player writes: 10 ms of silence (sinks/command.ts). */
const PROBE_BYTES = 440;

function fakePlayer(js: string): string {
  return `#!${process.execPath}\n${js}\n`;
}

describe('voxd with the file sink', () => {
  let d: Daemon;
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
  });

  test('one sentence gives exactly one WAV with real speech in it', async () => {
    const before = d.wavs().length;
    const r = await d.api('POST', '/v1/speak', { text: 'The build finished and every test passed.', wait: true });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'played');
    const files = d.wavs();
    assert.equal(files.length, before + 1);
    const stats = wavStats(files.at(-1)!);
    assert.ok(stats.durationMs > 500, `duration ${stats.durationMs} ms`);
    assert.ok(stats.rms > 0.01, `RMS ${stats.rms} looks like silence`);
    assert.equal(stats.sampleRate, 22050);
  });

  test('eight concurrent vox say runs of one text in eight voices give one WAV', async () => {
    await d.idle();
    const before = d.wavs().length;
    const voices = ['en-us', 'en-gb', 'en-us+f1', 'en-us+f2', 'en-us+m3', 'en', 'en-gb-scotland', 'en-us+f3'];
    const runs = await Promise.all(
      voices.map((voice) =>
        vox(['say', '--voice', voice, '--json', 'Deploying to staging in five minutes'], { env: d.env }),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const statuses = runs.map((r) => JSON.parse(r.stdout).status).sort();
    assert.deepEqual(statuses, ['deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'deduped', 'queued']);
    const deduped = runs.map((r) => JSON.parse(r.stdout)).filter((b) => b.status === 'deduped');
    const original = runs.map((r) => JSON.parse(r.stdout)).find((b) => b.status === 'queued');
    for (const b of deduped) assert.equal(b.duplicate.originalId, original.id);
    await d.idle();
    assert.equal(d.wavs().length, before + 1);
  });

  test('the same text after its window plays again', async () => {
    await d.idle();
    const before = d.wavs().length;
    const first = await d.api('POST', '/v1/speak', { text: 'Window test.', once: 1, wait: true });
    assert.equal(first.body.status, 'played');
    const dup = await d.api('POST', '/v1/speak', { text: 'window test', once: 1 });
    assert.equal(dup.body.status, 'deduped');
    assert.equal(dup.body.duplicate.originalStatus, 'played');
    assert.ok(dup.body.duplicate.windowRemainingMs <= 1000);
    await new Promise((r) => setTimeout(r, 1100));
    const again = await d.api('POST', '/v1/speak', { text: 'Window test.', once: 1, wait: true });
    assert.equal(again.body.status, 'played');
    assert.equal(d.wavs().length, before + 2);
  });

  test('bad requests are refused with a named error and the daemon keeps serving', async () => {
    const wrong = await http(d.port, 'POST', '/v1/speak', { body: { text: 'x' }, token: 'not-the-token-at-all' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'VOX_ERR_AUTH_INVALID');
    const missing = await http(d.port, 'GET', '/v1/status');
    assert.equal(missing.status, 401);
    assert.equal(missing.body.code, 'VOX_ERR_AUTH_MISSING');
    const origin = await http(d.port, 'POST', '/v1/speak', {
      body: { text: 'x' },
      token: d.token,
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(origin.status, 403);
    assert.equal(origin.body.code, 'VOX_ERR_ORIGIN_FORBIDDEN');
    const host = await http(d.port, 'GET', '/v1/health', { headers: { host: 'evil.example:8421' } });
    assert.equal(host.status, 403);
    assert.equal(host.body.code, 'VOX_ERR_HOST_FORBIDDEN');
    const badJson = await http(d.port, 'POST', '/v1/speak', { raw: '{"text": "unterminated', token: d.token });
    assert.equal(badJson.status, 400);
    assert.equal(badJson.body.code, 'VOX_ERR_BODY_INVALID_JSON');
    const badField = await http(d.port, 'POST', '/v1/speak', { body: { text: 'x', rate: 'fast' }, token: d.token });
    assert.equal(badField.status, 400);
    assert.equal(badField.body.code, 'VOX_ERR_BODY_INVALID');
    assert.match(badField.body.message, /rate/);
    const unknown = await http(d.port, 'POST', '/v1/speak', { body: { text: 'x', colour: 'red' }, token: d.token });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /colour/);
    const long = await http(d.port, 'POST', '/v1/speak', { body: { text: 'a'.repeat(20_001) }, token: d.token });
    assert.equal(long.status, 413);
    assert.equal(long.body.code, 'VOX_ERR_TEXT_TOO_LONG');
    assert.match(long.body.message, /longer than 20000 characters/);
    // The limit counts characters (code points), not UTF-16 units: 15,000 emoji fit.
    const emoji = await http(d.port, 'POST', '/v1/speak', {
      body: { text: '🎉'.repeat(15_000), wait: true },
      token: d.token,
    });
    assert.equal(emoji.status, 200);
    assert.equal(emoji.body.status, 'dropped', 'nothing speakable is reported, not played');
    assert.match(emoji.body.reason, /nothing left to say/);
    const huge = await http(d.port, 'POST', '/v1/speak', { body: { text: 'word '.repeat(210_000) }, token: d.token });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.code, 'VOX_ERR_BODY_TOO_LARGE');
    assert.match(huge.body.message, /larger than 262144 bytes/);
    for (const r of [wrong, missing, origin, host, badJson, badField, unknown, long, huge]) {
      assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'statusCode']);
      assert.ok(!r.body.message.includes(d.token), 'an error must never echo the token');
    }
    const health = await http(d.port, 'GET', '/v1/health');
    assert.deepEqual(Object.keys(health.body).sort(), ['ok', 'version']);
    const ok = await d.api('POST', '/v1/speak', { text: 'Still serving after bad input.', wait: true });
    assert.equal(ok.body.status, 'played');
  });

  test('status reports counters and history with the spoken text and session', async () => {
    await d.api('POST', '/v1/speak', { text: 'History check.', session: 'shop#abc123', voice: 'en-gb', wait: true });
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.status, 200);
    assert.equal(s.body.pid, d.pid);
    assert.ok(s.body.counters.played >= 1);
    const h = s.body.history.find((e: any) => e.text === 'History check.');
    assert.ok(h, 'history entry');
    assert.equal(h.session, 'shop#abc123');
    assert.equal(h.voice, 'en-gb');
    assert.equal(h.outcome, 'played');
    assert.ok(h.startedAt && h.finishedAt);
  });

  test('voices lists the embedded voices', async () => {
    const r = await d.api('GET', '/v1/voices');
    assert.equal(r.status, 200);
    assert.ok(r.body.voices.length > 50);
    assert.ok(r.body.voices.some((v: any) => v.id === 'gmw/en-US'));
  });

  test('vox say exit codes: input rejected is 4, help prints --once to stdout', async () => {
    const rejected = await vox(['say', '--engine', 'no-such-engine', 'hello'], { env: d.env });
    assert.equal(rejected.code, 4, rejected.stderr);
    assert.match(rejected.stderr, /VOX_ERR_ENGINE_UNKNOWN/);
    for (const name of ['say', 'unmute']) {
      const help = await vox([name, '--help'], { env: d.env });
      assert.equal(help.code, 0);
      assert.match(help.stdout, /--once/);
    }
  });

  test('vox say reads text from a pipe', async () => {
    const before = d.wavs().length;
    const r = await vox(['say', '--wait', '-'], { env: d.env, input: 'Text from a pipe.\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(d.wavs().length, before + 1);
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.history[0].text, 'Text from a pipe.');
  });
});

describe('failures', () => {
  test('a failed playback does not suppress a retry', async () => {
    // A player that fails its first utterance and plays (into a file) after that. voxd's probe
    // (10 ms of silence, PROBE_BYTES) is not an utterance: it plays, so the first request is accepted.
    const bin = tempDir('vox-bin-');
    const marker = join(bin, 'failed-once');
    const capture = join(bin, 'captured.raw');
    writeFileSync(
      join(bin, 'aplay'),
      fakePlayer(`
        const fs = require('node:fs');
        const got = [];
        process.stdin.on('data', (d) => got.push(d)).on('end', () => {
          const pcm = Buffer.concat(got);
          if (pcm.length > ${PROBE_BYTES} && !fs.existsSync(${JSON.stringify(marker)})) {
            fs.writeFileSync(${JSON.stringify(marker)}, '');
            process.stderr.write('aplay: device busy\\n');
            process.exit(1);
          }
          fs.appendFileSync(${JSON.stringify(capture)}, pcm);
        });
      `),
    );
    chmodSync(join(bin, 'aplay'), 0o755);
    const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
    try {
      const first = await d.api('POST', '/v1/speak', { text: 'Retry me.', wait: true });
      assert.equal(first.body.status, 'failed');
      assert.equal(first.body.error.code, 'VOX_ERR_PLAYBACK_FAILED');
      assert.match(first.body.error.message, /device busy/);
      const retry = await d.api('POST', '/v1/speak', { text: 'Retry me.', wait: true });
      assert.equal(retry.body.status, 'played');
      assert.ok(readFileSync(capture).length > 22050, 'the retry reached the player');
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.counters.failed, 1);
      assert.equal(s.body.counters.played, 1);
      assert.match(s.body.sink.name, /aplay/);
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(bin);
    }
  });

  test('an installed player with no device behind it: the first request is refused at once with its words, nothing queued', async () => {
    // Like aplay on a machine without a sound card: it exits at once and never reads its stdin.
    const bin = tempDir('vox-bin-');
    writeFileSync(
      join(bin, 'aplay'),
      fakePlayer(
        `process.stderr.write('aplay: main:831: audio open error: No such file or directory\\n'); process.exit(1);`,
      ),
    );
    chmodSync(join(bin, 'aplay'), 0o755);
    const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
    try {
      // voxd probed the player (10 ms of silence) before answering: never "queued" for speech nobody hears.
      const first = await d.api('POST', '/v1/speak', { text: 'Nobody hears this.' });
      assert.equal(first.status, 503, JSON.stringify(first.body));
      assert.equal(first.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
      assert.match(
        first.body.message,
        /nothing will be heard: aplay exited with code 1: aplay: main:831: audio open error/,
      );
      // A player is installed, so the fix is the device (or files), not "install a player".
      assert.match(first.body.message, /To fix: check the sound card and the sound server/);
      assert.match(first.body.message, /vox daemon config set audio file:DIR/);
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.ok, false);
      assert.equal(s.body.counters.accepted, 0);
      const say = await vox(['say', 'Nor this.'], { env: d.env });
      assert.equal(say.code, 5, say.stderr);
      assert.equal(say.stderr.trim().split('\n').length, 1, say.stderr);
      assert.match(say.stderr, /audio open error/);
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(bin);
    }
  });

  test('a player that dies before reading anything fails the utterance; the queue never hangs', async () => {
    // Like aplay when the sound card goes away: the device is there for voxd's probe at start
    // (the player's first run plays its 10 ms of silence), then every run exits at once and never reads its stdin.
    const bin = tempDir('vox-bin-');
    const runs = join(bin, 'runs');
    writeFileSync(
      join(bin, 'aplay'),
      fakePlayer(`
        const fs = require('node:fs');
        if (!fs.existsSync(${JSON.stringify(runs)})) {
          fs.writeFileSync(${JSON.stringify(runs)}, '');
          process.stdin.resume();
        } else {
          process.stderr.write('aplay: main:831: audio open error: No such file or directory\\n');
          process.exit(1);
        }
      `),
    );
    chmodSync(join(bin, 'aplay'), 0o755);
    const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
    try {
      // Long enough to fill the pipe many times over.
      const long = 'This announcement is long enough to fill a pipe buffer several times over. '.repeat(12);
      const first = await d.api('POST', '/v1/speak', { text: long, wait: true });
      assert.equal(first.body.status, 'failed');
      assert.match(first.body.error.message, /audio open error/);
      // The player failed, and a fresh probe fails too: the next request is refused at once, with the player's words.
      const second = await d.api('POST', '/v1/speak', { text: 'And the next one is reported too.', wait: true });
      assert.equal(second.status, 503, JSON.stringify(second.body));
      assert.equal(second.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
      assert.match(second.body.message, /audio open error/);
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.playing, null);
      assert.equal(s.body.counters.failed, 1);
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(bin);
    }
  });

  test('a missing audio device is reported in status and the response, and voxd keeps serving', async () => {
    const d = await startDaemon({ audio: 'command', env: { PATH: '/nonexistent' } });
    try {
      const r = await d.api('POST', '/v1/speak', { text: 'Nobody hears this.', wait: true });
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
      assert.match(r.body.message, /no player command on PATH/);
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.ok, false);
      assert.equal((await d.api('GET', '/v1/health')).status, 200);
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });

  test('vox say exits 3 when voxd is unreachable and autostart is off', async () => {
    const home = tempDir();
    try {
      const r = await vox(['say', 'hello'], { env: cleanEnv(home, { VOX_NO_AUTOSTART: '1' }) });
      assert.equal(r.code, 3);
      assert.match(r.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
      assert.match(r.stderr, /vox daemon start/);
    } finally {
      removeDir(home);
    }
  });
});

describe('process lifecycle', () => {
  test('a second voxd on the same VOX_HOME exits with a clear message', async () => {
    const d = await startDaemon();
    try {
      const r = spawnSync(process.execPath, [VOXD], { env: d.env, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /already running/);
      assert.match(r.stderr, new RegExp(`pid ${d.pid}`));
      assert.equal((await d.api('GET', '/v1/health')).status, 200, 'the first keeps serving');
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });

  test('SIGTERM mid-sentence cuts the utterance short, hands the request over to the journal, removes voxd.json and exits 0', async () => {
    const d = await startDaemon();
    try {
      const long = d
        .api('POST', '/v1/speak', { text: 'This is a long announcement that keeps going. '.repeat(8), wait: true })
        .catch((e: Error) => ({ status: 0, body: { status: 'connection closed', error: e.message } }));
      await waitFor(
        async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined),
        20_000,
        'playback',
      );
      const code = await d.stop();
      assert.equal(code, 0);
      assert.equal(existsSync(join(d.home, 'voxd.json')), false);
      const r = await long;
      // The cut request is handed over to the next voxd through the journal, and the waiting
      // caller is cut off without an answer, as by a crash, so that it re-sends there and
      // gets the outcome (journal.e2e.test.ts).
      assert.equal(r.status, 0, JSON.stringify(r.body));
      assert.match(readFileSync(join(d.home, 'journal.jsonl'), 'utf8'), /This is a long announcement/);
      const wav = d.wavs()[0]!;
      // Not a timing check: the whole text is over 20 s of speech, so a shorter WAV means voxd cut it.
      assert.ok(wavStats(wav).durationMs < 20_000, 'the utterance was cut');
    } finally {
      removeDir(d.home);
    }
  });

  test('eight vox say at once with no daemon start exactly one', async () => {
    const home = tempDir();
    const out = join(home, 'out');
    mkdirSync(out);
    const env = cleanEnv(home, { VOXD_PORT: '0' });
    writeSettings(env, { audio: `file:${out}?realtime=0` });
    try {
      const runs = await Promise.all(
        Array.from({ length: 8 }, () => vox(['say', '--json', 'Cold start for everyone'], { env })),
      );
      for (const r of runs) assert.equal(r.code, 0, r.stderr);
      const state = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
      const listened = () =>
        readFileSync(join(home, 'logs', 'voxd.log'), 'utf8')
          .split('\n')
          .filter((l) => l.includes('"msg":"voxd listening"')).length;
      await waitFor(() => listened() || undefined, 10_000, 'the log line');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(listened(), 1, 'one daemon listened');
      const statuses = runs.map((r) => JSON.parse(r.stdout).status).sort();
      assert.equal(statuses.filter((s) => s === 'queued').length, 1);
      process.kill(state.pid, 'SIGTERM');
      await waitFor(() => (existsSync(join(home, 'voxd.json')) ? undefined : true), 10_000, 'voxd to exit');
    } finally {
      // The voxd that vox started, also when an assertion above failed.
      await stopDaemonsUnder(home);
      removeDir(home);
    }
  });
});

describe('versions', () => {
  test('vox say warns when the daemon it reaches is older than itself', async () => {
    const { createServer } = await import('node:http');
    // A stand-in for an old voxd: answers like one, with an old version header.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(202, { 'content-type': 'application/json', 'x-voxd-version': '0.0.1' });
        res.end(JSON.stringify({ id: 'old', status: 'queued', text: 'hi' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    const home = tempDir();
    try {
      const r = await vox(['say', 'hi'], {
        env: cleanEnv(home, { VOXD_URL: `http://127.0.0.1:${port}`, VOXD_TOKEN: 't' }),
      });
      assert.equal(r.code, 0);
      assert.match(r.stderr, /voxd 0\.0\.1 is older than this vox/);
      assert.match(r.stderr, /vox daemon restart/);
    } finally {
      server.close();
      removeDir(home);
    }
  });
});

describe('hard failures', () => {
  test('voxd killed mid-sentence: the waiting request is spoken again by a new daemon, not lost', async () => {
    const d = await startDaemon();
    try {
      const text = 'This sentence is long enough to be cut in the middle. And here is another one.';
      const waiting = vox(['say', '--wait', '--json', text], { env: d.env, timeoutMs: 90_000 });
      // Kill once audio is reaching the sink (the WAV exists and grows).
      await waitFor(
        () => (d.wavs().length === 1 && statSync(d.wavs()[0]!).size > 44 + 22050 ? true : undefined),
        20_000,
        'audio at the sink',
      );
      process.kill(d.pid, 'SIGKILL');
      // The connection resets; the client starts a fresh voxd (once the dead one's
      // lock goes stale) and sends the request again, so it is spoken, not dropped.
      const r = await waiting;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).status, 'played');
      const state = JSON.parse(readFileSync(join(d.home, 'voxd.json'), 'utf8'));
      assert.notEqual(state.pid, d.pid, 'a new daemon answered');
      const token = readFileSync(join(d.home, 'token'), 'utf8').trim();
      const status = await http(state.port, 'GET', '/v1/status', { token });
      assert.equal(status.body.history[0].text, text);
      assert.equal(status.body.history[0].outcome, 'played');
      const wavs = d.wavs();
      assert.equal(wavs.length, 2, `the cut first attempt and the full second one: ${readdirSync(d.out).join(', ')}`);
      assert.ok(wavStats(wavs[0]!).durationMs < wavStats(wavs[1]!).durationMs, 'the first was cut short');
      process.kill(state.pid, 'SIGTERM');
      await waitFor(() => (existsSync(join(d.home, 'voxd.json')) ? undefined : true), 10_000, 'the new voxd to exit');
    } finally {
      // The first voxd, and the one vox started in its place, also when an assertion above failed.
      await d.stop();
      await stopDaemonsUnder(d.home);
      removeDir(d.home);
    }
  });

  test('a megabyte of text on stdin is refused with a clear error and exit 4', async () => {
    const d = await startDaemon();
    try {
      const r = await vox(['say', '-'], { env: d.env, input: 'All work and no play. '.repeat(50_000) });
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /VOX_ERR_BODY_TOO_LARGE|VOX_ERR_TEXT_TOO_LONG/);
      assert.match(r.stderr, /split it/);
      assert.equal((await d.api('GET', '/v1/health')).status, 200);
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });
});

describe('stale state', () => {
  test('a voxd.json naming a live process that is not voxd does not block a new daemon', async () => {
    const home = tempDir();
    const { spawn: spawnChild } = await import('node:child_process');
    // A pid that is alive but is not voxd: what a reboot or a reused pid leaves behind.
    const impostor = spawnChild(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(
        join(home, 'voxd.json'),
        JSON.stringify({
          pid: impostor.pid,
          host: '127.0.0.1',
          port: 9,
          version: '0.1.0',
          startedAt: new Date().toISOString(),
        }),
      );
      const out = join(home, 'out');
      const env = cleanEnv(home, { VOXD_PORT: '0' });
      writeSettings(env, { audio: `file:${out}?realtime=0`, engine: 'espeak' });
      const r = await vox(['say', '--wait', '--json', 'Not fooled by a stale file.'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).status, 'played');
      const state = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
      assert.notEqual(state.pid, impostor.pid);
      process.kill(state.pid, 'SIGTERM');
      await waitFor(() => (existsSync(join(home, 'voxd.json')) ? undefined : true), 10_000, 'voxd to exit');
    } finally {
      impostor.kill();
      await stopDaemonsUnder(home);
      removeDir(home);
    }
  });
});

describe('stop and the duplicate window', () => {
  test('a repeat of a stopped text is deduped and says the original was stopped, not played', async () => {
    const d = await startDaemon();
    try {
      const text = 'Stop me halfway through this rather long sentence, please. And this one too.';
      const first = await d.api('POST', '/v1/speak', { text });
      await waitFor(
        async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined),
        20_000,
        'playback',
      );
      await d.api('POST', '/v1/stop', { scope: 'all' });
      await d.idle();
      const again = await d.api('POST', '/v1/speak', { text });
      assert.equal(again.body.status, 'deduped');
      assert.equal(again.body.duplicate.originalId, first.body.id);
      assert.equal(again.body.duplicate.originalStatus, 'stopped');
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });
});
