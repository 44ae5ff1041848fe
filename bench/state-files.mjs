// `vox hook` and `vox say` on a hostile VOX_HOME (docs/benchmarks.md, "State
// files"): each case spoils one file (voxd.json, the token, the code cache,
// voxd.yaml) as a FIFO, a link to /dev/zero, a directory, a huge file or
// garbage, with no voxd running or with a live one, and runs each command
// once. Figures per run: wall time, its ratio to `node -e 0` (median of the
// same run), the peak RSS (VmHWM, sampled every 10 ms), the exit code and the
// first line of stderr. The budget: `vox hook` within its 2.5 s deadline,
// every run under 100 MB. A run is killed at 20 s or 1.5 GB, and reported so.
// BENCH_VOX names another build's bin/vox.cjs (its voxd is the one beside it).
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { cleanEnv, median, report, ROOT, round, timeRun, VOX } from './lib.mjs';

const VOXD = join(dirname(VOX), '../../voxd/dist/main.js');
const KILL_MS = 20_000;
const KILL_RSS_KB = 1536 * 1024;
const payload = readFileSync(join(ROOT, 'test/fixtures/hooks/notification-idle.json'), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'vox-bench-state-'));

const fifo = (p) => execFileSync('mkfifo', [p]);
const zero = (p) => symlinkSync('/dev/zero', p);
const big = (p) => (writeFileSync(p, ''), truncateSync(p, 200 * 1024 * 1024));

/** Peak RSS in KB of `pid` so far, or undefined once it is gone. */
function hwm(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

function run(args, env, input) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [VOX, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    let killed;
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d.slice(0, 4096)));
    const poll = setInterval(() => {
      const kb = hwm(child.pid);
      if (kb) peak = Math.max(peak, kb);
      if (kb > KILL_RSS_KB && !killed) ((killed = `killed at ${KILL_RSS_KB / 1024} MB`), child.kill('SIGKILL'));
    }, 10);
    const timer = setTimeout(() => (killed = `killed at ${KILL_MS / 1000} s`) && child.kill('SIGKILL'), KILL_MS);
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
    child.on('close', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      resolve({
        ms,
        rssMB: round(peak / 1024, 1),
        code: code ?? signal,
        ...(killed ? { killed } : {}),
        said: stderr.split('\n')[0].slice(0, 160),
      });
    });
  });
}

/** Every process whose VOX_HOME is under `dir` (the voxd a client started), SIGKILLed. */
function killUnder(dir) {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const home = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((kv) => kv.startsWith('VOX_HOME='))
        ?.slice(9);
      if (home && (home === dir || home.startsWith(dir + sep))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone, or not ours
    }
  }
}

/** A fresh VOX_HOME (with voxd.yaml for a file sink) and XDG_CACHE_HOME; `live` starts a voxd there first. */
async function setup(name, live) {
  const h = join(root, name.replace(/\W+/g, '-'));
  mkdirSync(join(h, 'config'), { recursive: true });
  writeFileSync(join(h, 'config', 'voxd.yaml'), `audio: "file:${join(h, 'out')}?realtime=0"\nengine: espeak\n`);
  const env = cleanEnv({
    VOX_HOME: h,
    VOX_CONFIG_HOME: join(h, 'config'),
    XDG_CACHE_HOME: join(h, 'xdg-cache'),
    VOXD_PORT: '0',
  });
  if (live) {
    const d = spawn(process.execPath, [VOXD], { env, stdio: 'ignore', detached: true });
    d.unref();
    for (let i = 0; i < 400; i++) {
      try {
        if (JSON.parse(readFileSync(join(h, 'voxd.json'), 'utf8')).pid === d.pid) break;
      } catch {
        // not yet
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return { h, env };
}

/** The code cache file a hot run writes, found by running once (its name holds a hash of the install path). */
async function cacheFile(env) {
  await run(['say', '--help'], env);
  const dir = join(env.XDG_CACHE_HOME, 'vox', 'code-cache');
  return join(
    dir,
    readdirSync(dir).find((f) => f.startsWith('vox-say.cjs')),
  );
}

const flip = (p) => {
  const b = readFileSync(p);
  const nl = b.indexOf(10);
  for (let i = nl + 1000; i < Math.min(b.length, nl + 1400); i++) b[i] ^= 0xff;
  writeFileSync(p, b);
};

const cases = {
  // The cost of the same runs on a sound VOX_HOME, for comparison.
  'nothing spoiled, no voxd': {},
  'nothing spoiled, live voxd': { live: true },
  'voxd.json FIFO': { spoil: (h) => fifo(join(h, 'voxd.json')) },
  'voxd.json -> /dev/zero': { spoil: (h) => zero(join(h, 'voxd.json')) },
  'voxd.json directory': { spoil: (h) => mkdirSync(join(h, 'voxd.json')) },
  'voxd.json live pid, port 70000': {
    spoil: (h) =>
      writeFileSync(join(h, 'voxd.json'), JSON.stringify({ pid: process.pid, host: '127.0.0.1', port: 70000 })),
  },
  'token FIFO': { spoil: (h) => fifo(join(h, 'token')) },
  'token 200 MB': { spoil: (h) => big(join(h, 'token')) },
  'voxd.yaml FIFO': { spoil: (h) => (rmSync(join(h, 'config', 'voxd.yaml')), fifo(join(h, 'config', 'voxd.yaml'))) },
  'voxd.yaml -> /dev/zero': {
    spoil: (h) => (rmSync(join(h, 'config', 'voxd.yaml')), zero(join(h, 'config', 'voxd.yaml'))),
  },
  'code cache FIFO': { cache: (f) => (rmSync(f), fifo(f)) },
  'code cache, data flipped': { cache: flip },
  'live voxd, voxd.json random bytes': {
    live: true,
    spoil: (h) => writeFileSync(join(h, 'voxd.json'), Buffer.from([0xff, 0, 0x13, 0x37])),
  },
  'live voxd, voxd.json deleted': { live: true, spoil: (h) => rmSync(join(h, 'voxd.json')) },
  'live voxd, token FIFO': { live: true, spoil: (h) => (rmSync(join(h, 'token')), fifo(join(h, 'token'))) },
};

const only = process.env.BENCH_CASES ? new RegExp(process.env.BENCH_CASES) : undefined;
const nodeMs = median(Array.from({ length: 5 }, () => timeRun(process.execPath, ['-e', '0'])));
report({ bench: 'state-files', baseline: 'node -e 0', ms: round(nodeMs, 1), vox: VOX });
try {
  for (const [name, c] of Object.entries(cases)) {
    if (only && !only.test(name)) continue;
    for (const command of ['hook', 'say']) {
      const { h, env } = await setup(`${name} ${command}`, c.live);
      try {
        if (c.cache) c.cache(await cacheFile(env));
        c.spoil?.(h);
        const r = await run(
          command === 'hook' ? ['hook', 'Notification'] : ['say', 'hello there'],
          env,
          command === 'hook' ? payload : undefined,
        );
        // The budget: ended by itself (not killed), under 100 MB, and a hook within its 2.5 s deadline.
        const withinBudget = !r.killed && r.rssMB < 100 && (command !== 'hook' || r.ms <= 2500);
        report({
          bench: 'state-files',
          case: name,
          command,
          ...r,
          ms: round(r.ms, 0),
          ratio: round(r.ms / nodeMs, 1),
          withinBudget,
        });
      } finally {
        killUnder(h);
      }
    }
  }
} finally {
  killUnder(root);
  rmSync(root, { recursive: true, force: true });
}
