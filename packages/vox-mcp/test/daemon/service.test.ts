import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { needTool } from '../../../../test/helpers/tools.js';
import { VERSION } from '@vox/protocol';
import {
  DEFAULT_TEMPLATES_DIR,
  ServiceError,
  loadTemplates,
  missingSessionTargets,
  renderServiceFiles,
  renderTemplate,
  resolveVoxd,
  serviceFilePaths,
  serviceValues,
  type ServiceValues,
} from '../../src/daemon/service-files.js';
import {
  checkServiceManager,
  controlService,
  defaultExec,
  installService,
  serviceInstalled,
  uninstallService,
  type Exec,
  type ExecResult,
} from '../../src/daemon/service.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'vox-service-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function dir(): string {
  const d = join(tmp, String(n++));
  mkdirSync(d, { recursive: true });
  return d;
}

const AUDIO = {
  XDG_RUNTIME_DIR: '/run/user/1000',
  PULSE_SERVER: 'unix:/mnt/wslg/PulseServer',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
};

function values(over: Partial<ServiceValues> = {}): ServiceValues {
  return {
    NODE: '/usr/bin/node',
    VOXD: '/opt/vox/packages/voxd/dist/main.js',
    VOX_HOME: '/home/u/.local/state/vox',
    LOG_DIR: '/home/u/.local/state/vox/logs',
    PATH: '/usr/bin:/bin',
    PORT: '8421',
    VOX_CONFIG_HOME: '/home/u/.config/vox',
    ...AUDIO,
    ...over,
  };
}

/**
 * Records every service-manager call and answers from a script; no real
 * systemctl or launchctl runs. By default the user manager is running.
 */
function fakeExec(answer: (argv: string[]) => Partial<ExecResult> = () => ({})): Exec & { calls: string[][] } {
  const calls: string[][] = [];
  const exec = (async (file: string, args: readonly string[]) => {
    const argv = [file, ...args];
    calls.push(argv);
    const running = argv.join(' ') === 'systemctl --user is-system-running' ? { stdout: 'running\n' } : {};
    return { code: 0, stdout: '', stderr: '', ...running, ...answer(argv) };
  }) as Exec & { calls: string[][] };
  exec.calls = calls;
  return exec;
}

describe('renderTemplate', () => {
  test('fills placeholders, drops lines whose value is unset, refuses unknown names', () => {
    assert.equal(renderTemplate('a={{A}}\nb={{B}}\nc', { A: '1', B: undefined }), 'a=1\nc');
    assert.equal(
      renderTemplate('{{A}}', { A: 'x' }, (_n, v) => v.toUpperCase()),
      'X',
    );
    assert.throws(() => renderTemplate('{{TYPO}}', { A: '1' }), ServiceError);
  });
});

