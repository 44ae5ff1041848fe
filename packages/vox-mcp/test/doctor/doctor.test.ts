/**
 * `vox doctor`: each check with injected probes, then the real binary on this
 * headless machine (no voxd, no sound card) and against a healthy voxd.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createConnection, createServer, type Server } from 'node:net';
import { AUDIO_LIBRARY_FIX, VERSION, type StatusResponse } from '@vox/protocol';
import { formatChecks, healthy, type Check, type DaemonView, type DoctorOptions } from '../../src/doctor/check.js';
import { NODE_LINES, runDoctor } from '../../src/doctor/doctor.js';
import { captureDevices, probePlayer, which } from '../../src/doctor/probes.js';
import { writeLink } from '../../src/remote/link.js';
import { installHooks, settingsPath } from '../../src/claude/hooks-settings.js';
import { cleanEnv, startDaemon, vox, type Daemon } from '../../../../test/helpers/daemon.js';
import { needTool } from '../../../../test/helpers/tools.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-doctor-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function dir(name = 'd'): string {
  const d = join(tmp, `${name}-${n++}`);
  mkdirSync(d, { recursive: true });
  return d;
}

const NO_ALSA = join(tmp, 'no-such-alsa.conf');

function status(over: Partial<StatusResponse> = {}): StatusResponse {
  return {
    version: '0.1.0',
    pid: 4242,
    uptimeMs: 12_000,
    engine: { name: 'espeak', ready: true },
    sink: { name: 'speaker', ok: true, detail: 'speaker module' },
    queue: { length: 0, items: [] },
    playing: null,
    counters: { accepted: 0, played: 0, deduped: 0, failed: 0, expired: 0, interrupted: 0, dropped: 0 },
    history: [],
    ...over,
  };
}

const up = (s: StatusResponse = status()): DaemonView => ({
  where: '127.0.0.1:8421 (from voxd.json)',
  health: { ok: true, version: s.version },
  status: s,
  statusCode: 200,
});
const down: DaemonView = { error: 'no VOX_HOME/voxd.json, VOXD_URL or VOXD_PORT says where voxd is' };

/** Options where every probe is injected: nothing is spawned, no network. */
function options(
  over: Partial<DoctorOptions> & { home?: string; view?: DaemonView; env?: NodeJS.ProcessEnv } = {},
): DoctorOptions {
  const home = over.home ?? dir('home');
  const claude = dir('claude');
  const { view, ...rest } = over;
  return {
    cwd: dir('cwd'),
    platform: 'linux',
    nodeVersion: '22.23.0',
    clientVersion: '0.1.0',
    daemon: async () => view ?? down,
    probeSpeaker: async () => ({ ok: false, detail: 'speaker could not open the audio device (no sound card?)' }),
    probePlayer: async (p) => ({ ok: false, detail: `${p} failed: no device` }),
    probeAudioIo: async () => ({
      ok: false,
      cause: 'device',
      detail: "no sound device: ALSA could not open 'default' (Unknown PCM default)",
    }),
    probeTranscriber: async () => ({ error: 'ECONNREFUSED' }),
    which: (name) => (name === 'aplay' ? '/usr/bin/aplay' : undefined),
    embeddedEngine: () => ({ ok: true, detail: 'embedded in voxd, always available' }),
    serviceInstalled: async () => false,
    claudeCode: () => ({ path: '/usr/bin/claude', from: 'PATH', version: '2.1.332' }),
    captureDevices: async () => ({ devices: ['card 0 device 0'], looked: '/proc/asound' }),
    ...rest,
    // HOME and VOX_CONFIG_HOME too: nothing of the machine's (~/.claude.json, ~/.config/vox) is read.
    env: {
      VOX_HOME: home,
      HOME: home,
      VOX_CONFIG_HOME: join(home, 'config'),
      CLAUDE_CONFIG_DIR: claude,
      PATH: '/nowhere',
      ...(over.env ?? {}),
    },
  };
}

const byName = (checks: Check[], name: string): Check => {
  const c = checks.find((x) => x.name === name);
  assert.ok(c, `no check named ${name}: ${checks.map((x) => x.name).join(', ')}`);
  return c;
};

