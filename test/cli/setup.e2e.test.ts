/**
 * `vox setup`, run for real: the real `vox` against a temporary HOME, with a
 * stand-in `claude` on PATH that records its arguments (the real Claude Code
 * runs at the end, and in the fresh-machine CI job). Afterwards `vox` and
 * `voxd` run from PATH, outside npx and outside the checkout.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { ROOT, removeDir, startDaemon, tempDir, vox } from '../helpers/daemon.js';
import { CLAUDE, claudeSkip } from '../helpers/claude-code.js';
import { wavStats } from '../helpers/wav.js';
import { pathLine } from '../../packages/vox-mcp/src/setup/bin-links.js';

const VOX_BIN = realpathSync(join(ROOT, 'packages/vox-mcp/bin/vox.cjs'));
const VOXD_BIN = realpathSync(join(ROOT, 'packages/voxd/bin/voxd.js'));
const dirs: string[] = [];
/**
 * The system's commands (sh, the coreutils) without any claude: where node
 * comes from a distribution package, `npm i -g` puts Claude Code's claude in
 * /usr/bin. One folder of links, for the whole file.
 */
const SYSTEM_BIN = (() => {
  const sys = tempDir('vox-setup-sys-');
  dirs.push(sys);
  const linked = new Set(['claude']);
  for (const from of ['/usr/bin', '/bin']) {
    for (const name of existsSync(from) ? readdirSync(from) : []) {
      if (!linked.has(name)) symlinkSync(join(from, name), join(sys, name));
      linked.add(name);
    }
  }
  return [sys];
})();
after(() => dirs.forEach(removeDir));

interface World {
  home: string;
  bin: string;
  /** Where the stand-in claude writes one JSON line of arguments per run. */
  calls: string;
  standIn: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh HOME; `claude` on PATH is a stand-in recording its arguments (and failing with `fail`), or absent. */
function world(o: { claude?: boolean; fail?: string; onPath?: boolean } = {}): World {
  const home = tempDir('vox-setup-');
  dirs.push(home);
  const standIn = join(home, 'standin');
  mkdirSync(standIn);
  const calls = join(home, 'claude-calls.jsonl');
  const fake = join(standIn, 'claude');
  // Like Claude Code, it keeps what is installed (a file here) and lists it with --json.
  const state = join(home, 'claude-installed');
  writeFileSync(
    fake,
    `#!${process.execPath}\n` +
      `const fs = require('fs'); const args = process.argv.slice(2); const state = ${JSON.stringify(state)};\n` +
      `fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify(args) + '\\n');\n` +
      (o.fail ? `process.stderr.write(${JSON.stringify(`${o.fail}\n`)}); process.exit(1);\n` : '') +
      `const on = fs.existsSync(state);\n` +
      `if (args.at(-1) === '--json') { console.log(JSON.stringify(!on ? [] : args[1] === 'list' ? [{ id: 'vox@vox' }] : [{ name: 'vox' }])); process.exit(0); }\n` +
      `if (args[1] === 'install') fs.writeFileSync(state, '');\n` +
      `if (args[1] === 'uninstall') fs.rmSync(state, { force: true });\n` +
      `console.log('\\u2714 done');\n`,
  );
  chmodSync(fake, 0o755);
  // node alone, not node's folder: where Claude Code was installed with `npm i -g`, its claude sits beside node.
  const nodeOnly = join(home, 'node-bin');
  mkdirSync(nodeOnly);
  symlinkSync(process.execPath, join(nodeOnly, 'node'));
  const bin = join(home, '.local', 'bin');
  const path = [...(o.onPath ? [bin] : []), ...(o.claude === false ? [] : [standIn]), nodeOnly, ...SYSTEM_BIN].join(
    delimiter,
  );
  return {
    home,
    bin,
    calls,
    standIn,
    env: { HOME: home, PATH: path, LANG: 'C.UTF-8', VOX_HOME: join(home, 'vox-home') },
  };
}

function claudeCalls(w: World): string[][] {
  return existsSync(w.calls)
    ? readFileSync(w.calls, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string[])
    : [];
}

function setup(w: World, args: string[] = []) {
  return vox(['setup', ...args], { env: w.env, cwd: w.home });
}

describe('vox setup', () => {
  test('links vox and voxd into ~/.local/bin, says it is not on PATH with the line to add, and installs the plugin through claude', async () => {
    const w = world();
    const r = await setup(w);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readlinkSync(join(w.bin, 'vox')), VOX_BIN);
    assert.equal(readlinkSync(join(w.bin, 'voxd')), VOXD_BIN);
    assert.match(r.stdout, new RegExp(`^Linked ${w.bin}/vox -> ${VOX_BIN}$`, 'm'));
    assert.match(r.stdout, /is not on PATH/);
    assert.match(r.stdout, /^ {2}export PATH="\$HOME\/\.local\/bin:\$PATH"$/m);
    assert.deepEqual(claudeCalls(w), [
      ['plugin', 'marketplace', 'add', realpathSync(ROOT)],
      ['plugin', 'install', 'vox@vox'],
    ]);
    assert.match(r.stdout, /^Ran: claude plugin install vox@vox \(done\)$/m);

    // Outside npx and outside the checkout: the shell finds both on PATH.
    const env = { ...w.env, PATH: `${w.bin}${delimiter}${w.env.PATH}` };
    const v = spawnSync('sh', ['-c', 'vox --version && voxd --help'], {
      env,
      cwd: w.home,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n/);
    assert.match(v.stdout, /Usage: voxd/);
  });

  test('a second run changes nothing, and with the directory on PATH says nothing about PATH', async () => {
    const w = world({ onPath: true });
    assert.equal((await setup(w)).code, 0);
    const before = lstatSync(join(w.bin, 'vox'));
    const r = await setup(w);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Already linked .*\/vox -> /m);
    assert.match(r.stdout, /^Already linked .*\/voxd -> /m);
    assert.doesNotMatch(r.stdout, /not on PATH/);
    assert.equal(lstatSync(join(w.bin, 'vox')).ino, before.ino, 'the link was not rewritten');
  });

  test('a file in the way stops it before anything changes; --force replaces it', async () => {
    const w = world();
    mkdirSync(w.bin, { recursive: true });
    writeFileSync(join(w.bin, 'vox'), '#!/bin/sh\necho mine\n');
    const r = await setup(w);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^vox setup: VOX_ERR_CLIENT_SETUP_CONFLICT: .*\/\.local\/bin\/vox is a file, not a link vox made; nothing was changed\. .*vox setup --force/,
    );
    assert.equal(readFileSync(join(w.bin, 'vox'), 'utf8'), '#!/bin/sh\necho mine\n');
    assert.equal(existsSync(join(w.bin, 'voxd')), false, 'voxd was not linked either');
    assert.deepEqual(claudeCalls(w), [], 'claude was not run');

    const f = await setup(w, ['--force', '--no-plugin']);
    assert.equal(f.code, 0, f.stderr);
    assert.match(f.stdout, /^Replaced .*\/vox -> .* \(was a file\)$/m);
    assert.equal(readlinkSync(join(w.bin, 'vox')), VOX_BIN);
    assert.deepEqual(claudeCalls(w), [], '--no-plugin leaves claude alone');
  });

