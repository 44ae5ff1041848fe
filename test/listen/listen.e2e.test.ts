/**
 * Voice input end to end: the real voxd records a "microphone" — the recorder
 * shim test/fixtures/listen/arecord, which plays test/fixtures/listen/sentence.wav
 * (a sentence spoken by vox's own eSpeak-NG, then silence; made by
 * scripts/make-listen-fixture.mjs) at real time — end-points it, and posts it
 * to a real OpenAI-style transcription server on 127.0.0.1 that parses the
 * multipart body and checks the WAV. One test runs the real arecord instead,
 * capturing the fixture through ALSA's file plugin (`infile`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  FIXTURES,
  isRunning,
  removeDir,
  startDaemon,
  tempDir,
  VOX,
  vox,
  waitFor,
  type Daemon,
} from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { needTool } from '../helpers/tools.js';
import { micEnv } from '../helpers/recorder-shim.js';
import { wavStats } from '../helpers/wav.js';

/** Where the fixture's speech is (scripts/make-listen-fixture.mjs prints it). */
const SPEECH_START_MS = 300;
const SPEECH_MS = 1740;
const TRANSCRIPT = 'Please turn on the lights in the kitchen.';

let api: TranscriptionApi;
let d: Daemon;
let dir: string;
let control: string;
let pidfile: string;

function mic(settings: { leadMs?: number; fail?: 'open'; wav?: string } = {}): void {
  writeFileSync(control, JSON.stringify(settings));
  rmSync(pidfile, { force: true });
}

/** The shim's pid and start time, once it plays. */
function micStarted(file = pidfile): Promise<{ pid: number; startedAt: number }> {
  return waitFor(
    () => {
      if (!existsSync(file)) return undefined;
      const [pid, at] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
      return pid ? { pid, startedAt: at! } : undefined;
    },
    20_000,
    'the recorder to start',
  );
}

before(async () => {
  api = await startTranscriptionApi();
  dir = tempDir('vox-listen-');
  control = join(dir, 'mic.json');
  pidfile = join(dir, 'mic.pid');
  d = await startDaemon({
    home: dir,
    env: micEnv(dir, { VOXD_TRANSCRIBER_URL: api.url, VOXD_TRANSCRIBER_TIMEOUT_MS: '1500' }),
  });
});
after(async () => {
  await d?.stop();
  await api?.close();
  removeDir(dir);
});

