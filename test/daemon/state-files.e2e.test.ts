// The files in VOX_HOME as someone else may leave them: a FIFO, a link to
// /dev/zero, a directory, a huge file, garbage, a port no socket can have.
// The real `vox say`, `vox hook` and voxd on each: every run ends (the ceilings
// are hang guards, never the point), says what it found, and voxd heals what
// it owns. Also: a token others could read, and the cloud keys of a client.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import {
  cleanEnv,
  FIXTURES,
  removeHomes,
  startDaemon,
  tempDir,
  vox,
  waitFor,
  writeSettings,
} from '../helpers/daemon.js';

const homes: string[] = [];
const servers: { close(): void }[] = [];
const sockets = new Set<Socket>();
after(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
  await removeHomes(homes);
});

function home(): string {
  const h = tempDir('vox-state-');
  homes.push(h);
  return h;
}

const hookPayload = readFileSync(join(FIXTURES, 'hooks/notification-idle.json'), 'utf8');
/** A hang guard: long past any deadline of the command, short of the test's. */
const GUARD_MS = 30_000;

type Spoil = (path: string) => void;
const spoilers: Record<string, Spoil> = {
  FIFO: (p) => execFileSync('mkfifo', [p]),
  'link to /dev/zero': (p) => symlinkSync('/dev/zero', p),
  directory: (p) => mkdirSync(p),
  // Sparse: 200 MB that costs no disk.
  '200 MB file': (p) => {
    writeFileSync(p, '');
    truncateSync(p, 200 * 1024 * 1024);
  },
};

/**
 * Made beside the file and renamed over it: a live voxd writes its state
 * files again as soon as they are gone, so a remove-then-make can find the
 * name taken. A directory cannot be renamed over a file: that one is made in place.
 */
function spoil(path: string, how: Spoil): void {
  if (how === spoilers.directory) {
    rmSync(path, { recursive: true, force: true });
    how(path);
    return;
  }
  const made = join(mkdtempSync(`${path}.spoil-`), basename(path));
  how(made);
  renameSync(made, path);
  rmSync(dirname(made), { recursive: true, force: true });
}

/** A VOX_HOME whose auto-started voxd writes WAVs under it with the embedded engine. */
function autostartHome(): { h: string; env: NodeJS.ProcessEnv } {
  const h = home();
  const env = cleanEnv(h, { VOXD_PORT: '0' });
  writeSettings(env, { audio: `file:${join(h, 'out')}?realtime=0`, engine: 'espeak' });
  return { h, env };
}