  test('a directory in the way is refused even with --force', async () => {
    const w = world();
    mkdirSync(join(w.bin, 'voxd'), { recursive: true });
    const r = await setup(w, ['--force']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /voxd is a directory, not a link vox made; nothing was changed\. Move it away, or choose another directory/,
    );
    assert.equal(existsSync(join(w.bin, 'vox')), false);
  });

  test('a directory that cannot hold the links is named, with the fix', async () => {
    const w = world();
    writeFileSync(join(w.home, 'a-file'), '');
    const r = await setup(w, ['--bin', 'a-file/bin', '--no-plugin']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^vox setup: VOX_ERR_CLIENT_SETUP_CONFLICT: cannot put links in .*\/a-file\/bin: ENOTDIR: .*Choose a directory you can write with --bin DIR/,
    );
    assert.equal(r.stdout, '');
  });

  test("a link of vox's from a moved checkout is re-pointed without --force; another program's link is not", async () => {
    const w = world();
    mkdirSync(w.bin, { recursive: true });
    symlinkSync('/old/checkout/packages/vox-mcp/bin/vox.cjs', join(w.bin, 'vox'));
    let r = await setup(w, ['--no-plugin']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Re-linked .*\/vox -> .* \(was a link to \/old\/checkout\/packages\/vox-mcp\/bin\/vox\.cjs\)$/m,
    );
    assert.equal(readlinkSync(join(w.bin, 'vox')), VOX_BIN);

    const other = world();
    mkdirSync(other.bin, { recursive: true });
    symlinkSync('/usr/bin/true', join(other.bin, 'voxd'));
    r = await setup(other, ['--no-plugin']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /voxd is a link to \/usr\/bin\/true, not a link vox made/);
    assert.equal(readlinkSync(join(other.bin, 'voxd')), '/usr/bin/true');
  });

