/**
 * Quiet when the microphone is in use (quiet/mic-watch.ts): with a real
 * PulseAudio of the test's own (a null sink), a recording from its monitor
 * by "another program" (parec) holds speech, an ask is only chimed, and
 * speech resumes once the recording ends; vox's own listen, recording from
 * the same server, does not hold it. Real voxd, status, history and WAVs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { needTool } from '../helpers/tools.js';
import { FIXTURES, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';

const skip = needTool('pulseaudio') || needTool('pactl') || needTool('parec');

describe('the microphone in use by another program holds speech', { skip }, () => {
  let d: Daemon;
  let dir: string;
  let server: ChildProcess;
  let paEnv: NodeJS.ProcessEnv;
  const status = async () => (await d.api('GET', '/v1/status')).body;
  const outcome = async (id: string) => (await status()).history.find((h: { id: string }) => h.id === id)?.outcome;
  const wavsOf = (id: string) => d.wavs().filter((f) => f.endsWith(`-${id}.wav`));
  const settled = (id: string, what: string) =>
    waitFor(async () => ((await outcome(id)) === what ? true : undefined), 60_000, `${id} ${what}`);
  /** "Another program": a recording from the null sink's monitor under its own client name. */
  const record = (name: string) => {
    const p = spawn('parec', ['-n', name, '-d', 'vox_null.monitor'], {
      env: paEnv,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return p;
  };
  const stopRecording = async (p: ChildProcess) => {
    const gone = new Promise((r) => p.once('exit', r));
    p.kill();
    await gone;
  };

  before(async () => {
    dir = tempDir('vox-pulse-');
    const run = join(dir, 'run');
    mkdirSync(run);
    chmodSync(run, 0o700);
    const socket = join(run, 'native');
    paEnv = { ...process.env, XDG_RUNTIME_DIR: run, HOME: dir, PULSE_SERVER: `unix:${socket}` };
    server = spawn(
      'pulseaudio',
      [
        '--daemonize=no',
        '--exit-idle-time=-1',
        '--use-pid-file=no',
        '-n',
        '--load=module-null-sink sink_name=vox_null',
        `--load=module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
      ],
      { env: paEnv, stdio: ['ignore', 'ignore', 'ignore'] },
    );
    await waitFor(
      () => {
        const r = spawn('pactl', ['info'], { env: paEnv, stdio: 'ignore' });
        return new Promise<true | undefined>((res) => r.once('exit', (code) => res(code === 0 || undefined)));
      },
      20_000,
      'the test PulseAudio to answer',
    );
    d = await startDaemon({
      env: {
        PULSE_SERVER: paEnv.PULSE_SERVER,
        XDG_RUNTIME_DIR: run,
        VOXD_RECORDER: join(FIXTURES, 'quiet', 'arecord'),
        DBUS_SESSION_BUS_ADDRESS: '',
      },
    });
    await waitFor(async () => ((await status()).quiet.microphone.detail.startsWith('watching') ? true : undefined));
  });
  after(async () => {
    await d?.stop();
    if (server && server.exitCode === null) {
      const gone = new Promise((r) => server.once('exit', r));
      server.kill();
      await gone;
    }
    removeDir(dir);
    if (d) removeDir(d.home);
  });

  test('speech is held while another program records, an ask is only chimed, and all resumes after', async () => {
    assert.equal((await status()).quiet.microphone.watch, 'pactl');
    const long =
      'The build finished and every test passed. The coverage went up by two points. ' +
      'The release notes are written. Nothing else is left to do today.';
    const said = await d.api('POST', '/v1/speak', { text: long, session: 'api#1a2b3c' });
    const id = said.body.id as string;
    await waitFor(() => wavsOf(id).length || undefined, 20_000, 'its audio at the sink');
    const call = record('phone-call');
    const held = await waitFor(async () => {
      const s = await status();
      return s.quiet.held && s.playing === null ? s : undefined;
    });
    assert.deepEqual(held.quiet.reasons, [{ reason: 'microphone', detail: 'the microphone is in use by phone-call' }]);
    assert.equal(held.queue.items[0].id, id);
    // An ask while held: a chime at the sink, never its words.
    const ask = await d.api('POST', '/v1/speak', {
      text: 'Api needs your permission to run the tests.',
      session: 'api#1a2b3c',
      priority: 'important',
    });
    await waitFor(() => d.wavs().some((f) => f.endsWith('-quiet-chime.wav')) || undefined, 20_000, 'the chime');
    assert.equal(wavsOf(ask.body.id).length, 0, 'the ask waits, unspoken');
    assert.equal((await status()).playing, null);
    await stopRecording(call);
    await settled(ask.body.id, 'played');
    await settled(id, 'played');
    assert.equal(wavsOf(id).length, 2, 'cut by the call, resumed after it');
    assert.equal((await status()).quiet.held, false);
  });

  test("vox's own listen records from the same server and does not hold speech", async () => {
    const listen = d.api('POST', '/v1/listen', { startTimeoutMs: 60_000, maxSeconds: 60, prompt: false });
    await waitFor(async () => ((await status()).listening?.open ? true : undefined), 20_000, 'the listen to record');
    // The recorder is on the sound server as a capture stream of its own.
    await waitFor(
      () =>
        spawnSync('pactl', ['list', 'source-outputs'], { env: paEnv, encoding: 'utf8' }).stdout.includes(
          'application.name = "vox-recorder"',
        ) || undefined,
      20_000,
      "vox's recorder on the sound server",
    );
    const other = record('dictation');
    await waitFor(async () => ((await status()).quiet.held ? true : undefined), 20_000, 'held by the dictation');
    assert.deepEqual(
      (await status()).quiet.reasons.map((r: { detail: string }) => r.detail),
      ['the microphone is in use by dictation'],
      "vox's recorder is not named",
    );
    await stopRecording(other);
    const s = await waitFor(async () => {
      const st = await status();
      return st.quiet.held ? undefined : st;
    });
    assert.equal(s.listening?.open, true, 'not held while vox itself still records');
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await listen.catch(() => undefined);
  });
});
