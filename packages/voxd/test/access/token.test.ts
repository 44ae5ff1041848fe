/**
 * The token file in every shape it can be found in: voxd uses it only as it
 * writes it, replaces what it safely can (with a warning) and refuses to
 * start over what it cannot. The last suite starts the real voxd on each.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ensureToken, TOKEN_PATTERN, TokenFileError } from '../../src/access/token.js';

const GOOD = 'A'.repeat(20) + 'b'.repeat(20) + '-_9';

function home(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'vox-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function run(path: string): { token: string; warnings: string[] } {
  const warnings: string[] = [];
  const token = ensureToken(path, (m) => warnings.push(m));
  return { token, warnings };
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('ensureToken', () => {
  it('creates a 0600 token of the expected shape, and keeps it', (t) => {
    const path = join(home(t), 'token');
    const first = run(path);
    assert.match(first.token, TOKEN_PATTERN);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(first.warnings, []);
    assert.equal(run(path).token, first.token);
  });

  for (const mode of [0o644, 0o666, 0o640]) {
    it(`replaces a token others could read (mode ${mode.toString(8)}), saying why`, (t) => {
      const path = join(home(t), 'token');
      writeFileSync(path, `${GOOD}\n`, { mode });
      chmodSync(path, mode);
      const r = run(path);
      assert.match(r.token, TOKEN_PATTERN);
      assert.notEqual(r.token, GOOD, 'a token others could read is not kept');
      assert.equal(readFileSync(path, 'utf8').trim(), r.token);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.match(
        r.warnings.join('\n'),
        new RegExp(
          `readable or writable by (everyone|its group) \\(mode ${mode.toString(8)}\\), so others may know it; voxd replaced it with a new token`,
        ),
      );
    });
  }

  it('fixes a mode that only its owner has (400), keeping the token, with a warning', (t) => {
    const path = join(home(t), 'token');
    writeFileSync(path, `${GOOD}\n`, { mode: 0o400 });
    chmodSync(path, 0o400);
    const r = run(path);
    assert.equal(r.token, GOOD);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(r.warnings.join('\n'), /mode 400; voxd set it to 600/);
  });

  for (const [name, content] of [
    ['empty', ''],
    ['short', 'abc\n'],
    ['garbage', 'not a token at all, with spaces\n'],
    ['too long', 'x'.repeat(10_000)],
  ] as const) {
    it(`replaces a token file that is ${name}, with a warning`, (t) => {
      const path = join(home(t), 'token');
      writeFileSync(path, content, { mode: 0o600 });
      const r = run(path);
      assert.match(r.token, TOKEN_PATTERN);
      assert.equal(readFileSync(path, 'utf8').trim(), r.token);
      assert.match(r.warnings.join('\n'), /replaced it with a new token/);
    });
  }

  it('never follows a symbolic link, and leaves its target alone', (t) => {
    const dir = home(t);
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    const target = join(outside, 'secret');
    writeFileSync(target, `${GOOD}\n`, { mode: 0o644 });
    chmodSync(target, 0o644);
    const path = join(dir, 'token');
    symlinkSync(target, path);
    const r = run(path);
    assert.notEqual(r.token, GOOD, 'the target is not used as the token');
    assert.equal(lstatSync(path).isSymbolicLink(), false);
    assert.equal(statSync(target).mode & 0o777, 0o644, 'the target was not chmodded');
    assert.equal(readFileSync(target, 'utf8'), `${GOOD}\n`);
    assert.match(r.warnings.join('\n'), /symbolic link; voxd does not follow it/);
  });

  it('replaces a dangling link', (t) => {
    const dir = home(t);
    const path = join(dir, 'token');
    symlinkSync(join(dir, 'nowhere'), path);
    assert.match(run(path).token, TOKEN_PATTERN);
    assert.equal(lstatSync(path).isFile(), true);
  });

  it('replaces a hard-linked token, leaving the other name as it was', (t) => {
    const dir = home(t);
    const other = join(dir, 'other');
    writeFileSync(other, `${GOOD}\n`, { mode: 0o600 });
    const path = join(dir, 'token');
    linkSync(other, path);
    const r = run(path);
    assert.notEqual(r.token, GOOD);
    assert.equal(readFileSync(other, 'utf8'), `${GOOD}\n`);
    assert.match(r.warnings.join('\n'), /hard link/);
  });

  it(
    'replaces a named pipe without opening it',
    { skip: process.platform === 'win32' ? 'no mkfifo on Windows' : false },
    (t) => {
      const path = join(home(t), 'token');
      const made = spawnSync('mkfifo', [path]);
      if (made.status !== 0) return t.skip('mkfifo is not available');
      assert.match(run(path).token, TOKEN_PATTERN);
    },
  );

  it('refuses a directory, saying what to remove', (t) => {
    const path = join(home(t), 'token');
    mkdirSync(path);
    assert.throws(
      () => run(path),
      (err: Error) => err instanceof TokenFileError && /is a directory.*remove it/.test(err.message),
    );
    assert.equal(statSync(path).isDirectory(), true, 'nothing was deleted');
  });

  it(
    "refuses a token file of another user's",
    { skip: isRoot ? false : 'needs root to give a file to another user' },
    (t) => {
      const path = join(home(t), 'token');
      writeFileSync(path, `${GOOD}\n`, { mode: 0o600 });
      chownSync(path, 65534, 65534);
      assert.throws(
        () => run(path),
        (err: Error) => err instanceof TokenFileError && /belongs to another user \(uid 65534\)/.test(err.message),
      );
      assert.equal(readFileSync(path, 'utf8'), `${GOOD}\n`);
    },
  );
});

const VOXD = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Starts the real voxd on `dir` and returns how it ended up: listening (then stopped) or exited. */
function startVoxd(dir: string): Promise<{ listening: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(VOX|VOXD|CLAUDE|OPENAI|ELEVENLABS)_/.test(k)) env[k] = v;
    const child = spawn(process.execPath, [VOXD], {
      env: {
        ...env,
        VOX_HOME: dir,
        VOXD_PORT: '0',
        VOXD_AUDIO: 'null',
        VOXD_ENGINE: 'espeak',
        VOX_CONFIG_HOME: join(dir, 'config'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let listening = false;
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (!listening && /listening on/.test(stderr)) {
        listening = true;
        child.kill('SIGTERM');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ listening, code, stderr });
    });
  });
}

