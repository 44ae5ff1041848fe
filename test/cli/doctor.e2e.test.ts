/**
 * `vox doctor` as the one place that knows, end to end: the real `vox doctor`
 * against a temp HOME (Claude Code's files as Claude Code 2.1.332 writes them,
 * and once written by the real Claude Code), ALSA through ALSA_CONFIG_PATH (the
 * file plugin for a device that works, a config with no default for none), a
 * real voxd holding the microphone (the recorder shim), and a real HTTP
 * transcriber on 127.0.0.1. Also `vox status`/`vox stop` with voxd stopped and
 * `vox listen` with no recorder: the messages the user reads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import {
  cleanEnv,
  FIXTURES,
  removeDir,
  ROOT,
  startDaemon,
  tempDir,
  vox,
  waitFor,
  writeSettings,
} from '../helpers/daemon.js';
import { CLAUDE, CLAUDE_CODE_VERSION, pinnedSkip } from '../helpers/claude-code.js';
import { needTool } from '../helpers/tools.js';

/** An ALSA configuration with no default device (as audio-outcomes.e2e has it; importing a test file would run its tests). */
const NO_DEVICE_ALSA_CONF = 'pcm.nothing { type null }\n';

type Check = { name: string; level: 'ok' | 'warn' | 'fail' | 'skip'; detail: string; fix?: string };

/**
 * A user with nothing of vox's in Claude Code: HOME, VOX_HOME and the settings
 * directory are fresh. Claude Code is present as a stand-in on PATH that only
 * answers --version (doctor skips its checks without one; the test of the real
 * Claude Code's layout below uses the real one).
 */
function user(): { home: string; cwd: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('vox-doctor-home-');
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  mkdirSync(join(home, 'bin'));
  writeFileSync(join(home, 'bin', 'claude'), '#!/bin/sh\necho "2.1.332 (Claude Code)"\n', { mode: 0o755 });
  const env = cleanEnv(join(home, 'vox'), { HOME: home });
  env.PATH = `${join(home, 'bin')}${delimiter}${env.PATH ?? ''}`;
  return { home, cwd, env };
}

async function doctor(
  u: { cwd: string; env: NodeJS.ProcessEnv },
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; checks: Check[]; text: string }> {
  const r = await vox(['doctor', '--json'], { env: { ...u.env, ...env }, cwd: u.cwd });
  const body = JSON.parse(r.stdout) as { ok: boolean; checks: Check[] };
  assert.equal(body.ok, r.code === 0, r.stdout);
  return {
    code: r.code,
    checks: body.checks,
    text: body.checks.map((c) => `${c.level} ${c.name}: ${c.detail}${c.fix ? ` | fix: ${c.fix}` : ''}`).join('\n'),
  };
}

const named = (checks: Check[], name: string): Check[] => checks.filter((c) => c.name === name);
function one(checks: Check[], name: string): Check {
  const found = named(checks, name);
  assert.equal(found.length, 1, `one "${name}" check: ${JSON.stringify(checks.map((c) => c.name))}`);
  return found[0]!;
}

/** What `claude plugin install vox@vox` leaves in HOME (Claude Code 2.1.332; the real run below checks it). */
function installPluginLayout(home: string): void {
  const cache = join(home, '.claude', 'plugins', 'cache', 'vox', 'vox', '0.1.0');
  cpSync(join(ROOT, 'plugin'), cache, { recursive: true });
  const now = new Date().toISOString();
  writeFileSync(
    join(home, '.claude', 'plugins', 'installed_plugins.json'),
    JSON.stringify(
      {
        version: 2,
        plugins: {
          'vox@vox': [{ scope: 'user', installPath: cache, version: '0.1.0', installedAt: now, lastUpdated: now }],
        },
      },
      null,
      2,
    ),
  );
  const path = join(home, '.claude', 'settings.json');
  const settings = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  settings.extraKnownMarketplaces = { vox: { source: { source: 'directory', path: ROOT } } };
  settings.enabledPlugins = { 'vox@vox': true };
  writeFileSync(path, JSON.stringify(settings, null, 2));
}