describe('serviceValues', () => {
  const base = {
    home: '/home/u',
    uid: 1000,
    node: '/opt/node/bin/node',
    voxd: '/v/main.js',
    port: 8421,
    exists: () => true,
  };

  test('Linux: audio session copied from the environment', () => {
    const v = serviceValues({ ...base, platform: 'linux', env: { HOME: '/home/u', PATH: '/usr/bin:/bin', ...AUDIO } });
    assert.equal(v.XDG_RUNTIME_DIR, AUDIO.XDG_RUNTIME_DIR);
    assert.equal(v.PULSE_SERVER, AUDIO.PULSE_SERVER);
    assert.equal(v.DBUS_SESSION_BUS_ADDRESS, AUDIO.DBUS_SESSION_BUS_ADDRESS);
    assert.equal(v.VOX_HOME, '/home/u/.local/state/vox');
    assert.equal(v.LOG_DIR, '/home/u/.local/state/vox/logs');
    assert.equal(v.PATH, '/opt/node/bin:/usr/bin:/bin', "node's directory goes on PATH");
    assert.equal(v.NODE, '/opt/node/bin/node');
    assert.equal(v.VOX_CONFIG_HOME, '/home/u/.config/vox', 'the settings directory vox daemon config edits');
    assert.equal(
      serviceValues({ ...base, platform: 'linux', env: { VOX_CONFIG_HOME: '/cfg' } }).VOX_CONFIG_HOME,
      '/cfg',
    );
  });

  test('Linux: variables that point nowhere are left out (XDG_RUNTIME_DIR=/run/user/0 that does not exist)', () => {
    const there = new Set(['/run/user/1000/bus']);
    const exists = (p: string) => there.has(p);
    const env = {
      HOME: '/home/u',
      XDG_RUNTIME_DIR: '/run/user/0',
      PULSE_SERVER: 'unix:/run/user/0/pulse/native',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
    };
    const v = serviceValues({ ...base, platform: 'linux', env, exists });
    assert.equal(v.XDG_RUNTIME_DIR, undefined, 'neither the given nor the /run/user/<uid> default exists');
    assert.equal(v.PULSE_SERVER, undefined);
    assert.equal(v.DBUS_SESSION_BUS_ADDRESS, 'unix:path=/run/user/1000/bus');
    assert.deepEqual(
      missingSessionTargets(env, exists).map((w) => w.split('=')[0]),
      ['XDG_RUNTIME_DIR', 'PULSE_SERVER'],
    );
    // What cannot be checked is kept: a TCP sound server, an abstract bus socket.
    const remote = serviceValues({
      ...base,
      platform: 'linux',
      env: { PULSE_SERVER: 'tcp:host:4713', DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-x,guid=1' },
      exists: () => false,
    });
    assert.equal(remote.PULSE_SERVER, 'tcp:host:4713');
    assert.equal(remote.DBUS_SESSION_BUS_ADDRESS, 'unix:abstract=/tmp/dbus-x,guid=1');
    assert.equal(remote.XDG_RUNTIME_DIR, undefined);
  });

  test('Linux: XDG_RUNTIME_DIR defaults to /run/user/<uid>; unset optional ones stay unset', () => {
    const v = serviceValues({ ...base, platform: 'linux', env: { HOME: '/home/u', VOX_HOME: '/srv/vox' } });
    assert.equal(v.XDG_RUNTIME_DIR, '/run/user/1000');
    assert.equal(v.PULSE_SERVER, undefined);
    assert.equal(v.DBUS_SESSION_BUS_ADDRESS, undefined);
    assert.equal(v.VOX_HOME, '/srv/vox');
    assert.match(v.PATH, /^\/opt\/node\/bin:/);
  });

  test('macOS: no /run/user default; VOX_HOME in Application Support', () => {
    const v = serviceValues({
      ...base,
      home: '/Users/u',
      platform: 'darwin',
      env: { HOME: '/Users/u', PATH: '/opt/node/bin:/usr/bin' },
    });
    assert.equal(v.XDG_RUNTIME_DIR, undefined);
    assert.equal(v.VOX_HOME, '/Users/u/Library/Application Support/vox');
    assert.equal(v.PATH, '/opt/node/bin:/usr/bin');
  });
});

describe('systemd templates', () => {
  const templates = loadTemplates();

  test('the unit template carries the audio session (the reference outage)', () => {
    for (const name of ['XDG_RUNTIME_DIR', 'PULSE_SERVER', 'DBUS_SESSION_BUS_ADDRESS']) {
      assert.match(templates.service, new RegExp(`^Environment="${name}=\\{\\{${name}\\}\\}"$`, 'm'), name);
    }
  });

  test('rendered unit: absolute ExecStart, VOX_HOME, PATH and the audio environment', () => {
    const [unit, socket] = renderServiceFiles('linux', values(), templates, ['/u/voxd.service', '/u/voxd.socket']);
    assert.equal(unit!.path, '/u/voxd.service');
    const text = unit!.contents;
    assert.match(text, /^ExecStart="\/usr\/bin\/node" "\/opt\/vox\/packages\/voxd\/dist\/main\.js"$/m);
    assert.match(text, /^Environment="VOX_HOME=\/home\/u\/\.local\/state\/vox"$/m);
    assert.match(text, /^Environment="VOX_CONFIG_HOME=\/home\/u\/\.config\/vox"$/m);
    assert.match(text, /^Environment="PATH=\/usr\/bin:\/bin"$/m);
    assert.match(text, /^Environment="XDG_RUNTIME_DIR=\/run\/user\/1000"$/m);
    assert.match(text, /^Environment="PULSE_SERVER=unix:\/mnt\/wslg\/PulseServer"$/m);
    assert.match(text, /^Environment="DBUS_SESSION_BUS_ADDRESS=unix:path=\/run\/user\/1000\/bus"$/m);
    assert.match(text, /^Requires=voxd\.socket$/m);
    assert.doesNotMatch(text, /\{\{/);
    assert.match(socket!.contents, /^ListenStream=127\.0\.0\.1:8421$/m);
    assert.doesNotMatch(socket!.contents, /\{\{/);
  });

  test('without PULSE_SERVER and DBUS the lines go, XDG_RUNTIME_DIR stays', () => {
    const [unit] = renderServiceFiles(
      'linux',
      values({ PULSE_SERVER: undefined, DBUS_SESSION_BUS_ADDRESS: undefined }),
      templates,
      ['/a', '/b'],
    );
    assert.doesNotMatch(unit!.contents, /PULSE_SERVER=|DBUS_SESSION_BUS_ADDRESS=/);
    assert.match(unit!.contents, /^Environment="XDG_RUNTIME_DIR=\/run\/user\/1000"$/m);
  });

  test('quotes, backslashes, % and $ are escaped for systemd; line breaks are refused', () => {
    const [unit] = renderServiceFiles('linux', values({ NODE: '/o$t/n"o%de', VOX_HOME: '/h\\x%y' }), templates, [
      '/a',
      '/b',
    ]);
    assert.match(unit!.contents, /^ExecStart="\/o\$\$t\/n\\"o%%de" /m);
    assert.match(unit!.contents, /^Environment="VOX_HOME=\/h\\\\x%%y"$/m);
    assert.throws(
      () => renderServiceFiles('linux', values({ PATH: '/a\n[Service]' }), templates, ['/a', '/b']),
      ServiceError,
    );
  });

  test('systemd-analyze verify accepts the rendered units', { skip: needTool('systemd-analyze') }, () => {
    const d = dir();
    // A node path with a space and a %: exercises quoting and specifier escaping for real.
    const nodeDir = join(d, 'node 20%x');
    mkdirSync(nodeDir);
    symlinkSync(process.execPath, join(nodeDir, 'node'));
    const voxd = join(d, 'main.js');
    writeFileSync(voxd, '');
    const runtime = join(d, 'runtime');
    mkdirSync(runtime, { mode: 0o700 });
    const files = renderServiceFiles(
      'linux',
      values({ NODE: join(nodeDir, 'node'), VOXD: voxd, VOX_HOME: join(d, 'state') }),
      templates,
      [join(d, 'voxd.service'), join(d, 'voxd.socket')],
    );
    for (const f of files) writeFileSync(f.path, f.contents);
    const res = spawnSync('systemd-analyze', ['--user', 'verify', ...files.map((f) => f.path)], {
      encoding: 'utf8',
      env: { ...process.env, XDG_RUNTIME_DIR: runtime, SYSTEMD_LOG_COLOR: '0' },
    });
    // verify exits 0 on warnings such as unknown keys; any output is a finding.
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr.trim(), '');
  });
});

describe('launchd template', () => {
  const templates = loadTemplates();
  const darwin = values({
    XDG_RUNTIME_DIR: undefined,
    PULSE_SERVER: undefined,
    DBUS_SESSION_BUS_ADDRESS: undefined,
    VOX_HOME: '/Users/u/Library/Application Support/vox',
    LOG_DIR: '/Users/u/Library/Application Support/vox/logs',
  });

  test('rendered plist has the agent keys and escapes XML', () => {
    const [plist] = renderServiceFiles('darwin', { ...darwin, PATH: '/a&b<c>' }, templates, ['/p.plist']);
    const text = plist!.contents;
    for (const key of [
      'Label',
      'ProgramArguments',
      'EnvironmentVariables',
      'ProcessType',
      'LimitLoadToSessionType',
      'RunAtLoad',
      'KeepAlive',
      'StandardOutPath',
      'StandardErrorPath',
    ]) {
      assert.match(text, new RegExp(`<key>${key}</key>`), key);
    }
    assert.match(text, /<string>\/a&amp;b&lt;c&gt;<\/string>/);
    assert.doesNotMatch(text, /\{\{|XDG_RUNTIME_DIR|PULSE_SERVER/);
  });

  test('plistlib parses it to the expected agent', { skip: needTool('plistlib') }, () => {
    const d = dir();
    const [plist] = renderServiceFiles('darwin', { ...darwin, PULSE_SERVER: 'tcp:localhost' }, templates, [
      join(d, 'com.vox.voxd.plist'),
    ]);
    writeFileSync(plist!.path, plist!.contents);
    const res = spawnSync(
      'python3',
      ['-c', 'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))', plist!.path],
      { encoding: 'utf8' },
    );
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), {
      Label: 'com.vox.voxd',
      ProgramArguments: ['/usr/bin/node', '/opt/vox/packages/voxd/dist/main.js'],
      EnvironmentVariables: {
        VOX_HOME: darwin.VOX_HOME,
        VOX_CONFIG_HOME: '/home/u/.config/vox',
        PATH: '/usr/bin:/bin',
        PULSE_SERVER: 'tcp:localhost',
      },
      ProcessType: 'Interactive',
      LimitLoadToSessionType: 'Aqua',
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 5,
      StandardOutPath: `${darwin.LOG_DIR}/voxd.stdout.log`,
      StandardErrorPath: `${darwin.LOG_DIR}/voxd.stderr.log`,
    });
  });
});

describe('install and uninstall (temp HOME, recorded service manager)', () => {
  function opts(home: string, platform: NodeJS.Platform, exec: Exec, over: Record<string, unknown> = {}) {
    return {
      env: { HOME: home, PATH: '/usr/bin:/bin', ...AUDIO },
      platform,
      home,
      uid: 1000,
      node: '/usr/bin/node',
      voxd: '/opt/vox/packages/voxd/dist/main.js',
      exec,
      exists: () => true,
      ...over,
    };
  }

  test('Linux: writes both units, reloads and enables the socket and the service; uninstall reverses it', async () => {
    const home = dir();
    const exec = fakeExec();
    const report = await installService(opts(home, 'linux', exec));
    const unitDir = join(home, '.config', 'systemd', 'user');
    assert.deepEqual(report.files, [join(unitDir, 'voxd.service'), join(unitDir, 'voxd.socket')]);
    assert.deepEqual(exec.calls, [
      ['systemctl', '--user', 'is-system-running'],
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'voxd.socket', 'voxd.service'],
    ]);
    assert.equal(report.activated, true);
    assert.deepEqual(report.warnings, []);
    assert.match(
      readFileSync(join(unitDir, 'voxd.service'), 'utf8'),
      /^Environment="PULSE_SERVER=unix:\/mnt\/wslg\/PulseServer"$/m,
    );
    assert.ok(existsSync(join(home, '.local', 'state', 'vox', 'logs')), 'log directory created');
    assert.equal(serviceInstalled(opts(home, 'linux', exec)), true);

    exec.calls.length = 0;
    await installService(opts(home, 'linux', exec));
    assert.equal(
      exec.calls.some((c) => c.includes('try-restart')),
      false,
      'an unchanged reinstall does not restart voxd',
    );
    await installService(opts(home, 'linux', exec, { node: '/opt/node22/bin/node' }));
    assert.deepEqual(
      exec.calls.at(-1),
      ['systemctl', '--user', 'try-restart', 'voxd.service'],
      'a changed unit restarts a running voxd',
    );

    exec.calls.length = 0;
    const un = await uninstallService(opts(home, 'linux', exec));
    assert.deepEqual(exec.calls, [
      ['systemctl', '--user', 'disable', '--now', 'voxd.socket', 'voxd.service'],
      ['systemctl', '--user', 'daemon-reload'],
    ]);
    assert.deepEqual(un.files, report.files);
    assert.equal(existsSync(join(unitDir, 'voxd.service')), false);
    assert.equal(existsSync(join(unitDir, 'voxd.socket')), false);
    assert.equal(serviceInstalled(opts(home, 'linux', exec)), false);

    exec.calls.length = 0;
    const again = await uninstallService(opts(home, 'linux', exec));
    assert.deepEqual(exec.calls, [], 'uninstalling twice is harmless');
    assert.deepEqual(again.files, []);
  });

  test('Linux: XDG_CONFIG_HOME moves the unit directory', () => {
    assert.deepEqual(serviceFilePaths('linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/u'), [
      '/cfg/systemd/user/voxd.service',
      '/cfg/systemd/user/voxd.socket',
    ]);
    assert.deepEqual(serviceFilePaths('darwin', {}, '/Users/u'), ['/Users/u/Library/LaunchAgents/com.vox.voxd.plist']);
  });

  test('Linux without systemctl: refused before anything is written, with how to run voxd instead', async () => {
    const home = dir();
    const enoent = Object.assign(new Error('spawn systemctl ENOENT'), { code: 'ENOENT' });
    const exec = fakeExec(() => ({ code: null, error: enoent }));
    await assert.rejects(installService(opts(home, 'linux', exec)), (err: unknown) => {
      assert.ok(err instanceof ServiceError && err.managerUnavailable);
      assert.match(
        err.message,
        /no working systemd user manager: systemctl is not installed\. Nothing was installed or stopped\./,
      );
      assert.match(err.message, /clients start it on demand/);
      assert.match(err.message, /"voxd" under your own supervisor/);
      return true;
    });
    assert.deepEqual(exec.calls, [['systemctl', '--user', 'is-system-running']]);
    assert.equal(existsSync(join(home, '.config')), false, 'no unit written');
    assert.equal(serviceInstalled(opts(home, 'linux', exec)), false);
  });

  test('Linux without a user bus ("offline"): refused, quoting systemctl; nothing written', async () => {
    const home = dir();
    const exec = fakeExec(() => ({
      code: 1,
      stdout: 'offline\n',
      stderr: 'Failed to connect to bus: No medium found\n',
    }));
    await assert.rejects(
      installService(opts(home, 'linux', exec)),
      /"systemctl --user is-system-running" says "offline": Failed to connect to bus: No medium found/,
    );
    assert.deepEqual(exec.calls, [['systemctl', '--user', 'is-system-running']]);
    assert.equal(serviceInstalled(opts(home, 'linux', exec)), false);
    // degraded is a working manager (one failed unit somewhere else).
    const degraded = fakeExec((argv) => (argv[2] === 'is-system-running' ? { code: 1, stdout: 'degraded\n' } : {}));
    assert.equal((await checkServiceManager(opts(home, 'linux', degraded))).ok, true);
  });

  test('macOS without a GUI session: refused', async () => {
    const home = dir();
    const exec = fakeExec(() => ({ code: 112, stderr: 'Could not find domain for port identifier: gui/501' }));
    await assert.rejects(
      installService(opts(home, 'darwin', exec, { uid: 501 })),
      /no launchd GUI session .*Could not find domain/,
    );
    assert.equal(existsSync(join(home, 'Library')), false);
  });

  test('Linux: a variable that points nowhere is left out of the unit with a warning', async () => {
    const home = dir();
    const o = opts(home, 'linux', fakeExec(), { exists: (p: string) => p !== '/run/user/1000' });
    const report = await installService(o);
    const unit = readFileSync(report.files[0]!, 'utf8');
    assert.doesNotMatch(unit, /XDG_RUNTIME_DIR/);
    assert.match(report.warnings.join('\n'), /XDG_RUNTIME_DIR=\/run\/user\/1000 points to nothing here/);
  });

  test('Linux: a per-login DBUS address is copied with a warning', async () => {
    const home = dir();
    const o = opts(home, 'linux', fakeExec());
    o.env.DBUS_SESSION_BUS_ADDRESS = 'unix:abstract=/tmp/dbus-XYZ,guid=abc';
    const report = await installService(o);
    assert.match(report.warnings.join('\n'), /changes at every login/);
  });

  test('macOS: writes the plist and bootstraps it in gui/<uid>; uninstall boots it out', async () => {
    const home = dir();
    const exec = fakeExec();
    const report = await installService(opts(home, 'darwin', exec, { uid: 501 }));
    const plist = join(home, 'Library', 'LaunchAgents', 'com.vox.voxd.plist');
    assert.deepEqual(report.files, [plist]);
    assert.deepEqual(exec.calls, [
      ['launchctl', 'print', 'gui/501'],
      ['launchctl', 'bootstrap', 'gui/501', plist],
    ]);
    assert.ok(
      existsSync(join(home, 'Library', 'Application Support', 'vox', 'logs')),
      'launchd needs the log directory to exist',
    );

    exec.calls.length = 0;
    await installService(opts(home, 'darwin', exec, { uid: 501 }));
    assert.deepEqual(exec.calls, [
      ['launchctl', 'print', 'gui/501'],
      ['launchctl', 'bootout', 'gui/501/com.vox.voxd'],
      ['launchctl', 'bootstrap', 'gui/501', plist],
    ]);

    exec.calls.length = 0;
    await uninstallService(opts(home, 'darwin', exec, { uid: 501 }));
    assert.deepEqual(exec.calls, [['launchctl', 'bootout', 'gui/501/com.vox.voxd']]);
    assert.equal(existsSync(plist), false);
  });

  test('macOS: a failed bootstrap leaves the plist and says how to load it', async () => {
    const home = dir();
    const exec = fakeExec((argv) =>
      argv[1] === 'bootstrap' ? { code: 5, stderr: 'Bootstrap failed: 5: Input/output error' } : {},
    );
    const report = await installService(opts(home, 'darwin', exec, { uid: 501 }));
    assert.equal(report.activated, false);
    assert.match(report.warnings[0]!, /Input\/output error/);
    assert.match(report.warnings[0]!, /launchctl bootstrap gui\/501/);
  });

  test('other platforms are refused with a clear error', async () => {
    await assert.rejects(
      installService(opts(dir(), 'win32', fakeExec())),
      /supports Linux \(systemd\) and macOS \(launchd\)/,
    );
  });
});

describe('controlService', () => {
  const base = { env: { HOME: '/h' }, home: '/h', uid: 501 };

  test('systemd: start starts the socket and the service, stop and restart the service', async () => {
    const exec = fakeExec();
    for (const action of ['start', 'stop', 'restart'] as const)
      await controlService(action, { ...base, platform: 'linux', exec });
    assert.deepEqual(exec.calls, [
      ['systemctl', '--user', 'start', 'voxd.socket', 'voxd.service'],
      ['systemctl', '--user', 'stop', 'voxd.service'],
      ['systemctl', '--user', 'restart', 'voxd.service'],
    ]);
  });

  test('launchd: kickstart, kill SIGTERM, kickstart -k; start loads an unloaded agent', async () => {
    const exec = fakeExec();
    for (const action of ['start', 'stop', 'restart'] as const)
      await controlService(action, { ...base, platform: 'darwin', exec });
    assert.deepEqual(exec.calls, [
      ['launchctl', 'kickstart', 'gui/501/com.vox.voxd'],
      ['launchctl', 'kill', 'SIGTERM', 'gui/501/com.vox.voxd'],
      ['launchctl', 'kickstart', '-k', 'gui/501/com.vox.voxd'],
    ]);
    const unloaded = fakeExec((argv) =>
      argv[1] === 'kickstart' ? { code: 113, stderr: 'Could not find service' } : {},
    );
    await controlService('start', { ...base, platform: 'darwin', exec: unloaded });
    assert.deepEqual(unloaded.calls.at(-1), [
      'launchctl',
      'bootstrap',
      'gui/501',
      '/h/Library/LaunchAgents/com.vox.voxd.plist',
    ]);
  });

  test('a failing manager is a ServiceError quoting it', async () => {
    const exec = fakeExec(() => ({ code: 1, stderr: 'Job for voxd.service failed.\n' }));
    await assert.rejects(controlService('restart', { ...base, platform: 'linux', exec }), (err: unknown) => {
      return (
        err instanceof ServiceError &&
        /Job for voxd\.service failed/.test(err.message) &&
        /journalctl --user -u voxd/.test(err.message)
      );
    });
  });
});

describe('defaultExec and resolveVoxd', () => {
  test('runs a program and reports its exit code; a missing program is ENOENT', async () => {
    const ok = await defaultExec(process.execPath, ['-e', 'process.stdout.write("hi"); process.exit(3)'], {
      env: process.env,
    });
    assert.equal(ok.code, 3);
    assert.equal(ok.stdout, 'hi');
    const missing = await defaultExec(join(tmp, 'no-such-program'), [], { env: process.env });
    assert.equal(missing.code, null);
    assert.equal(missing.error?.code, 'ENOENT');
  });

  test("the templates are the repository's config/ files", () => {
    assert.equal(DEFAULT_TEMPLATES_DIR, join(repo, 'config') + '/');
  });

  const voxdMain = join(repo, 'packages', 'voxd', 'dist', 'main.js');
  test('finds the built voxd beside this package', { skip: existsSync(voxdMain) ? false : 'voxd is not built' }, () => {
    assert.equal(resolveVoxd(), voxdMain);
  });
});

describe('vox daemon (built binary)', () => {
  const cliJs = join(repo, 'packages', 'vox-mcp', 'dist', 'cli.js');
  const voxdMain = join(repo, 'packages', 'voxd', 'dist', 'main.js');
  const notBuilt = !existsSync(cliJs)
    ? `${cliJs} is not built; run "npx tsc -b"`
    : !existsSync(voxdMain)
      ? 'voxd is not built'
      : false;

  /**
   * An environment in which no real service manager is reached: HOME,
   * VOX_HOME, VOX_CONFIG_HOME and XDG_RUNTIME_DIR are temporary, there is no
   * session bus, and a stand-in `systemctl` comes first on PATH. The stand-in
   * records its arguments and answers as the mode file says: `unreachable`
   * (no user bus, as in a container) or `reachable`, where it plays systemd:
   * `enable --now`, `start` and `restart` run voxd, `stop` and `disable` end it.
   */
  function sandbox(port?: number) {
    const root = dir();
    const bin = join(root, 'bin');
    mkdirSync(bin);
    const pulse = join(root, 'pulse-native');
    writeFileSync(pulse, '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      HOME: join(root, 'home'),
      VOX_HOME: join(root, 'state'),
      VOX_CONFIG_HOME: join(root, 'config'),
      XDG_RUNTIME_DIR: join(root, 'run'),
      PULSE_SERVER: `unix:${pulse}`,
      VOXD_AUDIO: 'null',
      STUB_LOG: join(root, 'systemctl.log'),
      STUB_MODE: join(root, 'systemctl.mode'),
      STUB_PID: join(root, 'systemctl.pid'),
      STUB_NODE: process.execPath,
      STUB_VOXD: voxdMain,
    };
    for (const k of [
      'DBUS_SESSION_BUS_ADDRESS',
      'XDG_CONFIG_HOME',
      'XDG_STATE_HOME',
      'VOXD_URL',
      'VOXD_HOST',
      'VOXD_BIN',
      'VOXD_TOKEN',
      'VOX_NO_AUTOSTART',
    ])
      delete env[k];
    if (port) env.VOXD_PORT = String(port);
    else delete env.VOXD_PORT;
    mkdirSync(env.HOME!, { recursive: true });
    mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(bin, 'systemctl'),
      `#!/bin/sh
echo "$*" >> "$STUB_LOG"
if [ "$(cat "$STUB_MODE" 2>/dev/null)" != reachable ]; then
  case "$*" in *is-system-running*) echo offline ;; esac
  echo "Failed to connect to bus: No medium found" >&2
  exit 1
fi
stop() { [ -f "$STUB_PID" ] && kill "$(cat "$STUB_PID")" 2>/dev/null; while [ -f "$STUB_PID" ] && kill -0 "$(cat "$STUB_PID")" 2>/dev/null; do sleep 0.1; done; rm -f "$STUB_PID"; }
case "$*" in
  "--user is-system-running") echo running ;;
  "--user enable --now voxd.socket voxd.service"|"--user start voxd.socket voxd.service") "$STUB_NODE" "$STUB_VOXD" </dev/null >/dev/null 2>&1 & echo $! > "$STUB_PID" ;;
  "--user restart voxd.service") stop; "$STUB_NODE" "$STUB_VOXD" </dev/null >/dev/null 2>&1 & echo $! > "$STUB_PID" ;;
  "--user stop voxd.service"|"--user disable --now voxd.socket voxd.service") stop ;;
esac
exit 0
`,
      { mode: 0o755 },
    );
    const mode = (m: 'reachable' | 'unreachable') => writeFileSync(env.STUB_MODE!, m);
    const calls = () => (existsSync(env.STUB_LOG!) ? readFileSync(env.STUB_LOG!, 'utf8').trim().split('\n') : []);
    const vox = (...args: string[]) =>
      spawnSync(process.execPath, [cliJs, 'daemon', ...args], { env, cwd: root, encoding: 'utf8', timeout: 30_000 });
    const doctor = () =>
      JSON.parse(
        spawnSync(process.execPath, [cliJs, 'doctor', '--json'], { env, cwd: root, encoding: 'utf8', timeout: 60_000 })
          .stdout,
      );
    return { env, vox, doctor, mode, calls, unitDir: join(env.HOME!, '.config', 'systemd', 'user') };
  }

  test(
    'without a working user manager, install refuses, writes nothing and leaves the running voxd alone',
    { skip: notBuilt || (process.platform !== 'linux' && 'Linux only') },
    async () => {
      const port = await freePort();
      const { vox, mode, calls, unitDir } = sandbox(port);
      mode('unreachable');
      try {
        const started = vox('start', '--json');
        assert.equal(started.status, 0, started.stderr);
        const pid = JSON.parse(started.stdout).daemon.pid as number;
        const r = vox('install');
        assert.equal(r.status, 3, r.stderr);
        assert.match(
          r.stderr,
          /^vox daemon install: no working systemd user manager: "systemctl --user is-system-running" says "offline": Failed to connect to bus: No medium found\. Nothing was installed or stopped\./m,
        );
        assert.match(r.stderr, /clients start it on demand .*"vox daemon start".*"voxd" under your own supervisor/);
        assert.doesNotMatch(r.stdout, /Stopping/);
        assert.equal(pidAlive(pid), true, 'the running voxd was not stopped');
        assert.equal(existsSync(join(unitDir, 'voxd.service')), false);
        assert.deepEqual(calls(), ['--user is-system-running'], 'nothing but the check ran');
        const json = JSON.parse(vox('install', '--json').stdout);
        assert.equal(json.manager.ok, false);
        assert.match(json.error, /Nothing was installed or stopped/);
      } finally {
        vox('stop');
      }
    },
  );

  test(
    'start, status, restart and stop a real voxd; install through a working manager; doctor when installed but not running',
    { skip: notBuilt || (process.platform !== 'linux' && 'Linux only') },
    async () => {
      const port = await freePort();
      const { env, vox, doctor, mode, calls, unitDir } = sandbox(port);
      try {
        const started = vox('start');
        assert.equal(started.status, 0, started.stderr);
        assert.match(
          started.stdout,
          new RegExp(`voxd ${VERSION.replace(/\./g, '\\.')} is running \\(pid \\d+, 127\\.0\\.0\\.1:${port}\\)`),
        );

        const st = vox('status', '--json');
        assert.equal(st.status, 0, st.stderr);
        const s1 = JSON.parse(st.stdout);
        assert.equal(s1.daemon.running, true);
        assert.equal(s1.daemon.version, VERSION);
        assert.equal(s1.daemon.port, port);
        assert.equal(s1.service.installed, false);
        assert.deepEqual(s1.warnings, []);

        const text = vox('status');
        assert.match(text.stdout, /^voxd: running, version /m);
        assert.match(text.stdout, new RegExp(`^vox: version ${VERSION.replace(/\./g, '\\.')}$`, 'm'));
        assert.match(text.stdout, /^service: not installed/m);

        const again = vox('start');
        assert.match(again.stdout, /already/);

        const re = vox('restart', '--json');
        assert.equal(re.status, 0, re.stderr);
        const s2 = JSON.parse(re.stdout);
        assert.equal(s2.daemon.running, true);
        assert.notEqual(s2.daemon.pid, s1.daemon.pid, 'restart runs a new voxd');
        assert.equal(pidAlive(s1.daemon.pid), false);

        // A working manager: install checks it, hands the port over (the voxd a client started is stopped first), and the manager's voxd answers.
        mode('reachable');
        const inst = vox('install');
        assert.equal(inst.status, 0, inst.stderr);
        assert.match(inst.stdout, new RegExp(`Stopping the voxd that is running \\(pid ${s2.daemon.pid}\\)`));
        assert.match(inst.stdout, /is running .*under systemd/);
        assert.equal(pidAlive(s2.daemon.pid), false);
        assert.deepEqual(calls(), [
          '--user is-system-running',
          '--user is-system-running',
          '--user daemon-reload',
          '--user enable --now voxd.socket voxd.service',
        ]);
        const unit = readFileSync(join(unitDir, 'voxd.service'), 'utf8');
        assert.match(unit, new RegExp(`^ExecStart="${process.execPath}" "${voxdMain}"$`, 'm'));
        assert.ok(unit.includes(`Environment="XDG_RUNTIME_DIR=${env.XDG_RUNTIME_DIR}"`));
        assert.ok(unit.includes(`Environment="PULSE_SERVER=${env.PULSE_SERVER}"`));
        assert.ok(unit.includes(`Environment="VOX_HOME=${env.VOX_HOME}"`));
        assert.ok(unit.includes(`Environment="VOX_CONFIG_HOME=${env.VOX_CONFIG_HOME}"`));
        assert.doesNotMatch(unit, /DBUS_SESSION_BUS_ADDRESS/);
        assert.match(
          readFileSync(join(unitDir, 'voxd.socket'), 'utf8'),
          new RegExp(`^ListenStream=127\\.0\\.0\\.1:${port}$`, 'm'),
        );
        const service = (d: { checks: Array<{ name: string; level: string; detail: string; fix?: string }> }) =>
          d.checks.find((c) => c.name === 'service')!;
        assert.equal(service(doctor()).level, 'ok');

        // Installed, but voxd is down: doctor fails it, with the fix.
        const down = vox('stop');
        assert.equal(down.status, 0, down.stderr);
        const check = service(doctor());
        assert.equal(check.level, 'fail', JSON.stringify(check));
        assert.match(check.detail, /installed \(systemd user units\) but not running/);
        assert.match(check.fix!, /vox daemon start/);

        // Installed but no reachable manager: start and stop fall back to acting on voxd directly.
        mode('unreachable');
        const start = vox('start');
        assert.equal(start.status, 0, start.stderr);
        assert.match(start.stderr, /manager is not reachable/);
        assert.match(start.stdout, /is running/);
        const stop = vox('stop', '--json');
        assert.equal(stop.status, 0, stop.stderr);
        const s3 = JSON.parse(stop.stdout);
        assert.equal(s3.daemon.running, false);
        assert.match(s3.warnings.join('\n'), /manager is not reachable/);
        assert.equal(vox('status').status, 3);

        mode('reachable');
        const un = vox('uninstall');
        assert.equal(un.status, 0, un.stderr);
        assert.equal(existsSync(join(unitDir, 'voxd.service')), false);
        assert.equal(existsSync(join(unitDir, 'voxd.socket')), false);
        assert.match(vox('uninstall').stdout, /not installed/);
      } finally {
        mode('reachable');
        vox('stop');
        vox('uninstall');
      }
    },
  );

  test('stop never signals a pid that is not voxd, and reports a stale voxd.json', { skip: notBuilt }, () => {
    const { env, vox } = sandbox();
    mkdirSync(env.VOX_HOME!, { recursive: true });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(
        join(env.VOX_HOME!, 'voxd.json'),
        JSON.stringify({
          pid: other.pid,
          host: '127.0.0.1',
          port: 1,
          version: VERSION,
          startedAt: new Date().toISOString(),
        }),
      );
      const r = vox('stop');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /another program now/);
      assert.equal(pidAlive(other.pid!), true, 'the unrelated process lives');
      const st = vox('status');
      assert.match(st.stdout, /stale/);
    } finally {
      other.kill();
    }
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    writeFileSync(
      join(env.VOX_HOME!, 'voxd.json'),
      JSON.stringify({ pid: Number(dead.stdout), host: '127.0.0.1', port: 1, version: VERSION, startedAt: '' }),
    );
    assert.match(vox('stop').stdout, /has exited/);
  });

  test('usage errors exit 2', { skip: notBuilt }, () => {
    const { vox } = sandbox();
    assert.equal(vox().status, 2);
    assert.equal(vox('frobnicate').status, 2);
    assert.equal(vox('status', '--timeout', 'soon').status, 2);
    assert.match(vox('--help').stdout, /install\s+run voxd as a user service/);
  });
});

describe('compareVersions', () => {
  test('numeric, per part', async () => {
    const { compareVersions } = await import('@vox/protocol');
    assert.equal(compareVersions('0.1.0', '0.2.0'), -1);
    assert.equal(compareVersions('0.10.0', '0.9.9'), 1);
    assert.equal(compareVersions('1.0.0', '1.0.0-rc.1'), 0);
    assert.equal(compareVersions('v1.2', '1.2.0'), 0);
  });
});

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