  test('without claude on PATH it prints the two commands for later', async () => {
    const w = world({ claude: false });
    // The layout this holds in: a claude beside node (npm i -g) must not be found.
    for (const d of w.env.PATH!.split(delimiter)) assert.equal(existsSync(join(d, 'claude')), false, `${d}/claude`);
    const r = await setup(w);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.includes(
        `claude is not on PATH. To add vox to Claude Code later: claude plugin marketplace add ${realpathSync(ROOT)} && claude plugin install vox@vox`,
      ),
      r.stdout,
    );
  });

  test('a failing claude command is reported with its last line; the links stay', async () => {
    const w = world({ fail: 'Error: marketplace source is not readable' });
    const r = await setup(w);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_SETUP_CLAUDE_FAILED: "claude plugin marketplace add .*" failed \(exit 1: Error: marketplace source is not readable\)\. The links are in place/,
    );
    assert.equal(readlinkSync(join(w.bin, 'vox')), VOX_BIN);
    assert.equal(claudeCalls(w).length, 1, 'install is not tried after add failed');
  });

  test('--dry-run changes nothing and runs no claude; --remove takes out its links and the plugin, and leaves what is not its own', async () => {
    const w = world();
    let r = await setup(w, ['--dry-run']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Would link .*\/vox -> /m);
    assert.match(r.stdout, /^Would run: claude plugin install vox@vox$/m);
    assert.equal(existsSync(w.bin), false);
    assert.deepEqual(claudeCalls(w), []);

    assert.equal((await setup(w)).code, 0);
    writeFileSync(join(w.bin, 'vox-notes'), 'x');
    r = await setup(w, ['--remove']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(join(w.bin, 'vox')), false);
    assert.equal(existsSync(join(w.bin, 'voxd')), false);
    assert.equal(existsSync(join(w.bin, 'vox-notes')), true);
    assert.deepEqual(claudeCalls(w).slice(2), [
      ['plugin', 'list', '--json'],
      ['plugin', 'marketplace', 'list', '--json'],
      ['plugin', 'uninstall', 'vox@vox'],
      ['plugin', 'marketplace', 'remove', 'vox'],
    ]);
    // Twice: nothing left to remove, in Claude Code's lists either (an uninstall would fail).
    r = await setup(w, ['--remove']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Claude Code: the plugin vox@vox and the marketplace "vox" are not installed\.$/m);
    assert.deepEqual(
      claudeCalls(w)
        .slice(6)
        .map((c) => c.join(' ')),
      ['plugin list --json', 'plugin marketplace list --json'],
    );
    // A file of the user's where the link was is left alone.
    writeFileSync(join(w.bin, 'vox'), 'mine');
    r = await setup(w, ['--remove', '--no-plugin']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Nothing to remove at .*\/vox \(a file, not vox's: left alone\)$/m);
    assert.equal(readFileSync(join(w.bin, 'vox'), 'utf8'), 'mine');
  });

  test("binds ctrl+x v to the mod's /vox-stop and ctrl+x t to its /vox-talk in ~/.claude/keybindings.json beside the user's keys; twice changes nothing; --remove restores them", async () => {
    const w = world();
    const keys = join(w.home, '.claude', 'keybindings.json');
    mkdirSync(join(w.home, '.claude'));
    const theirs = `${JSON.stringify({ bindings: [{ context: 'Chat', bindings: { 'ctrl+e': 'chat:externalEditor' } }] }, null, 2)}\n`;
    writeFileSync(keys, theirs);
    let r = await setup(w, ['--dry-run']);
    assert.match(r.stdout, /^Would bind ctrl\+x v to \/vox-stop in /m);
    assert.match(r.stdout, /^Would bind ctrl\+x t to \/vox-talk in /m);
    assert.equal(readFileSync(keys, 'utf8'), theirs);
    r = await setup(w);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^Bound ctrl\\+x v to /vox-stop in ${keys} \\(the file as it was: ${keys}\\.vox-backup\\)`, 'm'),
    );
    assert.match(r.stdout, /^Bound ctrl\+x t to \/vox-talk in .*: push-to-talk/m);
    assert.deepEqual(JSON.parse(readFileSync(keys, 'utf8')).bindings, [
      {
        context: 'Chat',
        bindings: {
          'ctrl+e': 'chat:externalEditor',
          'ctrl+x v': 'command:vox-stop',
          'ctrl+x t': 'command:vox-talk',
        },
      },
    ]);
    assert.equal(readFileSync(`${keys}.vox-backup`, 'utf8'), theirs);
    const bound = readFileSync(keys, 'utf8');
    r = await setup(w);
    assert.match(r.stdout, /^Already bound: ctrl\+x v to \/vox-stop in /m);
    assert.match(r.stdout, /^Already bound: ctrl\+x t to \/vox-talk in /m);
    assert.equal(readFileSync(keys, 'utf8'), bound);
    r = await setup(w, ['--remove']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Removed the \/vox-stop key binding from /m);
    assert.match(r.stdout, /^Removed the \/vox-talk key binding from /m);
    assert.deepEqual(JSON.parse(readFileSync(keys, 'utf8')), JSON.parse(theirs));
    // --no-key: the plugin, no key.
    r = await setup(w, ['--no-key']);
    assert.doesNotMatch(r.stdout, /vox-stop|vox-talk/);
    assert.deepEqual(JSON.parse(readFileSync(keys, 'utf8')), JSON.parse(theirs));
  });

  test('the vox on PATH speaks: vox say --wait from another directory puts speech into the file sink', async () => {
    const w = world({ onPath: true, claude: false });
    assert.equal((await setup(w, ['--no-plugin'])).code, 0);
    const d = await startDaemon({ realtime: false });
    try {
      const env = { ...d.env, HOME: w.home, PATH: w.env.PATH };
      const r = spawnSync('sh', ['-c', 'vox say --wait "Hello from the PATH" && vox status --json'], {
        env,
        cwd: w.home,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 0, r.stderr);
      // The status is of this test's voxd: the linked vox found it through VOX_HOME, as a user's would.
      assert.equal(JSON.parse(r.stdout.trim().split('\n').pop()!).pid, d.pid);
      const wavs = d.wavs();
      assert.equal(wavs.length, 1);
      const s = wavStats(wavs[0]!);
      assert.ok(s.durationMs > 300 && s.rms > 0.01, `speech in ${wavs[0]}: ${JSON.stringify(s)}`);
    } finally {
      await d.stop();
    }
  });

  test('pathLine: $HOME for a directory under it, and sh-quoted otherwise', () => {
    assert.equal(pathLine('/home/me/.local/bin', '/home/me'), 'export PATH="$HOME/.local/bin:$PATH"');
    assert.equal(pathLine('/opt/a "b"/$x', '/home/me'), 'export PATH="/opt/a \\"b\\"/\\$x:$PATH"');
    const line = pathLine('/opt/a "b"/$x', '/h');
    const sh = spawnSync('sh', ['-c', `${line}; printf %s "\${PATH%%:*}"`], {
      encoding: 'utf8',
      env: { PATH: '/bin' },
    });
    assert.equal(sh.stdout, '/opt/a "b"/$x');
  });
});

describe('vox setup with the real Claude Code', () => {
  test(
    'the plugin is installed: claude plugin list has vox@vox, read from the checkout, and claude mcp list shows its server connected',
    { skip: claudeSkip, timeout: 120_000 },
    async () => {
      const w = world({ claude: false, onPath: true });
      const realBin = join(w.home, 'claude-bin');
      mkdirSync(realBin);
      symlinkSync(CLAUDE!, join(realBin, 'claude'));
      // Offline: no telemetry, no updater, and an API address where nothing listens.
      const env: NodeJS.ProcessEnv = {
        ...w.env,
        PATH: `${realBin}${delimiter}${w.env.PATH}`,
        VOX_NO_AUTOSTART: '1',
        ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      };
      const r = await vox(['setup'], { env, cwd: w.home, timeoutMs: 110_000 });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /^Ran: claude plugin marketplace add /m);
      assert.match(
        r.stdout,
        /^Ran: claude plugin install vox@vox \(Successfully installed plugin: vox@vox \(scope: user\)\)$/m,
      );
      const claude = (args: string[]) =>
        spawnSync(CLAUDE!, args, { env, cwd: w.home, encoding: 'utf8', timeout: 60_000 });
      const list = claude(['plugin', 'list']);
      assert.equal(list.status, 0, list.stderr);
      assert.match(list.stdout, /vox@vox/);
      assert.ok(list.stdout.includes(`Read from: ${join(realpathSync(ROOT), 'plugin')}`), list.stdout);
      const mcp = claude(['mcp', 'list']);
      assert.equal(mcp.status, 0, mcp.stderr);
      assert.match(mcp.stdout, /plugin:vox:vox: .*vox\.cjs mcp - ✔ Connected/);
      // Twice is the same: Claude Code's own commands are idempotent.
      const again = await vox(['setup'], { env, cwd: w.home, timeoutMs: 110_000 });
      assert.equal(again.code, 0, again.stderr);
      // --remove takes the plugin out, and a second --remove finds nothing to take.
      for (const said of [/^Ran: claude plugin uninstall vox@vox /m, /are not installed\.$/m]) {
        const removed = await vox(['setup', '--remove'], { env, cwd: w.home, timeoutMs: 110_000 });
        assert.equal(removed.code, 0, `${removed.stdout}\n${removed.stderr}`);
        assert.match(removed.stdout, said);
      }
      assert.doesNotMatch(claude(['plugin', 'list']).stdout, /vox@vox/);
    },
  );
});