/** What `claude mcp add --scope user NAME -- vox mcp` writes. */
function registerServer(home: string, name = 'vox'): void {
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({ mcpServers: { [name]: { type: 'stdio', command: 'vox', args: ['mcp'], env: {} } } }),
  );
}

/** vox's own `vox hooks install` (mcp_tool hooks, calling the server "vox"), into the user settings. */
async function installHooks(u: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const r = await vox(['hooks', 'install', '--type', 'mcp_tool', '--portable'], { env: u.env, cwd: u.cwd });
  assert.equal(r.code, 0, r.stderr);
}

describe('the plugin against the hooks', () => {
  // No sound is needed for these: a file of audio settings keeps the audio checks from failing the run.
  const quiet = (u: { env: NodeJS.ProcessEnv }) => writeSettings(u.env, { audio: 'null' });

  test('plugin only: its hooks and its server are ok, and doctor never recommends "vox hooks install"', async () => {
    const u = user();
    try {
      quiet(u);
      installPluginLayout(u.home);
      const d = await doctor(u);
      const hooks = one(d.checks, 'hooks');
      assert.equal(hooks.level, 'ok', d.text);
      assert.match(hooks.detail, /the vox plugin \(vox@vox, enabled in the user settings\) brings its own hooks/);
      const mcp = one(d.checks, 'mcp server');
      assert.equal(mcp.level, 'ok', d.text);
      assert.match(mcp.detail, /"plugin:vox:vox", which the hooks call, is registered: plugin vox@vox/);
      assert.doesNotMatch(d.text, /vox hooks install/);
      // vox hooks status says the plugin provides the hooks, not "not installed" three times.
      const status = await vox(['hooks', 'status'], { env: u.env, cwd: u.cwd });
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /^The vox plugin \(vox@vox, enabled in the user settings\) provides the hooks/);
      assert.doesNotMatch(status.stdout, /not installed/);
      assert.match(status.stdout, /^user: none in /m);
      assert.equal(d.code, 0, d.text);
    } finally {
      removeDir(u.home);
    }
  });

  test('hooks only, with their server registered: ok; without it: the hooks call a server nobody has, a failure', async () => {
    const u = user();
    try {
      quiet(u);
      await installHooks(u);
      let d = await doctor(u);
      const mcp = one(d.checks, 'mcp server');
      assert.equal(mcp.level, 'fail', d.text);
      assert.match(mcp.detail, /call the MCP server "vox", which no session here has/);
      assert.match(mcp.fix!, /claude mcp add --scope user vox -- vox mcp/);
      assert.equal(d.code, 1, 'a hook that calls a missing server fails the run');

      registerServer(u.home);
      d = await doctor(u);
      assert.equal(one(d.checks, 'hooks').level, 'ok', d.text);
      assert.match(one(d.checks, 'hooks').detail, /^user: installed/);
      assert.equal(one(d.checks, 'mcp server').level, 'ok', d.text);
      assert.match(one(d.checks, 'mcp server').detail, /"vox", which the hooks call, is registered: user \(/);
      assert.equal(d.code, 0, d.text);
    } finally {
      removeDir(u.home);
    }
  });

  test('both: the doubled set-up is a warning whose fix removes one route, never adds hooks', async () => {
    const u = user();
    try {
      quiet(u);
      installPluginLayout(u.home);
      await installHooks(u);
      registerServer(u.home);
      const d = await doctor(u);
      const hooks = one(d.checks, 'hooks');
      assert.equal(hooks.level, 'warn', d.text);
      assert.match(hooks.detail, /^doubled set-up: the vox plugin .* and vox hooks are also in user settings/);
      assert.match(hooks.fix!, /"vox hooks uninstall --user"/);
      assert.match(hooks.fix!, /claude plugin uninstall vox@vox/);
      assert.doesNotMatch(d.text, /vox hooks install/);
      // Two vox servers in each session (the plugin's and "vox"): every tool twice.
      const doubled = named(d.checks, 'mcp server').find((c) => c.level === 'warn');
      assert.ok(doubled, d.text);
      assert.match(doubled.detail, /doubled set-up: 2 vox MCP servers/);
      assert.match(doubled.fix!, /claude mcp remove vox/);
    } finally {
      removeDir(u.home);
    }
  });

  test('neither: a warning that names both routes, and no speech tools', async () => {
    const u = user();
    try {
      quiet(u);
      const d = await doctor(u);
      const hooks = one(d.checks, 'hooks');
      assert.equal(hooks.level, 'warn', d.text);
      assert.match(hooks.detail, /the vox plugin is not installed/);
      assert.match(hooks.fix!, /claude plugin install vox@vox.*or run "vox hooks install"/);
      // The marketplace is this checkout: the fix names it, not a placeholder.
      assert.ok(
        hooks.fix!.includes(`"vox setup" runs "claude plugin marketplace add ${realpathSync(ROOT)}"`),
        hooks.fix,
      );
      const mcp = one(d.checks, 'mcp server');
      assert.equal(mcp.level, 'warn');
      assert.match(mcp.detail, /no vox MCP server is registered/);
    } finally {
      removeDir(u.home);
    }
  });

  test('enabled in the project settings but not installed here: not counted as the plugin, and said so', async () => {
    const u = user();
    try {
      quiet(u);
      mkdirSync(join(u.cwd, '.claude'));
      writeFileSync(join(u.cwd, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'vox@vox': true } }));
      const d = await doctor(u);
      const hooks = one(d.checks, 'hooks');
      assert.equal(hooks.level, 'warn', d.text);
      assert.match(
        hooks.detail,
        /the vox plugin vox@vox is enabled in the project settings but not installed: "claude plugin install vox@vox"/,
      );
    } finally {
      removeDir(u.home);
    }
  });

  test('a ~/.claude.json too large to read (33 MB): named, not read, and doctor finishes', async () => {
    const u = user();
    try {
      quiet(u);
      await installHooks(u);
      const path = join(u.home, '.claude.json');
      writeFileSync(path, '');
      truncateSync(path, 33 * 1024 * 1024);
      const d = await doctor(u);
      const mcp = one(d.checks, 'mcp server');
      assert.equal(mcp.level, 'fail', d.text);
      assert.match(mcp.detail, /\.claude\.json is 33 MB, larger than doctor reads/);
    } finally {
      removeDir(u.home);
    }
  });

  test(
    'the layout the real Claude Code writes: plugin ok, then "vox hooks install" on top is the doubled set-up',
    { skip: pinnedSkip },
    async () => {
      const u = user();
      try {
        quiet(u);
        const env = {
          PATH: u.env.PATH!,
          HOME: u.home,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
        };
        for (const args of [
          ['plugin', 'marketplace', 'add', ROOT],
          ['plugin', 'install', 'vox@vox'],
        ]) {
          const r = await run(CLAUDE!, args, env, u.home);
          assert.equal(r.code, 0, r.out);
        }
        // doctor finds the real Claude Code as a user's would be found.
        const real = { VOX_CLAUDE_CODE: CLAUDE! };
        let d = await doctor(u, real);
        assert.match(
          one(d.checks, 'claude code').detail,
          new RegExp(`^${CLAUDE_CODE_VERSION.replace(/\./g, '\\.')} at `),
          d.text,
        );
        assert.equal(one(d.checks, 'hooks').level, 'ok', d.text);
        assert.equal(one(d.checks, 'mcp server').level, 'ok', d.text);
        await installHooks(u);
        d = await doctor(u, real);
        assert.match(one(d.checks, 'hooks').detail, /^doubled set-up/, d.text);
      } finally {
        removeDir(u.home);
      }
    },
  );
});

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('audio: audio-io, libasound2 and the device', { skip: needTool('libasound2') }, () => {
  let dir: string;
  before(() => {
    dir = tempDir('vox-doctor-alsa-');
  });
  after(() => removeDir(dir));

  test("a device that works (ALSA's file plugin): audio-io opens it, the audio line is ok", async () => {
    const u = user();
    try {
      const conf = join(dir, 'file.conf');
      writeFileSync(
        conf,
        `pcm.!default {\n  type file\n  slave { pcm { type null } }\n  file "${join(dir, 'capture.raw')}"\n  format "raw"\n}\n`,
      );
      const d = await doctor(u, { ALSA_CONFIG_PATH: conf });
      assert.equal(one(d.checks, 'audio-io').level, 'ok', d.text);
      assert.match(one(d.checks, 'audio-io').detail, /audio-io opened the default device \(libasound\.so\.2 loads\)/);
      assert.equal(one(d.checks, 'audio device').level, 'ok', d.text);
    } finally {
      removeDir(u.home);
    }
  });

  test('no device: named as the missing device, with a fix that works for an auto-started voxd', async () => {
    const u = user();
    try {
      const conf = join(dir, 'none.conf');
      writeFileSync(conf, NO_DEVICE_ALSA_CONF);
      const d = await doctor(u, { ALSA_CONFIG_PATH: conf, PATH: join(dir, 'no-players') });
      const io = one(d.checks, 'audio-io');
      assert.equal(io.level, 'warn', d.text);
      assert.match(io.detail, /^no sound device: ALSA could not open 'default' \(Unknown PCM default\)/);
      const device = one(d.checks, 'audio device');
      assert.equal(device.level, 'fail', d.text);
      assert.match(device.fix!, /^connect a sound card/);
      assert.match(device.fix!, /"vox daemon config set audio file:\/ABSOLUTE\/DIR"/);
      assert.doesNotMatch(device.fix!, /^install a player/);
      assert.equal(d.code, 1);
      // No fix names a variable that an auto-started voxd ignores.
      for (const c of d.checks) assert.doesNotMatch(c.fix ?? '', /VOXD_[A-Z_]+=/, `${c.name}: ${c.fix}`);
      // Every "vox daemon config set KEY VALUE" doctor names is one that command takes.
      const sets = [...d.text.matchAll(/vox daemon config set (\S+) ([^"\s]+)"/g)];
      assert.ok(sets.length >= 2, d.text);
      for (const [, key, value] of sets) {
        const v = value!.replace('/ABSOLUTE/DIR', dir).replace('/ABSOLUTE/PATH', dir);
        const r = await vox(['daemon', 'config', 'set', key!, v], { env: u.env, cwd: u.cwd });
        assert.equal(r.code, 0, `vox daemon config set ${key} ${v}: ${r.stderr}`);
      }
    } finally {
      removeDir(u.home);
    }
  });

  test('VOXD_AUDIO in this shell does not count for an auto-started voxd, and doctor says so', async () => {
    const u = user();
    try {
      const conf = join(dir, 'none2.conf');
      writeFileSync(conf, NO_DEVICE_ALSA_CONF);
      const d = await doctor(u, { ALSA_CONFIG_PATH: conf, PATH: join(dir, 'no-players'), VOXD_AUDIO: 'null' });
      const device = one(d.checks, 'audio device');
      assert.equal(device.level, 'fail', d.text);
      assert.match(
        device.detail,
        /VOXD_AUDIO=null here reaches only a voxd started from this shell \("vox daemon config set audio null" sets it for every voxd\)/,
      );
      writeSettings(u.env, { audio: 'null' });
      const fine = await doctor(u, { ALSA_CONFIG_PATH: conf, PATH: join(dir, 'no-players') });
      assert.equal(one(fine.checks, 'audio device').level, 'warn', fine.text);
      assert.match(one(fine.checks, 'audio device').detail, /not needed now: voxd's settings file sets audio null/);
    } finally {
      removeDir(u.home);
    }
  });
});

describe('voice input: the recorder, the transcriber, who holds the microphone', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) =>
      res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' }).end('{"data":[]}'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('no recorder on PATH warns with what to install; a transcriber that answers is ok; one that does not, warns', async () => {
    const u = user();
    try {
      writeSettings(u.env, { audio: 'null', 'transcriber.url': url });
      let d = await doctor(u, { PATH: join(u.home, 'empty-bin') });
      const rec = one(d.checks, 'recorder');
      assert.equal(rec.level, 'warn', d.text);
      assert.match(rec.detail, /none of arecord, rec, sox is on PATH/);
      assert.match(rec.fix!, /apt-get install alsa-utils/);
      const tr = one(d.checks, 'transcriber');
      assert.equal(tr.level, 'ok', d.text);
      assert.match(tr.detail, new RegExp(`${url.replace(/[.]/g, '\\.')} answers \\(HTTP 200`));

      // A port that was free a moment ago: nothing listens there.
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      writeSettings(u.env, { audio: 'null', 'transcriber.url': `http://127.0.0.1:${port}/v1` });
      d = await doctor(u);
      const down = one(d.checks, 'transcriber');
      assert.equal(down.level, 'warn', d.text);
      assert.match(down.detail, new RegExp(`nothing answers at http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)`));
      assert.match(down.fix!, /vox daemon config set transcriber\.url URL/);
    } finally {
      removeDir(u.home);
    }
  });

  test('a transcriber that accepts and then trickles a reply that never ends: cut off, a warning, doctor finishes', async () => {
    const u = user();
    const sockets = new Set<Socket>();
    const tricks = createNetServer((sock) => {
      sockets.add(sock);
      const bytes = Buffer.from('HTTP/1.1 200 OK\r\nx-slow: ');
      let i = 0;
      const t = setInterval(
        () =>
          sock.writable ? sock.write(bytes.subarray(i % bytes.length, (i++ % bytes.length) + 1)) : clearInterval(t),
        200,
      );
      sock.on('close', () => clearInterval(t));
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => tricks.listen(0, '127.0.0.1', () => r()));
    try {
      writeSettings(u.env, {
        audio: 'null',
        'transcriber.url': `http://127.0.0.1:${(tricks.address() as AddressInfo).port}/v1`,
      });
      const d = await doctor(u);
      const tr = one(d.checks, 'transcriber');
      assert.equal(tr.level, 'warn', d.text);
      assert.match(tr.detail, /\(no answer within 3 s\)/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => tricks.close(() => r()));
      removeDir(u.home);
    }
  });

  test('while a listen records, doctor (and /v1/status) name the session that holds the microphone', async () => {
    const home = tempDir('vox-doctor-mic-');
    const shim = join(FIXTURES, 'listen', 'arecord');
    const d = await startDaemon({
      home,
      env: {
        VOXD_RECORDER: shim,
        VOX_TEST_MIC_CONTROL: join(home, 'mic.json'),
        VOX_TEST_MIC_PIDFILE: join(home, 'mic.pid'),
      },
    });
    try {
      writeFileSync(join(home, 'mic.json'), JSON.stringify({ leadMs: 20_000 }));
      assert.equal((await d.api('GET', '/v1/status')).body.listening, null, 'nobody holds it yet');
      const listening = d.api('POST', '/v1/listen', { startTimeoutMs: 30_000, prompt: false, session: 'shop#3c07f0' });
      await waitFor(() => existsSync(join(home, 'mic.pid')) || undefined, 20_000, 'the recorder to start');
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.listening.session, 'shop#3c07f0');
      assert.match(s.body.listening.id, /^listen-/);
      await waitFor(
        async () => ((await d.api('GET', '/v1/status')).body.listening.open ? true : undefined),
        10_000,
        'the microphone to be open',
      );
      // A second listen queues behind it: doctor and status say so.
      const queued = d.api('POST', '/v1/listen', { prompt: false, session: 'other#1' });
      await waitFor(
        async () => ((await d.api('GET', '/v1/status')).body.listening.queued === 1 ? true : undefined),
        10_000,
        'the second listen to queue',
      );
      const r = await vox(['doctor', '--json'], { env: d.env, cwd: home });
      const mic = (JSON.parse(r.stdout).checks as Check[]).find((c) => c.name === 'microphone')!;
      assert.match(mic.detail, /^held by session shop#3c07f0 \(listen-[0-9a-f]+\), open, 1 waiting:/);
      const st = await vox(['status'], { env: d.env });
      assert.match(st.stdout, /^mic: {4}held by session shop#3c07f0 \(listen-[0-9a-f]+\), open, 1 waiting$/m);
      assert.equal((await vox(['stop', '--all'], { env: d.env })).code, 0);
      await listening;
      assert.equal((await queued).body.endedBy, 'stopped', 'the stop ends the queued listen too');
      assert.equal((await d.api('GET', '/v1/status')).body.listening, null, 'released after the stop');
      assert.doesNotMatch((await vox(['status'], { env: d.env })).stdout, /^mic:/m, 'no mic line when nobody holds it');
    } finally {
      await d.stop();
      removeDir(home);
    }
  });

  test('vox listen with no recorder: the install advice once, not twice', async () => {
    const home = tempDir('vox-doctor-norec-');
    const d = await startDaemon({ home, env: { PATH: join(home, 'empty-bin') } });
    try {
      const r = await vox(['listen', '--no-prompt'], { env: d.env });
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        /^vox listen: VOX_ERR_RECORDER_MISSING: No recorder program: none of arecord, rec, sox is on PATH\. Install alsa-utils/,
      );
      assert.equal(r.stderr.match(/alsa-utils/g)?.length, 1, r.stderr);
      // The setting a client-started voxd reads, never VOXD_RECORDER, which it ignores.
      assert.match(r.stderr, /"vox daemon config set listen\.recorder \/ABSOLUTE\/PATH"/);
      assert.doesNotMatch(r.stderr, /VOXD_RECORDER/);
    } finally {
      await d.stop();
      removeDir(home);
    }
  });
});

