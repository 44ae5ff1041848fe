// Shared helpers for the benchmarks: a real voxd in a temp VOX_HOME, a clean
// environment, interleaved timing, stats and the two start-up baselines.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const VOXD = join(ROOT, 'packages/voxd/dist/main.js');
/** The `vox` bin as npm links it (it picks the bundle to load); BENCH_VOX names another entry to compare, e.g. an older build. */
export const VOX = process.env.BENCH_VOX || join(ROOT, 'packages/vox-mcp/bin/vox.cjs');

/** The environment the plugin's `.mcp.json` gives `vox mcp` in Claude Code (its launch, as users get it). */
export function pluginServerEnv(root = ROOT) {
  return JSON.parse(readFileSync(join(root, 'plugin', '.mcp.json'), 'utf8')).mcpServers.vox.env ?? {};
}
/** The node:http floor: the least a Node client process can do for one request (bench/floor.cjs). */
export const FLOOR = join(ROOT, 'bench/floor.cjs');

/**
 * Environment variables that change how a Node process starts, or what its
 * node:http does, removed from both sides of every comparison:
 * - every NODE_* variable: NODE_OPTIONS (any flag), NODE_EXTRA_CA_CERTS (this
 *   machine sets it; it adds ~70 ms to every Node 20 start), NODE_COMPILE_CACHE
 *   and NODE_DISABLE_COMPILE_CACHE (a cache for one side only), NODE_V8_COVERAGE,
 *   NODE_DEBUG, NODE_DEBUG_NATIVE, NODE_PATH, NODE_PRESERVE_SYMLINKS,
 *   NODE_ICU_DATA, NODE_USE_ENV_PROXY (Node 24: node:http through a proxy),
 *   NODE_USE_SYSTEM_CA, NODE_TLS_REJECT_UNAUTHORIZED, NODE_PENDING_DEPRECATION,
 *   NODE_NO_WARNINGS, NODE_REDIRECT_WARNINGS, NODE_REPL_* (harmless, but no
 *   reason to keep them), NODE_TEST_CONTEXT...;
 * - UV_THREADPOOL_SIZE and UV_USE_IO_URING (libuv's start-up);
 * - OPENSSL_CONF, OPENSSL_MODULES, SSL_CERT_FILE, SSL_CERT_DIR (read by
 *   OpenSSL's initialization).
 * The caller's vox settings and cloud keys go too (VOX_*, VOXD_*, CLAUDE_*,
 * OPENAI_*, ELEVENLABS_*), so nothing outside the bench's temp VOX_HOME counts.
 */
export const START_UP_VARIABLES = /^(?:NODE_|UV_|OPENSSL_CONF$|OPENSSL_MODULES$|SSL_CERT_(?:FILE|DIR)$)/;
const CALLER_SETTINGS = /^(?:VOX|VOXD|CLAUDE|OPENAI|ELEVENLABS)_/;

/** The environment of every process a bench times: the caller's, without START_UP_VARIABLES and vox settings, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (!START_UP_VARIABLES.test(k) && !CALLER_SETTINGS.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
export const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The JSON objects among a bench's output lines (what report() printed); other lines are skipped. */
export function jsonLines(text) {
  const out = [];
  for (const line of (text ?? '').split('\n')) {
    try {
      const j = JSON.parse(line);
      if (j && typeof j === 'object') out.push(j);
    } catch {
      // not a figure
    }
  }
  return out;
}

/** Prints one JSON line, with the Node version that ran the bench (and every process it timed). */
export function report(obj) {
  process.stdout.write(`${JSON.stringify({ ...obj, node: process.version })}\n`);
}

/**
 * Wall time of one run of a command, in ms, with a clean environment unless
 * `options.env` is given. `options.input` is written to stdin, which is then
 * closed. Throws when it exits non-zero, or, with `quietStderr`, when it
 * writes to stderr.
 */
export function timeRun(cmd, args, options = {}) {
  const { quietStderr, ...spawnOptions } = options;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, {
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    env: cleanEnv(),
    ...spawnOptions,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (quietStderr && r.stderr?.length) throw new Error(`${cmd} ${args.join(' ')} reported: ${r.stderr}`);
  return ms;
}

/**
 * Times each variant `runs` times, interleaved (one of each per round, the
 * order rotating every round), after `warmup` untimed rounds, so that every
 * variant sees the same noise of a shared machine. Returns ms per variant name.
 * @param {Record<string, () => number>} variants each returns one run's ms (timeRun)
 */
export function interleave(variants, runs, warmup = 2) {
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length];
      const ms = variants[name]();
      if (round >= warmup) times[name].push(ms);
    }
  }
  return times;
}

/**
 * The two start-up baselines of a process-per-call client, as variants for
 * interleave(): `node -e 0` (a Node process that does nothing) and the
 * node:http floor (bench/floor.cjs: a Node process that sends the same
 * request to the same voxd). `stdin` is what the measured command reads
 * from stdin; the floor reads it too.
 */
export function baselines({ env, route, body, stdin }) {
  const input = stdin === undefined ? {} : { input: stdin };
  return {
    'node -e 0': () => timeRun(process.execPath, ['-e', '0'], { env, ...input }),
    'node:http floor': () =>
      timeRun(process.execPath, [FLOOR, route, JSON.stringify(body), ...(stdin === undefined ? [] : ['stdin'])], {
        env,
        ...input,
      }),
  };
}