describe('the real voxd with a bad token file', () => {
  it('starts over a symlinked token with a new one and says so in its log', async (t) => {
    const dir = home(t);
    const target = join(dir, 'elsewhere');
    writeFileSync(target, `${GOOD}\n`, { mode: 0o644 });
    chmodSync(target, 0o644);
    symlinkSync(target, join(dir, 'token'));
    const r = await startVoxd(dir);
    assert.equal(r.listening, true, r.stderr);
    assert.match(readFileSync(join(dir, 'token'), 'utf8').trim(), TOKEN_PATTERN);
    assert.notEqual(readFileSync(join(dir, 'token'), 'utf8').trim(), GOOD);
    assert.equal(statSync(target).mode & 0o777, 0o644);
    assert.match(readFileSync(join(dir, 'logs', 'voxd.log'), 'utf8'), /symbolic link; voxd does not follow it/);
  });

  it('refuses to start over a token directory: non-zero exit, the reason on stderr', async (t) => {
    const dir = home(t);
    mkdirSync(join(dir, 'token'));
    const r = await startVoxd(dir);
    assert.equal(r.listening, false);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /voxd: cannot use the token file: .*token is a directory, not a token file; remove it/);
  });

  it(
    'warns when VOX_HOME is writable by others, and still starts',
    { skip: process.platform === 'win32' ? 'no POSIX modes' : false },
    async (t) => {
      const dir = home(t);
      chmodSync(dir, 0o777);
      const r = await startVoxd(dir);
      assert.equal(r.listening, true, r.stderr);
      assert.match(r.stderr, /voxd: warning: VOX_HOME=.* is writable by everyone \(mode 777\); run "chmod 700 /);
    },
  );
});