describe('voxd.json or the token spoiled before any voxd runs', () => {
  for (const file of ['voxd.json', 'token']) {
    for (const [name, how] of Object.entries(spoilers)) {
      test(`${file} is a ${name}: vox say and vox hook end, and the voxd they start heals it`, async () => {
        const { h, env } = autostartHome();
        // A directory token is not voxd's to delete: it refuses to start, saying what to remove.
        const refuses = file === 'token' && name === 'directory';
        spoil(join(h, file), how);
        const hook = await vox(['hook', 'Notification'], { env, input: hookPayload, timeoutMs: GUARD_MS });
        assert.equal(hook.code, 0, hook.stderr);
        const say = await vox(['say', 'hello there'], { env, timeoutMs: GUARD_MS });
        if (refuses) {
          assert.equal(say.code, 3, say.stderr);
          assert.match(say.stderr, /VOX_ERR_CLIENT_DAEMON_EXITED.*token.*is a directory.*remove it/s);
          return;
        }
        assert.equal(say.code, 0, say.stderr);
        assert.doesNotMatch(say.stderr, /uncaught|EISDIR|RangeError/);
        assert.equal(lstatSync(join(h, file)).isFile(), true, `${file} is a regular file again`);
        if (file === 'voxd.json') assert.equal(typeof JSON.parse(readFileSync(join(h, file), 'utf8')).port, 'number');
        else assert.match(readFileSync(join(h, file), 'utf8').trim(), /^[A-Za-z0-9_-]{43}$/);
        if (file === 'voxd.json' && (name === 'FIFO' || name === 'directory')) {
          assert.ok(
            readdirSync(h).some((f) => f.startsWith('voxd.json.bad-')),
            'moved aside, not deleted',
          );
        }
      });
    }
  }

  for (const port of [-5, 70000, 1.5]) {
    test(`voxd.json names a live pid with port ${port}: voxd starts, does not crash, and rewrites it`, async () => {
      const { h, env } = autostartHome();
      writeFileSync(
        join(h, 'voxd.json'),
        JSON.stringify({ pid: process.pid, host: '127.0.0.1', port, version: '0.1.0' }),
      );
      const say = await vox(['say', 'hello there'], { env, timeoutMs: GUARD_MS });
      assert.equal(say.code, 0, say.stderr);
      assert.doesNotMatch(say.stderr, /RangeError|uncaught/);
      const state = JSON.parse(readFileSync(join(h, 'voxd.json'), 'utf8'));
      assert.notEqual(state.pid, process.pid);
      assert.ok(Number.isInteger(state.port) && state.port > 0 && state.port < 65536);
    });
  }

  test('VOX_NO_AUTOSTART with a FIFO voxd.json: a clear error naming the file, at once', async () => {
    const { h, env } = autostartHome();
    spoil(join(h, 'voxd.json'), spoilers.FIFO!);
    const say = await vox(['say', 'hello there'], { env: { ...env, VOX_NO_AUTOSTART: '1' }, timeoutMs: GUARD_MS });
    assert.equal(say.code, 3, say.stderr);
    assert.match(say.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE.*voxd\.json is a FIFO/);
  });
});

describe('a live voxd whose voxd.json or token is spoiled', () => {
  const spoils: Record<string, (h: string, port: number) => void> = {
    'voxd.json of random bytes': (h) =>
      writeFileSync(join(h, 'voxd.json'), Buffer.from([0xff, 0x00, 0x13, 0x37, 0x7b, 0x22])),
    "voxd.json of another program's JSON": (h) =>
      writeFileSync(join(h, 'voxd.json'), JSON.stringify({ name: 'other', port: 'x' })),
    'voxd.json deleted': (h) => rmSync(join(h, 'voxd.json')),
    'voxd.json a FIFO': (h) => spoil(join(h, 'voxd.json'), spoilers.FIFO!),
    'token a FIFO': (h) => spoil(join(h, 'token'), spoilers.FIFO!),
    'token of 200 MB': (h) => spoil(join(h, 'token'), spoilers['200 MB file']!),
  };
  for (const [name, how] of Object.entries(spoils)) {
    test(`${name}: vox say and vox hook reach it, and it writes the file again`, async () => {
      const d = await startDaemon({ realtime: false, home: home() });
      try {
        how(d.home, d.port);
        // --wait: the hook's notification that follows must not find speech playing (it would be dropped).
        const say = await vox(['say', '--wait', 'hello there'], { env: d.env, timeoutMs: GUARD_MS });
        assert.equal(say.code, 0, say.stderr);
        assert.doesNotMatch(say.stderr, /Invalid character|vox daemon start|START_FAILED/);
        const hook = await vox(['hook', 'Notification'], { env: d.env, input: hookPayload, timeoutMs: GUARD_MS });
        assert.equal(hook.code, 0, hook.stderr);
        assert.doesNotMatch(hook.stderr, /START_FAILED|UNREACHABLE|STATE_FILE/);
        await d.idle();
        assert.equal(d.wavs().length, 2, 'the live voxd spoke both');
        await waitFor(
          () => {
            try {
              const state = JSON.parse(readFileSync(join(d.home, 'voxd.json'), 'utf8'));
              return state.pid === d.pid && readFileSync(join(d.home, 'token'), 'utf8').trim() === d.token
                ? true
                : undefined;
            } catch {
              return undefined;
            }
          },
          10_000,
          'voxd.json and the token written again',
        );
        assert.equal(statSync(join(d.home, 'token')).mode & 0o777, 0o600);
      } finally {
        await d.stop();
      }
    });
  }
});