/** Medians of each variant, and of `name` its ratios to both baselines, as report() fields; the budget applies to the ratio of the medians. */
export function startupFigures(times, name, budget) {
  const m = (n) => median(times[n]);
  const floorRatio = m(name) / m('node:http floor');
  const paired = times[name].map((t, i) => t / times['node:http floor'][i]);
  return {
    runs: times[name].length,
    nodeMedianMs: round(m('node -e 0')),
    floorMedianMs: round(m('node:http floor')),
    medianMs: round(m(name)),
    p90Ms: round(percentile(times[name], 90)),
    ratioToNode: round(m(name) / m('node -e 0')),
    ratioToFloor: round(floorRatio),
    // The same ratio taken within each round (runs seconds apart), then the median: steadier when the machine's load drifts.
    pairedRatioToFloor: round(median(paired)),
    // Its spread: the 25th and 75th percentiles of the per-round ratios.
    pairedRatioToFloorIqr: [round(percentile(paired, 25)), round(percentile(paired, 75))],
    budgetToFloor: budget,
    withinBudget: floorRatio <= budget,
  };
}

/** `voxd`: another build's packages/voxd/dist/main.js, to compare with (default this tree's). */
export async function startVoxd({ audio = 'null', env = {}, voxd = VOXD } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'vox-bench-'));
  const fullEnv = cleanEnv({ VOX_HOME: home, VOXD_PORT: '0', VOXD_AUDIO: audio, VOXD_ENGINE: 'espeak', ...env });
  // BENCH_VOXD_FLAGS: Node flags for voxd alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), to see where its time goes.
  const flags = process.env.BENCH_VOXD_FLAGS?.split(' ').filter(Boolean) ?? [];
  const proc = spawn(process.execPath, [...flags, voxd], { env: fullEnv, stdio: 'ignore' });
  let state;
  for (let i = 0; i < 400 && !state; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      const s = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
      if (s.pid === proc.pid) state = s;
    } catch {
      // not yet
    }
  }
  if (!state) throw new Error('voxd did not start');
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const api = (method, path, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port: state.port,
          method,
          path,
          headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  /** POST /v1/speak over `connections` keep-alive sockets, resolving to the status code (for floods). */
  const flooder = (connections) => {
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const speak = (body) =>
      new Promise((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: state.port, method: 'POST', path: '/v1/speak', agent, headers },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          },
        );
        req.on('error', reject);
        req.end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    return { speak, close: () => agent.destroy() };
  };
  return {
    home,
    env: fullEnv,
    token,
    flooder,
    /** A client's environment, as a hook or a shell has it: VOX_HOME, no voxd settings (VOXD_AUDIO, VOXD_ENGINE, VOXD_PORT=0). */
    clientEnv: cleanEnv({ VOX_HOME: home }),
    pid: proc.pid,
    port: state.port,
    api,
    async idle() {
      for (;;) {
        const s = await api('GET', '/v1/status');
        if (s.body.queue.length === 0 && !s.body.playing) return s.body;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process, in MB. */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A sink that notes when audio stopped reaching it. */
export class TimedSink {
  constructor(inner) {
    this.inner = inner;
    this.name = `timed(${inner.name})`;
    this.ended = 0;
    this.firstAudio = 0;
    this.waiters = [];
  }
  state() {
    return this.inner.state();
  }
  check() {
    return this.inner.check();
  }
  async play(format, chunks, signal, meta) {
    const self = this;
    self.firstAudio = 0;
    async function* tap() {
      for await (const c of chunks) {
        self.firstAudio ||= performance.now();
        yield c;
      }
    }
    try {
      return await this.inner.play(format, tap(), signal, meta);
    } finally {
      this.ended = performance.now();
      for (const w of this.waiters.splice(0)) w(this.ended);
    }
  }
  /** Resolves with performance.now() at the end of the play() in progress. */
  nextEnd() {
    return new Promise((r) => this.waiters.push(r));
  }
  close() {
    return this.inner.close();
  }
}

/** Claude Code's `${field}` substitution of an mcp_tool hook's input. */
export function substitute(input, data) {
  const out = {};
  for (const [k, v] of Object.entries(input)) {
    out[k] = v.replace(/\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}/g, (_, path) => {
      const value = path.split('.').reduce((o, key) => (o && typeof o === 'object' ? o[key] : undefined), data);
      return value === undefined || value === null
        ? ''
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    });
  }
  return out;
}

/**
 * A warm `vox mcp`, spoken to as Claude Code does (one JSON line a message on
 * its stdin; `vox` names another entry), initialized. rpc() resolves with the result and the ms until
 * its answer line arrived; close() ends its stdin and waits for its exit.
 */
export async function warmMcp({ cwd, env, vox = VOX, args = [vox, 'mcp'] }) {
  const server = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let buffer = '';
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    let i;
    while ((i = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      const t = process.hrtime.bigint();
      waiting.get(message.id)?.({ message, t });
      waiting.delete(message.id);
    }
  });
  let nextId = 1;
  const rpc = (method, params) => {
    const id = nextId++;
    const answered = new Promise((resolve) => waiting.set(id, resolve));
    const t0 = process.hrtime.bigint();
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered.then(({ message, t }) => {
      if (message.error) throw new Error(`${method}: ${message.error.message}`);
      return { result: message.result, ms: Number(t - t0) / 1e6 };
    });
  };
  await rpc('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    server,
    rpc,
    async close() {
      server.stdin.end();
      await new Promise((r) => (server.exitCode !== null || server.signalCode !== null ? r() : server.once('exit', r)));
    },
  };
}

/** The token of the benches that build voxd in process (`buildServer({ token })`). */
export const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

/** POST `body` as JSON to an in-process voxd on `port` with BENCH_TOKEN; resolves with the status and the parsed answer. */
export function postJson(port, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
