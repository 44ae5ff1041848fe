/**
 * The `vox` bin (bin/vox.cjs) and the bundles it picks (scripts/bundle.mjs):
 * `say`, `unmute` and `hook` load the small dist/vox-hot.cjs, every other
 * command dist/vox-cli.cjs, and both behave exactly as the unbundled CLI
 * (dist/cli.js, tsc's output of src/cli.ts). Node's compile cache is used
 * where Node has it, in a per-user cache directory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(pkg, 'bin', 'vox.cjs');
const DIST_ENTRY = join(pkg, 'dist', 'vox.cjs');
const HOT = join(pkg, 'dist', 'vox-hot.cjs');
const FULL = join(pkg, 'dist', 'vox-cli.cjs');
const CLI_JS = join(pkg, 'dist', 'cli.js');
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/hooks/notification-permission.json', import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), 'vox-bin-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function dir(): string {
  const d = join(tmp, String(n++));
  mkdirSync(d, { recursive: true });
  return d;
}

/** Prints, at exit, which of vox's bundles the process loaded. */
const PRELOAD = join(tmp, 'loaded.cjs');
writeFileSync(
  PRELOAD,
  "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(Object.keys(require.cache).filter((f) => /vox[^/]*\\.cjs$/.test(f)).map((f) => f.split('/').slice(-2).join('/'))) + '\\n'));\n",
);

/** The caller's environment without vox settings or Node's compile-cache switches, bound to a fresh VOX_HOME and cache directory. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VOX|VOXD|CLAUDE)_|^NODE_(COMPILE_CACHE|DISABLE_COMPILE_CACHE|OPTIONS)$/.test(k)) e[k] = v;
  return { ...e, VOX_HOME: join(dir(), 'home'), VOX_NO_AUTOSTART: '1', XDG_CACHE_HOME: dir(), ...extra };
}

function run(entry: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; preload?: boolean } = {}) {
  const r = spawnSync(process.execPath, [...(options.preload ? ['-r', PRELOAD] : []), entry, ...args], {
    env: options.env ?? env(),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 20_000,
  });
  const loaded = /^LOADED (.*)$/m.exec(r.stderr);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^LOADED .*\n/m, ''), loaded: loaded ? (JSON.parse(loaded[1]!) as string[]) : [] };
}

const built = existsSync(HOT) && existsSync(FULL) && existsSync(CLI_JS) ? false : 'the bundles are not built; run "npm run build"';

describe('bin/vox.cjs', { skip: built }, () => {
  test('say, unmute and hook load only the small bundle; other commands only the whole CLI', () => {
    for (const args of [['say', '--help'], ['unmute', '--help'], ['hook', '--help'], ['say', 'hello']]) {
      const r = run(BIN, args, { preload: true });
      assert.deepEqual(r.loaded, ['bin/vox.cjs', 'dist/vox-hot.cjs'], `vox ${args.join(' ')}`);
    }
    for (const args of [['--version'], [], ['status', '--help'], ['mcp', '--help'], ['sya']]) {
      const r = run(BIN, args, { preload: true });
      assert.deepEqual(r.loaded, ['bin/vox.cjs', 'dist/vox-cli.cjs'], `vox ${args.join(' ')}`);
    }
  });

  test('dist/vox.cjs, which hook settings name, goes through the same choice', () => {
    const r = run(DIST_ENTRY, ['hook', '--help'], { preload: true });
    assert.equal(r.code, 0);
    assert.deepEqual(r.loaded, ['dist/vox.cjs', 'bin/vox.cjs', 'dist/vox-hot.cjs']);
  });

  test('the hot commands answer exactly as the unbundled CLI: help, usage errors, exit codes, requests', () => {
    const payload = readFileSync(FIXTURE, 'utf8');
    const cases: { args: string[]; input?: string }[] = [
      { args: ['say', '--help'] },
      { args: ['unmute', '-h'] },
      { args: ['hook', '--help'] },
      { args: ['say', '--bogus', 'x'] },
      { args: ['unmute', '--rate', '9999', 'x'] },
      { args: ['say', '--priority', 'urgent', 'x'] },
      { args: ['say'] },
      { args: ['say', 'hello'] },
      { args: ['say', '--quiet', 'hello'] },
      { args: ['hook', 'Notification', '--dry-run'], input: payload },
      { args: ['hook', 'Notification', '--bogus'], input: payload },
      { args: ['hook', 'Notification'], input: 'not json' },
      { args: ['hook', 'Notification'], input: payload },
    ];
    for (const c of cases) {
      // One environment for both, so the session label and VOX_HOME match.
      const e = env({ VOX_SESSION_ID: 'bin-test' });
      const bundled = run(BIN, c.args, { env: e, ...(c.input === undefined ? {} : { input: c.input }) });
      const unbundled = run(CLI_JS, c.args, { env: e, ...(c.input === undefined ? {} : { input: c.input }) });
      assert.deepEqual(bundled, unbundled, `vox ${c.args.join(' ')}`);
    }
    // The cases reach the places they are meant to.
    const e = env();
    assert.equal(run(BIN, ['say', '--bogus', 'x'], { env: e }).code, 2);
    assert.equal(run(BIN, ['say', 'hello'], { env: e }).code, 3);
    assert.match(run(BIN, ['hook', 'Notification', '--dry-run'], { env: e, input: payload }).stdout, /needs your permission to use Bash/);
  });

  test('on Node 22.1 and later the compile cache is kept under XDG_CACHE_HOME/vox; on older lines nothing is written', () => {
    const cacheHome = dir();
    const r = run(BIN, ['say', '--help'], { env: env({ XDG_CACHE_HOME: cacheHome }) });
    assert.equal(r.code, 0);
    const cache = join(cacheHome, 'vox', 'compile-cache');
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 1)) {
      const versions = readdirSync(cache);
      assert.equal(versions.length, 1, `one directory per Node version in ${cache}`);
      assert.ok(readdirSync(join(cache, versions[0]!)).length > 0, 'compiled code was written');
    } else {
      assert.equal(existsSync(cache), false);
    }
  });

  test('NODE_DISABLE_COMPILE_CACHE turns the cache off', () => {
    const cacheHome = dir();
    assert.equal(run(BIN, ['say', '--help'], { env: env({ XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: '1' }) }).code, 0);
    assert.equal(existsSync(join(cacheHome, 'vox')), false);
  });

  test('an unwritable cache directory does not stop vox', () => {
    const file = join(dir(), 'a-file');
    writeFileSync(file, '');
    const r = run(BIN, ['say', '--help'], { env: env({ XDG_CACHE_HOME: file }) });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: vox say/);
    assert.equal(r.stderr, '');
  });

  test('before the build, the bin says so', () => {
    const root = dir();
    mkdirSync(join(root, 'bin'));
    copyFileSync(BIN, join(root, 'bin', 'vox.cjs'));
    for (const args of [['say', 'hi'], ['status']]) {
      const r = run(join(root, 'bin', 'vox.cjs'), args);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'vox: not built yet; run "npm run build" in the vox repository\n');
    }
  });
});