describe('the token file and the environment of an auto-started voxd', () => {
  for (const mode of [0o644, 0o666]) {
    test(`a token of mode ${mode.toString(8)} is replaced, and the log says why`, async () => {
      const { h, env } = autostartHome();
      const old = 'A'.repeat(40) + 'b-_';
      writeFileSync(join(h, 'token'), `${old}\n`, { mode });
      execFileSync('chmod', [mode.toString(8), join(h, 'token')]);
      const say = await vox(['say', 'hello there'], { env, timeoutMs: GUARD_MS });
      assert.equal(say.code, 0, say.stderr);
      const now = readFileSync(join(h, 'token'), 'utf8').trim();
      assert.notEqual(now, old);
      assert.equal(statSync(join(h, 'token')).mode & 0o777, 0o600);
      assert.match(
        readFileSync(join(h, 'logs', 'voxd.log'), 'utf8'),
        new RegExp(`mode ${mode.toString(8)}\\), so others may know it; voxd replaced it`),
      );
    });
  }

  test("a client's cloud keys do not reach the voxd it starts", async () => {
    const { h, env } = autostartHome();
    const say = await vox(['say', 'hello there'], {
      env: { ...env, OPENAI_API_KEY: 'sk-client-secret', ELEVENLABS_API_KEY: 'el-client-secret' },
      timeoutMs: GUARD_MS,
    });
    assert.equal(say.code, 0, say.stderr);
    const { pid } = JSON.parse(readFileSync(join(h, 'voxd.json'), 'utf8'));
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(
      environ.some((kv) => kv.startsWith('VOX_HOME=')),
      'read the right process',
    );
    assert.equal(environ.filter((kv) => /^(OPENAI|ELEVENLABS)_API_KEY=/.test(kv)).length, 0, 'no client key in voxd');
  });
});

describe("voxd's settings file in hostile shapes", () => {
  const shapes: Record<string, [Spoil, RegExp]> = {
    FIFO: [spoilers.FIFO!, /is a FIFO \(named pipe\), not a file of settings; move it away/],
    'link to /dev/zero': [spoilers['link to /dev/zero']!, /is a character device/],
    directory: [spoilers.directory!, /is a directory/],
    '90 MB file': [
      (p) => writeFileSync(p, `# ${'x'.repeat(90 * 1024 * 1024)}\n`),
      /is 94371843 bytes, over the 65536-byte cap/,
    ],
    'a code-bearing tag': [(p) => writeFileSync(p, 'engine: !!js/function "x"\n'), /Unresolved tag.*remove the tag/],
    'an alias bomb': [
      (p) => {
        const levels = 'abcdefgh'.split('').map(
          (k, i) =>
            `${k}: &${k} [${
              i === 0
                ? Array(9).fill('"x"').join(',')
                : Array(9)
                    .fill(`*${'abcdefgh'[i - 1]}`)
                    .join(',')
            }]`,
        );
        writeFileSync(p, `${levels.join('\n')}\naudio: *h\n`);
      },
      /audio: an alias \(\*h\) is not allowed here/,
    ],
  };
  for (const [name, [how, message]] of Object.entries(shapes)) {
    test(`${name}: the voxd a client starts exits 2 naming the file and what is wrong`, async () => {
      const { env } = autostartHome();
      spoil(join(env.VOX_CONFIG_HOME!, 'voxd.yaml'), how);
      const say = await vox(['say', 'hello there'], { env, timeoutMs: GUARD_MS });
      assert.equal(say.code, 3, say.stderr);
      assert.match(say.stderr, /VOX_ERR_CLIENT_DAEMON_EXITED: voxd exited with code 2/);
      assert.match(say.stderr, message);
      assert.ok(say.stderr.length < 8192, `stderr is ${say.stderr.length} bytes`);
    });
  }

  test('vox daemon config set does not write over a FIFO in its place', async () => {
    const { env } = autostartHome();
    const file = join(env.VOX_CONFIG_HOME!, 'voxd.yaml');
    spoil(file, spoilers.FIFO!);
    const set = await vox(['daemon', 'config', 'set', 'engine', 'espeak'], { env, timeoutMs: GUARD_MS });
    assert.notEqual(set.code, 0, set.stdout);
    assert.match(set.stderr, /is a FIFO/);
    assert.equal(lstatSync(file).isFIFO(), true);
  });
});