describe('vox status and vox stop with voxd stopped', () => {
  test('they say voxd is not running and how to start it, and never blame VOX_NO_AUTOSTART, which they set themselves', async () => {
    const u = user();
    try {
      for (const cmd of ['status', 'stop']) {
        const r = await vox([cmd], { env: u.env });
        assert.equal(r.code, 3, r.stderr);
        assert.equal(
          r.stderr,
          `vox ${cmd}: VOX_ERR_CLIENT_DAEMON_UNREACHABLE: voxd is not running (VOX_HOME has no voxd.json); "vox ${cmd}" does not start voxd. Start it with "vox daemon start" (or any "vox say").\n`,
        );
      }
      // A voxd.json left by a voxd that is gone: where it looked, still no blame.
      mkdirSync(u.env.VOX_HOME!, { recursive: true });
      writeFileSync(
        join(u.env.VOX_HOME!, 'voxd.json'),
        JSON.stringify({ pid: 2 ** 22 + 1, host: '127.0.0.1', port: 9 }),
      );
      for (const cmd of ['status', 'stop']) {
        const r = await vox([cmd], { env: u.env });
        assert.equal(r.code, 3, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(
            `^vox ${cmd}: VOX_ERR_CLIENT_DAEMON_UNREACHABLE: voxd is not running: nothing answers at 127\\.0\\.0\\.1:9 \\(from voxd\\.json\\); "vox ${cmd}" does not start voxd\\.`,
          ),
        );
        assert.doesNotMatch(r.stderr, /VOX_NO_AUTOSTART/);
      }
      // Set by the user: then naming it is the truth.
      const own = await vox(['status'], { env: { ...u.env, VOX_NO_AUTOSTART: '1' } });
      assert.match(own.stderr, /unset VOX_NO_AUTOSTART/);
    } finally {
      removeDir(u.home);
    }
  });
});