describe('doctor checks', () => {
  test('service: not installed is fine; installed and answering is ok; installed but not running fails, with the fix', async () => {
    assert.equal(byName(await runDoctor(options()), 'service').level, 'ok');
    const installed = { serviceInstalled: async () => true };
    const upCheck = byName(await runDoctor(options({ ...installed, view: up() })), 'service');
    assert.equal(upCheck.level, 'ok');
    assert.match(upCheck.detail, /installed \(systemd user units\) and voxd answers/);
    const downCheck = byName(await runDoctor(options({ ...installed, view: down })), 'service');
    assert.equal(downCheck.level, 'fail');
    assert.match(downCheck.detail, /installed \(systemd user units\) but not running/);
    assert.match(downCheck.fix!, /vox daemon start.*journalctl --user -u voxd/);
  });

  test('daemon settings: none is fine, a valid file is named, an invalid one fails with every problem', async () => {
    const cfg = dir('cfg');
    assert.match(
      byName(await runDoctor(options({ env: { VOX_CONFIG_HOME: cfg } })), 'daemon settings').detail,
      /none: voxd uses its defaults/,
    );
    writeFileSync(join(cfg, 'voxd.yaml'), 'engine: espeak\n');
    const ok = byName(await runDoctor(options({ env: { VOX_CONFIG_HOME: cfg } })), 'daemon settings');
    assert.equal(ok.level, 'ok');
    assert.match(ok.detail, /voxd\.yaml is valid \(engine espeak\)/);
    writeFileSync(join(cfg, 'voxd.yaml'), 'engnie: espeak\nport: x\n');
    const bad = byName(await runDoctor(options({ env: { VOX_CONFIG_HOME: cfg } })), 'daemon settings');
    assert.equal(bad.level, 'fail');
    assert.match(bad.detail, /2 problems.*did you mean "engine".*port: "x"/);
    assert.match(bad.fix!, /vox daemon config/);
  });

  test('node: 22, 24 and 26 are ok, an untested line or end-of-life 20 warns, older fails', async () => {
    assert.equal(byName(await runDoctor(options({ nodeVersion: '22.12.0' })), 'node').level, 'ok');
    assert.equal(byName(await runDoctor(options({ nodeVersion: '26.1.0' })), 'node').level, 'ok');
    for (const v of ['23.11.0', '25.0.0', '27.0.0']) {
      const untested = byName(await runDoctor(options({ nodeVersion: v })), 'node');
      assert.equal(untested.level, 'warn', v);
      assert.match(untested.detail, /not a line vox is tested on \(Node\.js 22, 24, 26\)/);
    }
    const eol = byName(await runDoctor(options({ nodeVersion: '20.19.0' })), 'node');
    assert.equal(eol.level, 'warn');
    assert.match(eol.detail, /end of life/);
    assert.match(eol.fix!, /Node\.js 22, 24, 26/);
    const old = byName(await runDoctor(options({ nodeVersion: '18.19.1' })), 'node');
    assert.equal(old.level, 'fail');
    assert.ok(old.fix);
  });

  test('the node check lists the lines CI tests and engines.node claims', () => {
    const lines = readFileSync(new URL('../../../../scripts/ci/node-lines', import.meta.url), 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean)
      .map(Number);
    assert.deepEqual([...NODE_LINES], lines);
  });

  test('daemon not running: a warning while clients may start it, a failure with VOX_NO_AUTOSTART=1', async () => {
    const warn = byName(await runDoctor(options()), 'daemon');
    assert.equal(warn.level, 'warn');
    assert.match(warn.fix!, /vox daemon start/);
    const fail = byName(await runDoctor(options({ env: { VOX_NO_AUTOSTART: '1' } })), 'daemon');
    assert.equal(fail.level, 'fail');
  });

  test('daemon running: reachable and version ok, a version mismatch warns', async () => {
    const home = dir('home');
    writeFileSync(join(home, 'token'), 'secret-token-value\n', { mode: 0o600 });
    const checks = await runDoctor(options({ home, view: up() }));
    assert.equal(byName(checks, 'daemon').level, 'ok');
    assert.match(byName(checks, 'daemon').detail, /reachable at 127\.0\.0\.1:8421.*pid 4242/);
    assert.equal(byName(checks, 'daemon version').level, 'ok');
    assert.equal(byName(checks, 'engine (voxd default)').level, 'ok');
    const old = byName(await runDoctor(options({ home, view: up(status({ version: '0.0.9' })) })), 'daemon version');
    assert.equal(old.level, 'warn');
    assert.match(old.fix!, /vox daemon restart/);
  });

  test('token: mode 600 ok, wider fails, refused fails, missing while voxd runs fails', async () => {
    const home = dir('home');
    const token = join(home, 'token');
    writeFileSync(token, 'secret-token-value\n', { mode: 0o600 });
    assert.match(byName(await runDoctor(options({ home, view: up() })), 'token').detail, /mode 600, accepted by voxd/);
    writeFileSync(token, 'secret-token-value\n', { mode: 0o644 });
    const { chmodSync } = await import('node:fs');
    chmodSync(token, 0o644);
    const wide = byName(await runDoctor(options({ home, view: up() })), 'token');
    assert.equal(wide.level, 'fail');
    assert.equal(wide.fix, `chmod 600 "${token}"`);
    chmodSync(token, 0o600);
    const refused = byName(
      await runDoctor(options({ home, view: { ...up(), status: undefined, statusCode: 401 } })),
      'token',
    );
    assert.equal(refused.level, 'fail');
    const empty = dir('home');
    assert.equal(byName(await runDoctor(options({ home: empty, view: up() })), 'token').level, 'fail');
    assert.equal(
      byName(await runDoctor(options({ home: empty })), 'token').level,
      'ok',
      'no token before voxd first runs is fine',
    );
  });

  test('engine sherpa: no model is ok when unused and warns when chosen; installed models are named; a damaged one warns with the fix', async () => {
    const { writeSyntheticVoice } = await import('../../../../scripts/synthetic-voice.mjs');
    const home = dir('home');
    const cwd = dir('proj');
    const present = { sherpaModule: () => ({ ok: true, detail: 'sherpa-onnx-node is installed beside voxd' }) };
    const absent = {
      sherpaModule: () => ({ ok: false, detail: 'sherpa-onnx-node (an optional dependency of voxd) is not installed' }),
    };
    let c = byName(await runDoctor(options({ home, cwd, ...absent })), 'engine sherpa');
    assert.equal(c.level, 'ok');
    assert.match(
      c.detail,
      /not set up \(optional\): no voice model is installed, and sherpa-onnx-node .* is not installed/,
    );
    mkdirSync(join(cwd, '.vox'));
    writeFileSync(join(cwd, '.vox', 'config.md'), '---\nengine: sherpa\n---\n');
    c = byName(await runDoctor(options({ home, cwd, ...present })), 'engine sherpa');
    assert.equal(c.level, 'warn');
    assert.match(c.fix!, /vox voices install NAME/);
    const model = writeSyntheticVoice(join(home, 'models'), { installed: true, name: 'tones' });
    c = byName(await runDoctor(options({ home, cwd, ...present })), 'engine sherpa');
    assert.deepEqual([c.level, c.detail], ['ok', 'voice models: tones']);
    c = byName(await runDoctor(options({ home, cwd, ...absent })), 'engine sherpa');
    assert.equal(c.level, 'warn');
    assert.match(c.detail, /tones installed, but sherpa-onnx-node .* speech uses eSpeak/);
    writeFileSync(join(model, 'tokens.txt'), 'a 1\n');
    c = byName(await runDoctor(options({ home, cwd, ...present })), 'engine sherpa');
    assert.equal(c.level, 'warn');
    assert.match(c.detail, /model tones is not usable: file tokens\.txt is 4 bytes/);
    assert.equal(c.fix, 'vox voices install tones --force');
  });

  test('engines: optional ones are ok when unused, a chosen one that is not ready warns; keys are never printed', async () => {
    const home = dir('home');
    const cwd = dir('proj');
    mkdirSync(join(cwd, '.vox'));
    writeFileSync(join(cwd, '.vox', 'config.md'), '---\nengine: openai\n---\n');
    let checks = await runDoctor(options({ home, cwd }));
    assert.equal(byName(checks, 'engine openai').level, 'warn');
    assert.match(byName(checks, 'engine openai').fix!, /OPENAI_API_KEY/);
    assert.equal(byName(checks, 'engine elevenlabs').level, 'ok');
    assert.equal(byName(checks, 'engine espeak').level, 'ok');
    assert.equal(byName(checks, 'engine say').level, 'ok');

    const secret = 'sk-test-THIS-MUST-NEVER-BE-PRINTED';
    writeFileSync(join(home, 'keys.env'), `# keys\nexport OPENAI_API_KEY="${secret}"\n`, { mode: 0o600 });
    checks = await runDoctor(options({ home, cwd, env: { ELEVENLABS_API_KEY: `${secret}-2` } }));
    assert.equal(byName(checks, 'engine openai').level, 'ok');
    assert.match(byName(checks, 'engine openai').detail, /keys\.env/);
    assert.equal(byName(checks, 'engine elevenlabs').level, 'ok');
    assert.equal(byName(checks, 'keys file').level, 'ok');
    const text = formatChecks(checks) + JSON.stringify(checks);
    assert.ok(!text.includes(secret), 'a key value was printed');

    const { chmodSync } = await import('node:fs');
    chmodSync(join(home, 'keys.env'), 0o640);
    assert.equal(byName(await runDoctor(options({ home, cwd })), 'keys file').level, 'warn');
    assert.equal(
      byName(await runDoctor(options({ embeddedEngine: () => ({ ok: false, detail: 'missing' }) })), 'engine espeak')
        .level,
      'fail',
    );
  });

  test('audio: no device at all fails when voxd needs one, and the fix names the device, not a player', async () => {
    const checks = await runDoctor(options());
    const c = byName(checks, 'audio device');
    assert.equal(c.level, 'fail');
    assert.match(
      c.detail,
      /audio-io: no sound device: ALSA could not open 'default'.*speaker could not open.*aplay failed/,
    );
    assert.match(c.fix!, /^connect a sound card \("aplay -l" lists none\)/);
    // Without aplay, the package that brings it, not a command that is not there.
    const noAplay = byName(await runDoctor(options({ which: () => undefined })), 'audio device');
    assert.match(noAplay.fix!, /^connect a sound card \("aplay -l", from alsa-utils, lists the cards\)/);
    assert.match(c.fix!, /"vox daemon config set audio file:\/ABSOLUTE\/DIR"/);
    const io = byName(checks, 'audio-io');
    assert.equal(io.level, 'warn');
    assert.equal(io.fix, 'the fix under "audio device" below', 'one fix, said once');
  });

  test('audio: without libasound2 the fix is the library, on the audio-io line and under the verdict', async () => {
    const checks = await runDoctor(
      options({
        probeAudioIo: async () => ({
          ok: false,
          cause: 'library',
          detail: 'libasound.so.2 is missing, so audio-io cannot load',
        }),
      }),
    );
    const c = byName(checks, 'audio device');
    assert.equal(c.level, 'fail');
    assert.match(c.fix!, /^install the ALSA library: "apt-get install libasound2"/);
    // The same words as voxd's fix, which vox say prints (@vox/protocol's AUDIO_LIBRARY_FIX).
    assert.ok(c.fix!.startsWith(AUDIO_LIBRARY_FIX), c.fix);
    assert.match(c.fix!, /libasound2t64 on Debian 13 and Ubuntu 24\.04/);
    assert.match(byName(checks, 'audio-io').detail, /^libasound\.so\.2 is missing/);
  });

  test('audio: audio-io working is enough, whatever speaker and the players say', async () => {
    const checks = await runDoctor(
      options({ probeAudioIo: async () => ({ ok: true, detail: 'audio-io opened the default device' }) }),
    );
    assert.equal(byName(checks, 'audio-io').level, 'ok');
    assert.equal(byName(checks, 'audio device').level, 'ok');
    assert.match(byName(checks, 'audio device').detail, /^audio-io works/);
  });

  test('audio: speaker failing but a player working is ok (voxd falls back)', async () => {
    const c = byName(
      await runDoctor(options({ probePlayer: async (p) => ({ ok: true, detail: `${p} played a test silence` }) })),
      'audio device',
    );
    assert.equal(c.level, 'ok');
    assert.match(c.detail, /falls back to aplay/);
  });

  test('audio: a file or null sink needs no device, so a missing one only warns; VOXD_AUDIO alone does not make it so', async () => {
    const checks = await runDoctor(
      options({ view: up(status({ sink: { name: 'file:/tmp/out', ok: true, detail: '/tmp/out' } })) }),
    );
    assert.equal(byName(checks, 'audio (voxd)').level, 'ok');
    assert.equal(byName(checks, 'audio device').level, 'warn');
    // An auto-started voxd ignores VOXD_AUDIO: its settings file decides.
    const home = dir('home');
    const env = options({ home, env: { VOXD_AUDIO: 'null' } });
    assert.equal(byName(await runDoctor(env), 'audio device').level, 'fail');
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'voxd.yaml'), 'audio: "null"\n');
    assert.equal(byName(await runDoctor(options({ home })), 'audio device').level, 'warn');
  });

  test('audio: a working device sink in voxd is trusted, not probed again; a failing one fails', async () => {
    let probed = false;
    const checks = await runDoctor(
      options({ view: up(), probeSpeaker: async () => ((probed = true), { ok: true, detail: 'x' }) }),
    );
    assert.equal(byName(checks, 'audio (voxd)').level, 'ok');
    assert.equal(
      checks.find((c) => c.name === 'audio device'),
      undefined,
    );
    assert.equal(probed, false);
    const failing = await runDoctor(
      options({
        view: up(
          status({
            sink: {
              name: 'speaker',
              ok: false,
              detail: 'speaker unavailable; no fallback',
              lastError: 'aplay exited with code 1',
            },
          }),
        ),
      }),
    );
    assert.equal(byName(failing, 'audio (voxd)').level, 'fail');
    assert.match(byName(failing, 'audio (voxd)').detail, /aplay exited with code 1/);
    // Only the player this machine has (options' which: aplay), never paplay or pw-play, which are not here.
    assert.match(byName(failing, 'audio (voxd)').fix!, /"vox daemon config set audio command:aplay"/);
    assert.doesNotMatch(byName(failing, 'audio (voxd)').fix!, /paplay|pw-play/);
    const bare = await runDoctor(
      options({ which: () => undefined, view: up(status({ sink: { name: 'speaker', ok: false } })) }),
    );
    assert.doesNotMatch(byName(bare, 'audio (voxd)').fix!, /command:/);
    assert.match(byName(bare, 'audio (voxd)').fix!, /pulseaudio-utils brings paplay, alsa-utils aplay/);
    assert.doesNotMatch(byName(failing, 'audio (voxd)').fix!, /VOXD_AUDIO/);
  });

  test('config: none, valid, invalid', async () => {
    assert.match(byName(await runDoctor(options()), 'config').detail, /^none, defaults apply/);
    const cwd = dir('proj');
    mkdirSync(join(cwd, '.vox'));
    writeFileSync(join(cwd, '.vox', 'config.md'), '---\nnotify: continuous\nspeak: false\n---\n');
    const valid = byName(await runDoctor(options({ cwd: join(cwd) })), 'config');
    assert.equal(valid.level, 'ok');
    assert.match(valid.detail, /is valid \(notify continuous, speak false/);
    writeFileSync(join(cwd, '.vox', 'config.md'), '---\nnotify: sometimes\nrat: 200\n---\n');
    const invalid = byName(await runDoctor(options({ cwd })), 'config');
    assert.equal(invalid.level, 'fail');
    assert.match(invalid.detail, /2 problems; first: line 2: notify/);
    assert.match(invalid.fix!, /vox config check/);
  });

  test('hooks: not installed warns; installed in the user settings is ok; partly installed warns', async () => {
    const env0 = options();
    const none = byName(await runDoctor(env0), 'hooks');
    assert.equal(none.level, 'warn');
    assert.match(none.fix!, /vox hooks install/);
    installHooks(settingsPath('user', { env: env0.env, cwd: env0.cwd }), { portable: true });
    assert.equal(byName(await runDoctor(env0), 'hooks').level, 'ok');
    const env1 = options();
    const project = settingsPath('project', { env: env1.env, cwd: env1.cwd });
    mkdirSync(dirname(project), { recursive: true });
    writeFileSync(
      project,
      JSON.stringify({ hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'vox hook Stop' }] }] } }),
    );
    const partial = byName(await runDoctor(env1), 'hooks');
    assert.equal(partial.level, 'warn');
    assert.match(partial.detail, /project: partly/);
    writeFileSync(project, '{ not json');
    assert.equal(byName(await runDoctor(env1), 'hooks').level, 'warn');
  });

  test('microphone: nobody, a session holding it, or a voxd too old to say', async () => {
    assert.match(byName(await runDoctor(options()), 'microphone').detail, /voxd is not running/);
    assert.equal(
      byName(await runDoctor(options({ view: up(status({ listening: null })) })), 'microphone').detail,
      'free: voxd is not listening',
    );
    const held = byName(
      await runDoctor(options({ view: up(status({ listening: { id: 'listen-1a2b3c4d', session: 'shop#3c07f0' } })) })),
      'microphone',
    );
    assert.match(held.detail, /^held by session shop#3c07f0 \(listen-1a2b3c4d\)/);
    assert.match(
      byName(await runDoctor(options({ view: up() })), 'microphone').detail,
      /does not report who holds the microphone/,
    );
  });

  test('recorder and transcriber: found on PATH, a listen.recorder path, no transcriber, a remote one without a key', async () => {
    const whichAll = (names: string[]) => (n: string) => (names.includes(n) ? `/usr/bin/${n}` : undefined);
    assert.match(byName(await runDoctor(options({ which: whichAll(['rec']) })), 'recorder').detail, /^\/usr\/bin\/rec/);
    const none = byName(await runDoctor(options({ which: whichAll([]) })), 'recorder');
    assert.equal(none.level, 'warn');
    assert.match(none.fix!, /vox daemon config set listen\.recorder/);
    assert.equal(byName(await runDoctor(options()), 'transcriber').level, 'ok');
    const home = dir('home');
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'voxd.yaml'), 'transcriber.url: https://api.example.com/v1\n');
    let asked = '';
    const remote = byName(
      await runDoctor(options({ home, probeTranscriber: async (u) => ((asked = u), { status: 401 }) })),
      'transcriber',
    );
    assert.equal(asked, 'https://api.example.com/v1');
    assert.equal(remote.level, 'warn');
    assert.match(remote.detail, /no TRANSCRIBER_API_KEY is set/);
    writeFileSync(join(home, 'keys.env'), 'TRANSCRIBER_API_KEY=sk-secret-value\n', { mode: 0o600 });
    const keyed = await runDoctor(options({ home, probeTranscriber: async () => ({ status: 401 }) }));
    assert.equal(byName(keyed, 'transcriber').level, 'ok');
    assert.ok(!JSON.stringify(keyed).includes('sk-secret-value'), 'the key is never printed');
  });

  test('a check that throws becomes a failed line, not a crash', async () => {
    const checks = await runDoctor(
      options({
        serviceInstalled: async () => {
          throw new Error('boom');
        },
      }),
    );
    assert.equal(byName(checks, 'service').level, 'fail');
    assert.match(byName(checks, 'service').detail, /boom/);
  });

  test('format: one line per check, a fix under warn and fail, a summary', () => {
    const text = formatChecks([
      { name: 'node', level: 'ok', detail: 'v20', fix: 'never shown' },
      { name: 'daemon', level: 'warn', detail: 'not running', fix: 'vox daemon start' },
      { name: 'audio device', level: 'fail', detail: 'none', fix: 'get a sound card' },
    ]);
    assert.equal(
      text,
      'ok    node: v20\nwarn  daemon: not running\n  fix: vox daemon start\nfail  audio device: none\n  fix: get a sound card\n\n1 check failed, 1 warning\n',
    );
    assert.equal(healthy([{ name: 'a', level: 'warn', detail: '' }]), true);
    assert.equal(healthy([{ name: 'a', level: 'fail', detail: '' }]), false);
  });

  test(
    'probePlayer with a real player and no sound device reports the failure',
    { skip: needTool('aplay') },
    async () => {
      const r = await probePlayer('aplay', which('aplay', process.env)!, { ...process.env, ALSA_CONFIG_PATH: NO_ALSA });
      assert.equal(r.ok, false);
      assert.match(r.detail, /^aplay failed: /);
    },
  );
});