describe('POST /v1/listen', () => {
  test('ends on the silence after the sentence, and the transcriber gets a 16 kHz mono WAV of the recording', async () => {
    mic();
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    api.received.length = 0;
    const wavsBefore = d.wavs().length;
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, language: 'en', session: 'kitchen#1' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'silence');
    assert.equal(r.body.text, TRANSCRIPT);
    assert.equal(r.body.transcribed, true);
    assert.ok(
      Math.abs(r.body.speechMs - SPEECH_MS) <= 200,
      `speechMs ${r.body.speechMs} vs the fixture's ${SPEECH_MS}`,
    );
    // Recorded: the lead, the speech, then the trailing silence that ended it (no more than a few frames past it).
    assert.ok(r.body.durationMs >= SPEECH_START_MS + SPEECH_MS + 700 - 100, `durationMs ${r.body.durationMs}`);
    assert.ok(r.body.durationMs <= SPEECH_START_MS + SPEECH_MS + 700 + 600, `durationMs ${r.body.durationMs}`);
    assert.equal(r.body.audioPath, undefined, 'not kept unless asked');
    assert.equal(api.received.length, 1);
    const got = api.received[0]!;
    assert.equal(got.wavError, undefined);
    assert.deepEqual(
      { rate: got.wav!.sampleRate, channels: got.wav!.channels, bits: got.wav!.bitsPerSample },
      { rate: 16000, channels: 1, bits: 16 },
    );
    assert.ok(
      Math.abs(got.wav!.durationMs - r.body.durationMs) <= 1,
      `the WAV sent is the recording: ${got.wav!.durationMs} vs ${r.body.durationMs}`,
    );
    assert.ok(got.wav!.rms > 0.02, `speech, not silence (rms ${got.wav!.rms})`);
    assert.equal(got.fields.model, 'whisper-1');
    assert.equal(got.fields.language, 'en');
    assert.equal(got.fileType, 'audio/wav');
    assert.equal(got.authorization, undefined, 'no key is sent to a local server without one');
    // The prompt chime played first (the file sink wrote it), and the recorder is gone.
    assert.equal(d.wavs().length, wavsBefore + 1, 'the prompt chime');
    const { pid } = await micStarted();
    await waitFor(() => !isRunning(pid), 5000, 'the recorder to be gone');
  });

  test('keepAudio returns the WAV under VOX_HOME/listen; the start timeout ends a listen with no speech', async () => {
    mic();
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const kept = await d.api('POST', '/v1/listen', { silenceMs: 700, keepAudio: true, prompt: false });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.ok(kept.body.audioPath.startsWith(join(d.home, 'listen')), kept.body.audioPath);
    const s = wavStats(kept.body.audioPath);
    assert.equal(s.sampleRate, 16000);
    assert.ok(Math.abs(s.durationMs - kept.body.durationMs) <= 1);

    mic({ leadMs: 10_000 });
    api.received.length = 0;
    const r = await d.api('POST', '/v1/listen', { startTimeoutMs: 1000, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'timeout');
    assert.equal(r.body.text, '');
    assert.equal(r.body.speechMs, 0);
    assert.equal(r.body.transcribed, false);
    assert.match(r.body.reason, /no speech within 1000 ms/);
    assert.equal(api.received.length, 0, 'silence is not sent to the transcriber');
  });

  test('the hard maximum cuts a listen in the middle of the sentence', async () => {
    mic();
    api.mode = { kind: 'ok', text: 'Please turn on' };
    const r = await d.api('POST', '/v1/listen', { maxSeconds: 1, silenceMs: 700, prompt: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'max');
    assert.ok(r.body.durationMs >= 900 && r.body.durationMs <= 1300, `durationMs ${r.body.durationMs}`);
    assert.ok(r.body.speechMs > 0 && r.body.speechMs < SPEECH_MS);
    assert.equal(r.body.text, 'Please turn on');
  });

  test('one listener at a time: a second that will not wait (waitMs 0) gets 409 naming the session; POST /v1/stop ends the first as "stopped"', async () => {
    mic({ leadMs: 20_000 });
    const first = d.api('POST', '/v1/listen', { session: 'shop#3c07f0', startTimeoutMs: 30_000, prompt: false });
    const { pid } = await micStarted();
    const second = await d.api('POST', '/v1/listen', { session: 'other#1', waitMs: 0 });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'VOX_ERR_LISTEN_BUSY');
    assert.match(second.body.message, /session shop#3c07f0/);
    const stop = await d.api('POST', '/v1/stop', {});
    assert.equal(stop.status, 200);
    assert.match(stop.body.stopped[0], /^listen-/);
    const r = await first;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.endedBy, 'stopped');
    assert.ok(!isRunning(pid), 'the recorder is gone when the listen answers');
  });

  test('speech sent during a listen is queued behind it and played after the recording', async () => {
    mic();
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const listening = d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    const { startedAt } = await micStarted();
    const speak = d.api('POST', '/v1/speak', { text: 'Queued behind the listen.', session: 'other#2', wait: true });
    const queued = await waitFor(
      async () => {
        const s = (await d.api('GET', '/v1/status')).body;
        return s.queue.items.find((i: any) => i.text === 'Queued behind the listen.') ? s : undefined;
      },
      10_000,
      'the speech to be queued',
    );
    assert.equal(queued.playing, null, 'nothing plays while listening');
    const r = await listening;
    assert.equal(r.body.endedBy, 'silence');
    assert.equal(r.body.text, TRANSCRIPT, "the transcript is the fixture, not voxd's own voice");
    const spoken = await speak;
    assert.equal(spoken.body.status, 'played');
    const entry = (await d.api('GET', '/v1/status')).body.history.find((h: any) => h.id === spoken.body.id);
    const recordingEnd = startedAt + r.body.durationMs;
    assert.ok(
      Date.parse(entry.startedAt) >= recordingEnd - 150,
      `speech started ${Date.parse(entry.startedAt) - recordingEnd} ms after the recording ended`,
    );
  });

  test('a listen waits for the utterance playing; with interrupt it cuts it', async () => {
    mic();
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const long = 'This sentence plays while a listen waits for it to end. It has a second sentence too.';
    const speaking = d.api('POST', '/v1/speak', { text: long, wait: true });
    await waitFor(
      async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined),
      10_000,
      'speech to play',
    );
    const listened = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(listened.status, 200);
    const played = await speaking;
    assert.equal(played.body.status, 'played', 'not cut');
    const entry = (await d.api('GET', '/v1/status')).body.history.find((h: any) => h.id === played.body.id);
    const { startedAt } = await micStarted();
    assert.ok(startedAt >= Date.parse(entry.finishedAt) - 50, 'recording began after the utterance ended');

    mic();
    const cut = d.api('POST', '/v1/speak', { text: `${long} And this one is cut.`, wait: true });
    await waitFor(
      async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined),
      10_000,
      'speech to play',
    );
    const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false, interrupt: true });
    assert.equal(r.status, 200);
    const c = await cut;
    assert.equal(c.body.status, 'interrupted');
    assert.match(c.body.reason, /cut by a listen/);
  });

  test('the transcriber key comes from VOX_HOME/keys.env, as the speech keys do, and is never echoed', async () => {
    const keys = join(d.home, 'keys.env');
    writeFileSync(keys, 'TRANSCRIBER_API_KEY=sk-local-transcriber-0123456789\n', { mode: 0o600 });
    try {
      mic();
      api.mode = { kind: 'ok', text: TRANSCRIPT };
      api.received.length = 0;
      const ok = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(ok.status, 200);
      assert.equal(api.received[0]!.authorization, 'Bearer sk-local-transcriber-0123456789');
      mic();
      api.mode = {
        kind: 'status',
        status: 500,
        body: { error: { message: 'bad key sk-local-transcriber-0123456789 for this model' } },
      };
      const failed = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(failed.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
      assert.ok(!JSON.stringify(failed.body).includes('sk-local-transcriber'), failed.body.message);
    } finally {
      rmSync(keys, { force: true });
      api.mode = { kind: 'ok', text: TRANSCRIPT };
    }
  });

  test('out-of-range options are a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ silenceMs: 50 }, 'silenceMs'],
      [{ maxSeconds: 0 }, 'maxSeconds'],
      [{ startTimeoutMs: 'soon' }, 'startTimeoutMs'],
      [{ language: 'english please' }, 'language'],
      [{ seconds: 3 }, 'seconds'],
    ] as const) {
      const r = await d.api('POST', '/v1/listen', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'VOX_ERR_BODY_INVALID');
      assert.match(r.body.message, new RegExp(field));
    }
  });

  test('a recorder killed mid-listen is a clear error that keeps the audio captured so far', async () => {
    mic();
    const listening = d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    const { pid, startedAt } = await micStarted();
    // Into the sentence, so there is speech to keep.
    await waitFor(() => (Date.now() - startedAt > 1000 ? true : undefined), 5000, 'a second of recording');
    process.kill(pid, 'SIGKILL');
    const r = await listening;
    assert.equal(r.status, 500, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_RECORDER_FAILED');
    assert.match(r.body.message, /killed \(SIGKILL\)/);
    const s = wavStats(r.body.audioPath);
    assert.equal(s.sampleRate, 16000);
    assert.ok(s.durationMs > 500 && s.rms > 0.01, `kept ${s.durationMs} ms, rms ${s.rms}`);
    // voxd serves on, and the next listen works.
    mic();
    const next = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
    assert.equal(next.status, 200);
  });

  test('a microphone that cannot be opened is a clear 503', async () => {
    mic({ fail: 'open' });
    const r = await d.api('POST', '/v1/listen', { prompt: false });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_MIC_UNAVAILABLE');
    assert.match(r.body.message, /audio open error/);
  });

  test('a client that goes away releases the microphone', async () => {
    mic({ leadMs: 20_000 });
    const req = request({
      host: '127.0.0.1',
      port: d.port,
      method: 'POST',
      path: '/v1/listen',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ startTimeoutMs: 30_000, prompt: false }));
    const { pid } = await micStarted();
    req.destroy();
    await waitFor(() => (!isRunning(pid) ? true : undefined), 5000, 'the recorder to be killed');
    mic();
    // voxd frees the microphone once it has reaped the recorder's group, a moment after the pid
    // is gone: until then a listen is refused busy (409), which is the rule, so wait for the release.
    const r = await waitFor(
      async () => {
        const x = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
        return x.status === 409 ? undefined : x;
      },
      5000,
      'the microphone to be released',
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('transcriber failures are typed: 401, 413, timeout; the recording is kept', async () => {
    const cases = [
      [
        { kind: 'status', status: 401, body: { error: { message: 'Incorrect API key provided: sk-abc...' } } },
        'VOX_ERR_TRANSCRIBER_AUTH',
        502,
      ],
      [
        { kind: 'status', status: 413, body: { error: { message: 'Maximum content size limit exceeded' } } },
        'VOX_ERR_TRANSCRIBER_TOO_LARGE',
        502,
      ],
      [{ kind: 'hang' }, 'VOX_ERR_TRANSCRIBER_TIMEOUT', 504],
      [
        { kind: 'status', status: 500, body: { error: { message: 'model not loaded' } } },
        'VOX_ERR_TRANSCRIBER_FAILED',
        502,
      ],
    ] as const;
    for (const [mode, code, status] of cases) {
      mic();
      api.mode = mode as TranscriptionApi['mode'];
      const r = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, status, `${code}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code);
      assert.ok(existsSync(r.body.audioPath), `${code} keeps the recording`);
      if (code === 'VOX_ERR_TRANSCRIBER_FAILED') assert.match(r.body.message, /HTTP 500 .*model not loaded/);
    }
  });
});

describe('clients: vox listen, and the MCP tools listen and converse', () => {
  test("vox listen prints the transcript; --json gives voxd's answer and --out saves the WAV", async () => {
    mic();
    api.mode = { kind: 'ok', text: TRANSCRIPT };
    const plain = await vox(['listen', '--silence', '700', '--no-prompt'], { env: d.env });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, `${TRANSCRIPT}\n`);
    mic();
    const out = join(dir, 'answer.wav');
    const json = await vox(['listen', '--silence', '700', '--max', '20', '--no-prompt', '--out', out, '--json'], {
      env: d.env,
    });
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout);
    assert.equal(body.endedBy, 'silence');
    assert.equal(body.text, TRANSCRIPT);
    const s = wavStats(out);
    assert.equal(s.sampleRate, 16000);
    assert.ok(Math.abs(s.durationMs - body.durationMs) <= 1);
    const bad = await vox(['listen', '--silence', '50'], { env: d.env });
    assert.equal(bad.code, 4);
    assert.match(bad.stderr, /--silence \(field "silenceMs"\)/);
    const nan = await vox(['listen', '--max', 'ten'], { env: d.env });
    assert.equal(nan.code, 2);
    assert.match(nan.stderr, /--max must be a number/);
  });

  test("converse through the SDK's real Client: speaks the question, then returns the spoken answer", async () => {
    const project = tempDir('vox-listen-project-');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: project,
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'vox-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const converse = tools.find((t) => t.name === 'converse')!;
      assert.ok(converse.outputSchema, 'converse declares its output');
      assert.deepEqual(converse.inputSchema.required, ['text']);
      mic();
      api.mode = { kind: 'ok', text: TRANSCRIPT };
      api.received.length = 0;
      const wavsBefore = d.wavs().length;
      const r = (await client.callTool(
        { name: 'converse', arguments: { text: 'Which room should I light?', silenceMs: 700 } },
        undefined,
        { timeout: 60_000 },
      )) as CallToolResult;
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      const sc = r.structuredContent as any;
      assert.equal(sc.text, TRANSCRIPT);
      assert.equal(sc.endedBy, 'silence');
      assert.equal(sc.said.status, 'played');
      assert.ok(Math.abs(sc.speechMs - SPEECH_MS) <= 200);
      assert.deepEqual(
        JSON.parse((r.content[0] as { text: string }).text),
        sc,
        'the text block is the same compact JSON',
      );
      // The question was spoken (a WAV with speech), then the prompt chime; the transcriber heard the fixture only.
      const wavs = d.wavs().slice(wavsBefore);
      assert.equal(wavs.length, 2, 'the question and the prompt chime');
      assert.ok(wavStats(wavs[0]!).durationMs > 800);
      assert.equal(api.received.length, 1);
      const { startedAt } = await micStarted();
      const entry = (await d.api('GET', '/v1/status')).body.history.find((h: any) => h.id === sc.said.id);
      assert.ok(startedAt >= Date.parse(entry.finishedAt), 'the recording began after the question was spoken');

      mic({ leadMs: 10_000 });
      const silent = (await client.callTool({ name: 'listen', arguments: { startTimeoutMs: 1000 } }, undefined, {
        timeout: 60_000,
      })) as CallToolResult;
      assert.equal(silent.isError, undefined);
      assert.deepEqual(Object.keys(silent.structuredContent as object).sort(), [
        'durationMs',
        'endedBy',
        'speechMs',
        'text',
        'why',
      ]);
      assert.equal((silent.structuredContent as any).endedBy, 'timeout');

      mic({ fail: 'open' });
      const failed = (await client.callTool({ name: 'listen', arguments: {} }, undefined, {
        timeout: 60_000,
      })) as CallToolResult;
      assert.equal(failed.isError, true);
      assert.match((failed.content[0] as { text: string }).text, /^VOX_ERR_MIC_UNAVAILABLE: .*audio open error/);
    } finally {
      await client.close();
      removeDir(project);
    }
  });
});

describe('without a transcriber, a recorder, or a transcriber that answers', () => {
  test('no transcriber configured: the listen records, returns the WAV and says how to set one', async () => {
    const home = tempDir('vox-listen-none-');
    const e = await startDaemon({ home, env: micEnv(home) });
    try {
      writeFileSync(join(home, 'mic.json'), '{}');
      const r = await e.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.transcribed, false);
      assert.equal(r.body.text, '');
      assert.equal(r.body.endedBy, 'silence');
      assert.match(r.body.reason, /no transcriber is set/);
      assert.match(r.body.reason, /vox daemon config set transcriber\.url/);
      assert.match(r.body.reason, /Offline, in voxd: "vox voices install whisper-tiny\.en-int8"/);
      const s = wavStats(r.body.audioPath);
      assert.deepEqual([s.sampleRate, s.channels], [16000, 1]);
      assert.ok(Math.abs(s.durationMs - r.body.durationMs) <= 1);
    } finally {
      await e.stop();
      removeDir(home);
    }
  });

  test('an unreachable transcriber is typed', async () => {
    const home = tempDir('vox-listen-unreachable-');
    const gone = await startTranscriptionApi();
    const url = gone.url;
    await gone.close();
    const e = await startDaemon({ home, env: micEnv(home, { VOXD_TRANSCRIBER_URL: url }) });
    try {
      writeFileSync(join(home, 'mic.json'), '{}');
      const r = await e.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_TRANSCRIBER_UNREACHABLE');
      assert.match(r.body.message, /ECONNREFUSED/);
      assert.ok(existsSync(r.body.audioPath));
    } finally {
      await e.stop();
      removeDir(home);
    }
  });

  test(
    "the real arecord, capturing from ALSA's file plugin (infile = the fixture)",
    { skip: needTool('arecord') },
    async () => {
      const home = tempDir('vox-listen-alsa-');
      // The file plugin hands arecord the fixture's samples; its null slave does not pace, so the
      // audio arrives faster than real time (end-pointing counts audio, not the clock).
      const raw = join(home, 'sentence.raw');
      writeFileSync(raw, readFileSync(join(FIXTURES, 'listen', 'sentence.wav')).subarray(44));
      const conf = join(home, 'alsa.conf');
      writeFileSync(
        conf,
        `pcm.!default {\n  type file\n  slave { pcm { type null } }\n  file "/dev/null"\n  infile "${raw}"\n  format "raw"\n}\n`,
      );
      const e = await startDaemon({
        home,
        env: { VOXD_RECORDER: 'arecord', ALSA_CONFIG_PATH: conf, VOXD_TRANSCRIBER_URL: api.url },
      });
      try {
        api.mode = { kind: 'ok', text: TRANSCRIPT };
        api.received.length = 0;
        const r = await e.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.endedBy, 'silence');
        assert.ok(Math.abs(r.body.speechMs - SPEECH_MS) <= 200, `speechMs ${r.body.speechMs}`);
        assert.equal(r.body.text, TRANSCRIPT);
        const got = api.received.at(-1)!;
        assert.deepEqual([got.wav!.sampleRate, got.wav!.channels, got.wav!.bitsPerSample], [16000, 1, 16]);
        assert.ok(got.wav!.rms > 0.02);
      } finally {
        await e.stop();
        removeDir(home);
      }
    },
  );

  test('no recorder binary: a clear error naming what to install', async () => {
    const home = tempDir('vox-listen-norec-');
    // PATH without arecord, rec or sox (voxd itself runs as process.execPath).
    const e = await startDaemon({ home, env: { PATH: join(home, 'empty-bin') } });
    try {
      const r = await e.api('POST', '/v1/listen', {});
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VOX_ERR_RECORDER_MISSING');
      assert.match(r.body.message, /none of arecord, rec, sox is on PATH/);
      assert.match(r.body.message, /alsa-utils/);
      assert.equal(e.wavs().length, 0, 'no chime for a listen that cannot record');
    } finally {
      await e.stop();
      removeDir(home);
    }
  });

  test("voxd's shutdown releases the microphone", async () => {
    const home = tempDir('vox-listen-shutdown-');
    const e = await startDaemon({ home, env: micEnv(home) });
    writeFileSync(join(home, 'mic.json'), JSON.stringify({ leadMs: 20_000 }));
    const listening = e
      .api('POST', '/v1/listen', { startTimeoutMs: 30_000, prompt: false })
      .catch((err: Error) => ({ status: 0, body: err.message }));
    const { pid } = await micStarted(join(home, 'mic.pid'));
    assert.equal(await e.stop(), 0);
    assert.ok(!isRunning(pid), 'the recorder died with voxd');
    const r = await listening;
    assert.ok(r.status === 200 ? r.body.endedBy === 'stopped' : true, JSON.stringify(r.body));
    removeDir(home);
  });
});
