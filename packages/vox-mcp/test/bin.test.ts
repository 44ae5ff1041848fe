/**
 * The `vox` bin (bin/vox.cjs) and the bundles it picks (scripts/bundle.mjs):
 * `say` and `unmute` load dist/vox-say.cjs, `hook` dist/vox-hook.cjs, every
 * other command dist/vox-cli.cjs, and all behave exactly as the unbundled CLI
 * (dist/cli.js, tsc's output of src/cli.ts). The hot bundles are compiled with
 * a V8 code cache on every Node line, the whole CLI with Node's compile cache
 * where Node has it, both in a per-user cache directory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../../../test/helpers/daemon.js';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(pkg, 'bin', 'vox.cjs');
const DIST_ENTRY = join(pkg, 'dist', 'vox.cjs');
const SAY = join(pkg, 'dist', 'vox-say.cjs');
const HOOK = join(pkg, 'dist', 'vox-hook.cjs');
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
  for (const [k, v] of Object.entries(process.env))
    if (!/^(VOX|VOXD|CLAUDE)_|^NODE_(COMPILE_CACHE|DISABLE_COMPILE_CACHE|OPTIONS)$/.test(k)) e[k] = v;
  return { ...e, VOX_HOME: join(dir(), 'home'), VOX_NO_AUTOSTART: '1', XDG_CACHE_HOME: dir(), ...extra };
}

function run(
  entry: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; preload?: boolean } = {},
) {
  const r = spawnSync(process.execPath, [...(options.preload ? ['-r', PRELOAD] : []), entry, ...args], {
    env: options.env ?? env(),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 20_000,
  });
  const loaded = /^LOADED (.*)$/m.exec(r.stderr);
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr.replace(/^LOADED .*\n/m, ''),
    loaded: loaded ? (JSON.parse(loaded[1]!) as string[]) : [],
  };
}

const built =
  existsSync(SAY) && existsSync(HOOK) && existsSync(FULL) && existsSync(CLI_JS)
    ? false
    : 'the bundles are not built; run "npm run build"';

describe('bin/vox.cjs', { skip: built }, () => {
  test('say and unmute load only their bundle, hook and mcp only their own; other commands only the whole CLI', () => {
    for (const args of [
      ['say', '--help'],
      ['unmute', '--help'],
      ['say', 'hello'],
    ]) {
      const r = run(BIN, args, { preload: true });
      assert.deepEqual(r.loaded, ['bin/vox.cjs', 'dist/vox-say.cjs'], `vox ${args.join(' ')}`);
    }
    for (const args of [
      ['hook', '--help'],
      ['hook', 'Stop'],
    ]) {
      const r = run(BIN, args, { preload: true });
      assert.deepEqual(r.loaded, ['bin/vox.cjs', 'dist/vox-hook.cjs'], `vox ${args.join(' ')}`);
    }
    // vox mcp runs for a whole session: its own bundle, not the whole CLI's source, stays in its heap.
    const mcp = run(BIN, ['mcp', '--help'], { preload: true });
    assert.equal(mcp.code, 0, mcp.stderr);
    assert.match(mcp.stdout, /^Usage: vox mcp/);
    assert.deepEqual(mcp.loaded, ['bin/vox.cjs', 'dist/vox-mcp.cjs'], 'vox mcp --help');
    for (const args of [['--version'], [], ['status', '--help'], ['sya']]) {
      const r = run(BIN, args, { preload: true });
      assert.deepEqual(r.loaded, ['bin/vox.cjs', 'dist/vox-cli.cjs'], `vox ${args.join(' ')}`);
    }
  });

  test('dist/vox.cjs, which hook settings name, goes through the same choice', () => {
    const r = run(DIST_ENTRY, ['hook', '--help'], { preload: true });
    assert.equal(r.code, 0);
    assert.deepEqual(r.loaded, ['dist/vox.cjs', 'bin/vox.cjs', 'dist/vox-hook.cjs']);
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
    assert.match(
      run(BIN, ['hook', 'Notification', '--dry-run'], { env: e, input: payload }).stdout,
      /needs your permission to use Bash/,
    );
  });

  test('a hot run keeps its compiled code under XDG_CACHE_HOME/vox/code-cache, and the next run takes it', async (t) => {
    const d = await startDaemon();
    t.after(() => d.stop());
    const cacheHome = dir();
    const e = env({ XDG_CACHE_HOME: cacheHome, VOX_HOME: d.home, VOX_SESSION_ID: 'bin-test' });
    const cache = join(cacheHome, 'vox', 'code-cache');
    const header = (file: string) => {
      const b = readFileSync(file);
      return b.subarray(0, b.indexOf(10)).toString('latin1');
    };
    // A run that sends voxd nothing compiles only part of the code: its cache says "partial".
    assert.equal(run(BIN, ['say', '--help'], { env: e }).code, 0);
    const files = readdirSync(cache);
    assert.equal(files.length, 1, `one file per bundle and Node version in ${cache}`);
    assert.match(
      files[0]!,
      new RegExp(`^vox-say\\.cjs-${process.version.replace(/\./g, '\\.')}-${process.arch}-[0-9a-f]{8}\\.bin$`),
    );
    const file = join(cache, files[0]!);
    assert.match(header(file), /^vox-code-cache 3 \d+ .* partial [0-9a-f]{16}$/);
    assert.equal(statSync(cache).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // The first run that reaches voxd replaces it with everything it compiled.
    const partialSize = statSync(file).size;
    const first = run(BIN, ['say', 'hello'], { env: e });
    assert.equal(first.code, 0, first.stderr);
    assert.match(header(file), /^vox-code-cache 3 \d+ .* full [0-9a-f]{16}$/);
    assert.ok(statSync(file).size > partialSize, 'the full cache holds more than the partial one');
    const written = statSync(file).mtimeMs;
    // Taken as it is afterwards, by any run: not rewritten, and the run answers as the first did.
    const second = run(BIN, ['say', 'hello'], { env: e });
    assert.deepEqual(second, first);
    assert.equal(run(BIN, ['say', '--help'], { env: e }).code, 0);
    assert.equal(statSync(file).mtimeMs, written);
    assert.deepEqual(readdirSync(cache), files);
    // The hook's bundle has a file of its own.
    assert.equal(run(BIN, ['hook', 'Stop'], { env: e, input: '{}' }).code, 0);
    assert.equal(readdirSync(cache).length, 2);
    const { counters } = (await d.api('GET', '/v1/status')).body;
    assert.ok(counters.accepted + counters.deduped >= 2, 'the runs reached voxd');
  });

  test('a cache file that does not match the bundle, or that others could have written, is not used but replaced', () => {
    const cacheHome = dir();
    const e = env({ XDG_CACHE_HOME: cacheHome });
    assert.equal(run(BIN, ['say', 'hello'], { env: e }).code, 3);
    const cache = join(cacheHome, 'vox', 'code-cache');
    const file = join(cache, readdirSync(cache)[0]!);
    const good = readFileSync(file);
    const header = good.subarray(0, good.indexOf(10)).toString('latin1');
    assert.match(header, /^vox-code-cache 3 \d+ .* partial [0-9a-f]{16}$/);
    // The header without its digest: the bundle and the kind of run.
    const identity = header.replace(/ [0-9a-f]{16}$/, '');
    // Rewritten: this bundle's header and V8 data of the size a run writes (the bytes, and so the digest, vary from run to run).
    const rewritten = () => {
      const now = readFileSync(file);
      const nowHeader = now.subarray(0, now.indexOf(10)).toString('latin1');
      assert.equal(nowHeader.replace(/ [0-9a-f]{16}$/, ''), identity);
      assert.ok(now.length > good.length / 2, `${now.length} bytes of V8 data`);
    };
    // Garbage after a matching header: its digest does not match, vox deletes it, runs as usual and writes a good one.
    writeFileSync(file, Buffer.concat([Buffer.from(`${header}\n`), Buffer.from('not V8 code')]), { mode: 0o600 });
    let r = run(BIN, ['say', 'hello'], { env: e });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
    rewritten();
    // A header naming another build of the bundle: replaced.
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`vox-code-cache 3 1 2 3 4 5 partial ${header.slice(-16)}\n`),
        good.subarray(good.indexOf(10) + 1),
      ]),
      { mode: 0o600 },
    );
    assert.equal(run(BIN, ['say', 'hello'], { env: e }).code, 3);
    rewritten();
    // Writable by others: not trusted, and replaced by one that is not.
    chmodSync(file, 0o666);
    assert.equal(run(BIN, ['say', 'hello'], { env: e }).code, 3);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    rewritten();
  });

  test('on Node 22.1 and later the whole CLI keeps a compile cache under XDG_CACHE_HOME/vox; on older lines nothing is written', () => {
    const cacheHome = dir();
    const r = run(BIN, ['status', '--help'], { env: env({ XDG_CACHE_HOME: cacheHome }) });
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

  test('NODE_DISABLE_COMPILE_CACHE turns both caches off', () => {
    const cacheHome = dir();
    const e = env({ XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(run(BIN, ['say', 'hello'], { env: e }).code, 3);
    assert.equal(run(BIN, ['hook', 'Stop'], { env: e, input: '{}' }).code, 0);
    assert.equal(run(BIN, ['status', '--help'], { env: e }).code, 0);
    assert.equal(existsSync(join(cacheHome, 'vox')), false);
  });

  test('an unwritable cache directory does not stop vox', () => {
    const file = join(dir(), 'a-file');
    writeFileSync(file, '');
    for (const args of [
      ['say', '--help'],
      ['say', 'hello'],
      ['status', '--help'],
    ]) {
      const r = run(BIN, args, { env: env({ XDG_CACHE_HOME: file }) });
      assert.equal(r.code, args[1] === 'hello' ? 3 : 0, `vox ${args.join(' ')}`);
      if (args[1] === '--help') assert.match(r.stdout, /^Usage: vox /);
      if (args[1] === 'hello') assert.match(r.stderr, /^vox say: VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
      else assert.equal(r.stderr, '');
    }
    const r = run(BIN, ['hook', 'Stop'], { env: env({ XDG_CACHE_HOME: file }), input: '{}' });
    assert.equal(r.code, 0);
  });

  test('a relative XDG_CACHE_HOME is not used: nothing is written under the working directory', () => {
    const cwd = dir();
    const r = spawnSync(process.execPath, [BIN, 'say', 'hello'], {
      cwd,
      env: env({ XDG_CACHE_HOME: 'rel-cache' }),
      encoding: 'utf8',
    });
    assert.equal(r.status, 3);
    assert.deepEqual(readdirSync(cwd), []);
  });

  test('before the build, the bin says so', () => {
    const root = dir();
    mkdirSync(join(root, 'bin'));
    copyFileSync(BIN, join(root, 'bin', 'vox.cjs'));
    for (const args of [['say', 'hi'], ['hook', 'Stop'], ['status']]) {
      const r = run(join(root, 'bin', 'vox.cjs'), args);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'vox: not built yet; run "npm run build" in the vox repository\n');
    }
  });
});