describe('where doctor runs: without Claude Code, without a microphone, on a linked host', () => {
  test('no Claude Code: its checks say skip, not warn, so a clean machine can have no warnings from them', async () => {
    const checks = await runDoctor(options({ claudeCode: () => undefined }));
    for (const name of ['claude code', 'hooks', 'mcp server']) assert.equal(byName(checks, name).level, 'skip', name);
    assert.match(byName(checks, 'hooks').detail, /^Claude Code is not installed$/);
    assert.equal(checks.filter((c) => c.name === 'mcp server').length, 1);
    assert.match(formatChecks(checks), /^skip  hooks: Claude Code is not installed$/m);
    // With Claude Code, the same machine still warns that neither route is set up.
    const present = await runDoctor(options());
    assert.match(byName(present, 'claude code').detail, /^2\.1\.332 at \/usr\/bin\/claude \(from PATH\)$/);
    assert.equal(byName(present, 'hooks').level, 'warn');
    const unknown = byName(
      await runDoctor(options({ claudeCode: () => ({ path: '/x/claude', from: 'PATH', versionError: 'it hung' }) })),
      'claude code',
    );
    assert.equal(unknown.level, 'warn');
    assert.match(unknown.detail, /it hung/);
  });

  test('a recorder with no capture device warns, and the fix names only commands this machine has', async () => {
    const none = async () => ({ devices: [], looked: '/proc/asound and "pactl list short sources"' });
    const withArecord = byName(
      await runDoctor(
        options({ captureDevices: none, which: (n) => (n === 'arecord' ? '/usr/bin/arecord' : undefined) }),
      ),
      'recorder',
    );
    assert.equal(withArecord.level, 'warn');
    assert.match(withArecord.detail, /^no capture device: \/usr\/bin\/arecord/);
    assert.match(withArecord.fix!, /"arecord -l" lists the cards/);
    const withRec = byName(
      await runDoctor(options({ captureDevices: none, which: (n) => (n === 'rec' ? '/usr/bin/rec' : undefined) })),
      'recorder',
    );
    assert.match(withRec.fix!, /"arecord -l" \(alsa-utils\) lists/);
    const found = byName(
      await runDoctor(options({ which: (n) => (n === 'arecord' ? '/usr/bin/arecord' : undefined) })),
      'recorder',
    );
    assert.equal(found.level, 'ok');
    assert.match(found.detail, /capture: card 0 device 0/);
  });

  test("the capture probe reads the sound server's sources (pactl), leaving out the monitors of outputs", async () => {
    const bin = dir('bin');
    const pactl = join(bin, 'pactl');
    writeFileSync(
      pactl,
      '#!/bin/sh\n[ "$*" = "list short sources" ] || exit 2\nprintf \'0\\talsa_output.pci.monitor\\tPipeWire\\n1\\talsa_input.usb-mic\\tPipeWire\\n\'\n',
    );
    chmodSync(pactl, 0o755);
    const r = await captureDevices({ PATH: bin }, 'linux');
    assert.ok(r.devices.includes('source alsa_input.usb-mic'), JSON.stringify(r));
    assert.ok(!r.devices.some((d) => d.includes('monitor')), JSON.stringify(r));
    assert.match(r.looked, /pactl list short sources/);
    assert.equal((await captureDevices({ PATH: bin }, 'darwin')).unknown, true);
  });

  describe("a linked host: the other host's voxd through a unix socket, as ssh forwards it", () => {
    let d: Daemon;
    let forward: Server;
    const linked = dir('linked-home');
    const socket = join(linked, 'remote.sock');
    before(async () => {
      d = await startDaemon({ realtime: false });
      // What "ssh -L socket:127.0.0.1:PORT" does: each connection on the socket goes to voxd's port.
      forward = createServer((c) => {
        const up = createConnection({ host: '127.0.0.1', port: d.port });
        c.pipe(up).pipe(c);
        up.on('error', () => c.destroy());
        c.on('error', () => up.destroy());
      });
      await new Promise<void>((resolve) => forward.listen(socket, resolve));
    });
    after(async () => {
      await new Promise((resolve) => forward.close(resolve));
      await d.stop();
      rmSync(d.home, { recursive: true, force: true });
    });

    const linkedRun = (token: string) => {
      writeLink(
        { VOX_HOME: linked },
        { host: 'hostA', socket, token, version: VERSION, as: 'devbox', pid: process.pid },
      );
      const local = async (): Promise<never> => assert.fail('no local audio, engine or service probe on a linked host');
      const o = options({
        home: linked,
        probeSpeaker: local,
        probeAudioIo: local,
        probePlayer: local,
        probeTranscriber: local,
        captureDevices: local,
        serviceInstalled: local,
        clientVersion: VERSION,
      });
      delete o.daemon; // the real view, through the link
      return runDoctor(o);
    };

    test('a healthy link: the link, the other voxd and its token are ok, no local checks, no failure', async () => {
      const checks = await linkedRun(d.token);
      const text = formatChecks(checks);
      assert.ok(healthy(checks), text);
      assert.equal(byName(checks, 'remote link').level, 'ok', text);
      assert.match(
        byName(checks, 'daemon').detail,
        /^reachable at .*remote\.sock \(from remote\.json\), voxd on hostA, pid \d+/,
      );
      assert.equal(byName(checks, 'daemon version').level, 'ok', text);
      const token = byName(checks, 'token');
      assert.equal(token.level, 'ok', text);
      assert.match(token.detail, /accepted by voxd on hostA through the link/);
      const local = [
        'audio-io',
        'audio device',
        'audio (voxd)',
        'recorder',
        'transcriber',
        'service',
        'daemon settings',
      ];
      assert.deepEqual(
        checks.filter((c) => local.includes(c.name) || /^engine (?!\(voxd default\))/.test(c.name)).map((c) => c.name),
        [],
        text,
      );
      assert.doesNotMatch(text, /vox daemon restart/);
      assert.ok(!text.includes(d.token), 'the token is never printed');
    });

    test('a token the other voxd refuses fails, with the fix that fetches it again', async () => {
      const checks = await linkedRun('not-the-token');
      const token = byName(checks, 'token');
      assert.equal(token.level, 'fail', formatChecks(checks));
      assert.match(token.detail, /voxd on hostA refused the link's token/);
      assert.match(token.fix!, /^run "vox remote connect hostA" again/);
    });
  });
});

describe('vox doctor (the binary)', () => {
  const noHardware = (env: NodeJS.ProcessEnv) => {
    // No sound card here, and none reachable: ALSA's config is missing, no sound server, no players on PATH.
    // PATH holds node alone: node's own folder may hold claude too (npm i -g beside it, as the fresh root has it).
    const bin = dir('bin');
    symlinkSync(process.execPath, join(bin, 'node'));
    const e: NodeJS.ProcessEnv = { ...env, ALSA_CONFIG_PATH: NO_ALSA, PATH: bin };
    delete e.PULSE_SERVER;
    delete e.XDG_RUNTIME_DIR;
    return e;
  };

  test('headless, no daemon: fail and warn lines with fixes, non-zero exit', async () => {
    const home = dir('home');
    const claude = dir('claude');
    const cwd = dir('cwd');
    const env = noHardware(cleanEnv(home, { CLAUDE_CONFIG_DIR: claude }));
    const r = await vox(['doctor'], { env, cwd });
    assert.notEqual(r.code, 0, r.stdout);
    const lines = r.stdout.split('\n');
    for (const line of lines.filter(
      (l) => l && !l.startsWith('  fix: ') && !/^\d+ check|^no failures|^everything/.test(l),
    )) {
      assert.match(line, /^(ok  |warn|fail|skip)  [a-z][a-z0-9 ()-]*: \S/, line);
    }
    const audio = lines.findIndex((l) => l.startsWith('fail  audio device: '));
    assert.ok(audio >= 0, r.stdout);
    assert.match(lines[audio + 1]!, /^ {2}fix: .*"vox daemon config set audio file:\/ABSOLUTE\/DIR"/);
    assert.doesNotMatch(r.stdout, /fix: .*VOXD_AUDIO/);
    const daemon = lines.findIndex((l) => l.startsWith('warn  daemon: not running'));
    assert.ok(daemon >= 0, r.stdout);
    assert.match(lines[daemon + 1]!, /^ {2}fix: /);
    assert.ok(
      lines.some((l) => /^ok {4}config: none, defaults apply/.test(l)),
      r.stdout,
    );
    // No Claude Code on this PATH: its checks are skipped, not warnings.
    assert.ok(
      lines.some((l) => l === 'skip  hooks: Claude Code is not installed'),
      r.stdout,
    );
    assert.ok(!lines.some((l) => /^warn {2}(hooks|mcp server):/.test(l)), r.stdout);
    // This Node: ok on a supported line (22+), a warning on end-of-life 20 (the dev machine's).
    const nodeLevel = Number(process.versions.node.split('.')[0]) >= 22 ? 'ok  ' : 'warn';
    assert.ok(
      lines.some((l) => l.startsWith(`${nodeLevel}  node: v${process.versions.node} `)),
      r.stdout,
    );
    assert.equal(existsSync(join(home, 'voxd.json')), false, 'doctor does not start voxd');

    const json = await vox(['doctor', '--json'], { env, cwd });
    assert.equal(json.code, r.code);
    const body = JSON.parse(json.stdout) as { ok: boolean; checks: Check[] };
    assert.equal(body.ok, false);
    assert.equal(body.checks.find((c) => c.name === 'audio device')?.level, 'fail');
  });

  describe('with a healthy voxd', () => {
    let d: Daemon;
    before(async () => {
      d = await startDaemon({ realtime: false });
    });
    after(async () => {
      await d.stop();
      rmSync(d.home, { recursive: true, force: true });
    });

    test('ok lines for the daemon, its version and the token; exit 0', async () => {
      const claude = dir('claude');
      const env = noHardware({ ...d.env, CLAUDE_CONFIG_DIR: claude });
      // A stand-in for Claude Code, found as the real one is (VOX_CLAUDE_CODE): it only says its version.
      const standIn = join(claude, 'claude');
      writeFileSync(standIn, '#!/bin/sh\necho "2.1.332 (Claude Code)"\n', { mode: 0o755 });
      env.VOX_CLAUDE_CODE = standIn;
      installHooks(settingsPath('user', { env, cwd: tmp }), { portable: true });
      // The server its mcp_tool hooks call, as "claude mcp add --scope user vox -- vox mcp" registers it.
      writeFileSync(
        join(claude, '.claude.json'),
        JSON.stringify({ mcpServers: { vox: { type: 'stdio', command: 'vox', args: ['mcp'] } } }),
      );
      const r = await vox(['doctor'], { env, cwd: dir('cwd') });
      assert.equal(r.code, 0, r.stdout);
      const lines = r.stdout.split('\n');
      assert.ok(
        lines.some((l) => new RegExp(`^ok {4}daemon: reachable at 127\\.0\\.0\\.1:${d.port} .*pid ${d.pid}`).test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ok {4}daemon version: voxd (\S+), vox \1$/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ok {4}token: .*mode 600, accepted by voxd/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ok {4}audio \(voxd\): file:/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ok {4}hooks: user: installed/.test(l)),
        r.stdout,
      );
      assert.ok(!lines.some((l) => l.startsWith('fail')), r.stdout);
      assert.ok(!r.stdout.includes(d.token), 'the token is never printed');
    });
  });
});