describe('the V8 code cache of the hot bundles', () => {
  // Autostart off: the run reaches no voxd and exits 3 at once, but loads (and writes) the cache.
  const run = (env: NodeJS.ProcessEnv) =>
    vox(['say', 'hello there'], { env: { ...env, VOX_NO_AUTOSTART: '1' }, timeoutMs: GUARD_MS });
  const cacheEnv = () => {
    const h = home();
    return cleanEnv(h, { XDG_CACHE_HOME: join(h, 'xdg') });
  };
  async function cacheFile(env: NodeJS.ProcessEnv): Promise<string> {
    const r = await run(env);
    assert.equal(r.code, 3, r.stderr);
    const dir = join(env.XDG_CACHE_HOME!, 'vox', 'code-cache');
    return join(
      dir,
      readdirSync(dir).find((f) => f.startsWith('vox-say.cjs'))!,
    );
  }

  test('bytes flipped past an intact header: the run works, and the cache is replaced', async () => {
    const env = cacheEnv();
    const file = await cacheFile(env);
    const bytes = readFileSync(file);
    const nl = bytes.indexOf(10);
    for (let i = nl + 1000; i < Math.min(bytes.length, nl + 1400); i++) bytes[i]! ^= 0xff;
    writeFileSync(file, bytes);
    const r = await run(env);
    assert.equal(r.code, 3, `exit ${r.code}: ${r.stderr}`);
    assert.match(r.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
    assert.notDeepEqual(readFileSync(file), bytes, 'the damaged cache did not stay');
    assert.equal((await run(env)).code, 3, 'and the next run uses the new one');
  });

  test('a FIFO in place of the cache file: the run does not block, and a regular file replaces it', async () => {
    const env = cacheEnv();
    const file = await cacheFile(env);
    spoil(file, spoilers.FIFO!);
    const r = await run(env);
    assert.equal(r.code, 3, `exit ${r.code}: ${r.stderr}`);
    assert.equal(lstatSync(file).isFile(), true);
  });

  test('a symlinked cache directory is not followed, nor written through', async () => {
    const env = cacheEnv();
    const name = basename(await cacheFile(cacheEnv()));
    const planted = join(env.XDG_CACHE_HOME!, 'planted');
    mkdirSync(planted, { recursive: true });
    execFileSync('mkfifo', [join(planted, name)]);
    mkdirSync(join(env.XDG_CACHE_HOME!, 'vox'), { recursive: true });
    symlinkSync(planted, join(env.XDG_CACHE_HOME!, 'vox', 'code-cache'));
    const r = await run(env);
    assert.equal(r.code, 3, `exit ${r.code}: ${r.stderr}`);
    assert.deepEqual(readdirSync(planted), [name], 'nothing written into the link target');
    assert.equal(lstatSync(join(planted, name)).isFIFO(), true);
  });
});

describe('messages say what happened', () => {
  async function listen(server: Server | ReturnType<typeof createServer>): Promise<number> {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return (server.address() as { port: number }).port;
  }

  test('a port held by a program that never answers, autostart off: not "start it with vox daemon start"', async () => {
    const port = await listen(
      createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => {});
      }),
    );
    const say = await vox(['say', '--timeout', '2', 'hello there'], {
      env: cleanEnv(home(), { VOXD_PORT: String(port), VOX_NO_AUTOSTART: '1' }),
      timeoutMs: GUARD_MS,
    });
    assert.equal(say.code, 3, say.stderr);
    assert.match(say.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE.*did not answer.*another program holding the port/);
    assert.doesNotMatch(say.stderr, /vox daemon start/);
  });

  // The real voxd writes a spoiled token again when it sees the change, else within 2 s (access/keeper.ts);
  // under load it can be late. A stand-in that answers 401 until the token is whole, whole again after 1.2 s.
  test('a spoiled token that the running voxd writes again late: the call waits for it, then goes through; one that stays fails, naming the file', async () => {
    const good = 'a'.repeat(43);
    const seen: string[] = [];
    const port = await listen(
      createHttpServer((req, res) => {
        req.resume();
        const ok = req.headers.authorization === `Bearer ${good}`;
        seen.push(`${req.method} ${req.url} ${ok ? 'authorized' : 'refused'}`);
        res.writeHead(ok ? 202 : 401, { 'content-type': 'application/json', 'x-voxd-version': '0.1.0' });
        res.end(
          JSON.stringify(
            ok
              ? { id: 'late0001', status: 'queued', priority: 'message' }
              : { code: 'VOX_ERR_UNAUTHORIZED', message: 'a bearer token is required' },
          ),
        );
      }),
    );
    for (const healed of [true, false]) {
      const h = home();
      writeFileSync(
        join(h, 'voxd.json'),
        JSON.stringify({ pid: process.pid, host: '127.0.0.1', port, version: '0.1.0' }),
      );
      spoil(join(h, 'token'), spoilers['200 MB file']!);
      const heal = healed
        ? setTimeout(() => spoil(join(h, 'token'), (p) => writeFileSync(p, `${good}\n`, { mode: 0o600 })), 1200)
        : undefined;
      seen.length = 0;
      const say = await vox(['say', 'hello there'], {
        env: cleanEnv(h, { VOX_NO_AUTOSTART: '1' }),
        timeoutMs: GUARD_MS,
      });
      clearTimeout(heal);
      if (healed) {
        assert.equal(say.code, 0, say.stderr);
        assert.deepEqual(seen, ['POST /v1/speak refused', 'POST /v1/speak authorized']);
      } else {
        assert.equal(say.code, 3, say.stderr);
        assert.match(
          say.stderr,
          /VOX_ERR_CLIENT_STATE_FILE: .*VOX_HOME\/token is 209715200 bytes.*did not write it again within 2\.5 s/,
        );
        assert.deepEqual(seen, ['POST /v1/speak refused']);
      }
    }
  });

  test('voxd at its connection cap (503 TOO_MANY_CONNECTIONS): "too many connections"', async () => {
    const port = await listen(
      createHttpServer((req, res) => {
        req.resume();
        res
          .writeHead(503, { 'content-type': 'application/json', 'x-voxd-version': '0.1.0' })
          .end(JSON.stringify({ code: 'VOX_ERR_TOO_MANY_CONNECTIONS', message: 'too many connections' }));
      }),
    );
    const say = await vox(['say', 'hello there'], {
      env: cleanEnv(home(), { VOXD_PORT: String(port) }),
      timeoutMs: GUARD_MS,
    });
    assert.equal(say.code, 3, say.stderr);
    assert.match(say.stderr, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE.*too many connections/);
    assert.doesNotMatch(say.stderr, /vox daemon start/);
  });

  test('nothing listening, autostart off: start it with "vox daemon start"', async () => {
    const port = await listen(createServer());
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 100));
    const say = await vox(['say', 'hello there'], {
      env: cleanEnv(home(), { VOXD_PORT: String(port), VOX_NO_AUTOSTART: '1' }),
      timeoutMs: GUARD_MS,
    });
    assert.equal(say.code, 3, say.stderr);
    assert.match(say.stderr, /connection refused\. Nothing listens there: start it with "vox daemon start"/);
  });
});
