#!/usr/bin/env node
// Start-up and memory of `vox mcp`, the MCP server that each Claude Code
// session runs (six to eight at once). Budgets (docs/mcp.md):
//   1. start-up: from spawning `vox mcp` to its answers to `initialize` and
//      `tools/list` <= 2x the wall time of `node -e 0`; also reported against
//      the floor of a Node stdio server (bench/floor-mcp.cjs: vox's own two
//      answers, canned);
//   2. memory: with 8 sessions running, the PSS per session
//      (/proc/PID/smaps_rollup) <= 1.15x the PSS of an idle bare `node` (issue 34; 1.5x before);
//      also reported for the memory floor (bench/floor-mcp-http.cjs: a stdio server that makes one
//      node:http request per call, nothing else), which no server in Node can go under.
// The machine is noisy, so every figure is a ratio against a baseline measured
// in the same run, interleaved with it, and medians are taken. Prints one JSON
// line per figure. Never fails on a figure: budgets are reported, not enforced.
//
// Variants: "vox mcp" as shipped (its own JSON-RPC layer, packages/vox-mcp/src/mcp/protocol.ts),
// the same with Node flags, and, for the design choice, the same six tools
// (the same createVoxMcp, so the same tool code) served by the MCP SDK: its
// low-level Server loaded module by module, the same bundled into one file with
// esbuild (when esbuild can be found), McpServer with zod input schemas, and
// the v2 server package's McpServer on its dual-era serveStdio.
//
// Env: BENCH_MCP_FLAGS (the Node flags of the "+ flags" variant, which also has the plugin's launch
// environment; default below), BENCH_MCP_ENV (a JSON object of variables that variant adds),
// BENCH_RUNS (start-up samples per variant, default 21), BENCH_ROUNDS
// (memory rounds, default 3), BENCH_SESSIONS (default 8), BENCH_SETTLE_MS (idle
// time before the steady-state PSS reading, default 15000), BENCH_SDK=0 to skip
// the SDK variants.
// The environment is only PATH, HOME and the bench's VOX_HOME: no NODE_* (see
// bench/lib.mjs). `npm run bench` runs it on every Node line. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pluginServerEnv } from './lib.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
/** BENCH_VOX names another build's bin/vox.cjs to measure (e.g. the code before a change). */
const cli = process.env.BENCH_VOX || join(repo, 'packages/vox-mcp/bin/vox.cjs');
const floorMcp = join(repo, 'bench/floor-mcp.cjs');
/** The memory floor: in the memory rounds only, beside the variants. */
const floorHttp = { name: 'memory floor (stdio + node:http)', args: [join(repo, 'bench/floor-mcp-http.cjs')] };
const voxdMain = join(repo, 'packages/voxd/dist/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 8);
/** PSS is read twice: EARLY_MS after the calls (garbage not yet collected) and SETTLE_MS after (V8's memory reducer has run: the steady state of a session). */
const EARLY_MS = 2000;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15000);
const STARTUP_BUDGET = 2;
const PSS_BUDGET = 1.15;
/** Node flags tried for memory (docs/mcp.md says which were kept). */
const FLAGS = process.env.BENCH_MCP_FLAGS?.split(' ').filter(Boolean) ?? [
  '--max-semi-space-size=1',
  '--v8-pool-size=1',
];
/** BENCH_MCP_ENV: a JSON object of environment variables the "+ flags" variant adds to the plugin's launch (e.g. malloc's). */
const FLAGS_ENV = JSON.parse(process.env.BENCH_MCP_ENV || '{}');

if (!existsSync(cli)) {
  console.error(`bench/mcp: ${cli} is missing; run "npm run build" first`);
  process.exit(1);
}

const core = pathToFileURL(join(repo, 'packages/vox-mcp/dist/mcp/server.js')).href;
const sdkUrl = (p) => import.meta.resolve(`@modelcontextprotocol/sdk/${p}`);

/** The six tools of createVoxMcp, served by the SDK's low-level Server; `from(module)` says where the SDK comes from. */
const sdkServerSource = (from) => `
${from}
import { createVoxMcp } from ${JSON.stringify(core)};
const vox = createVoxMcp({ env: process.env, cwd: process.cwd(), log: (l) => process.stderr.write(l + '\\n') });
const server = new Server({ name: 'vox', version: '0' }, { capabilities: { tools: {} }, jsonSchemaValidator: { getValidator: () => (data) => ({ valid: true, data }) } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await vox.listTools() }));
server.setRequestHandler(CallToolRequestSchema, (r) => vox.callTool(r.params.name, r.params.arguments));
await server.connect(new StdioServerTransport());
`;
const SDK_IMPORTS = `
import { Server } from ${JSON.stringify(sdkUrl('server/index.js'))};
import { StdioServerTransport } from ${JSON.stringify(sdkUrl('server/stdio.js'))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdkUrl('types.js'))};
`;

/** The same tools on McpServer, with zod input schemas (what the SDK's docs show). */
const MCPSERVER_SOURCE = `
import { McpServer } from ${JSON.stringify(sdkUrl('server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(sdkUrl('server/stdio.js'))};
import * as z from ${JSON.stringify(import.meta.resolve('zod/v4'))};
import { createVoxMcp } from ${JSON.stringify(core)};
const vox = createVoxMcp({ env: process.env, cwd: process.cwd(), log: (l) => process.stderr.write(l + '\\n') });
const s = new McpServer({ name: 'vox', version: '0' });
const tool = (name, inputSchema) => s.registerTool(name, { description: name, inputSchema }, (args) => vox.callTool(name, args));
const voice = z.string().min(1).max(100).optional();
const rate = z.number().min(80).max(500).optional();
tool('speak', { text: z.string().min(1).max(20000), voice, rate, once: z.number().min(1).max(3600).optional(),
  priority: z.enum(['important', 'message', 'text', 'notification', 'progress']).optional() });
tool('stop', { scope: z.enum(['session', 'all']).optional() });
tool('voices', { language: z.string().min(1).max(35).optional() });
tool('status', {});
tool('configure', { voice: voice.nullable(), rate: rate.nullable(), volume: z.number().min(0).max(1).nullable().optional(),
  engine: z.string().nullable().optional(), model: z.string().nullable().optional(), speak: z.boolean().nullable().optional(),
  notify: z.string().nullable().optional(), dedup: z.number().nullable().optional(),
  announce: z.union([z.boolean(), z.string()]).nullable().optional(), priority: z.string().nullable().optional(),
  maxChars: z.number().int().nullable().optional() });
tool('record', { text: z.string().min(1), path: z.string().min(1), voice, rate });
await s.connect(new StdioServerTransport());
`;

/** The SDK's Server and stdio transport in one minified file, ajv left out (the Server only needs it for elicitation). */
async function bundleSdk(dir) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const out = join(dir, 'mcp-sdk.bundle.mjs');
  await esbuild.build({
    stdin: {
      contents: SDK_IMPORTS.replace(/^import/gm, 'export').replace(/"(file:[^"]*)"/g, (_, url) =>
        JSON.stringify(fileURLToPath(url)),
      ),
      resolveDir: repo,
    },
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'no-ajv',
        setup(b) {
          b.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, () => ({ path: 'ajv', namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents: 'export class AjvJsonSchemaValidator {}',
            loader: 'js',
          }));
        },
      },
    ],
  });
  return pathToFileURL(out).href;
}

const tmp = mkdtempSync(join(tmpdir(), 'vox-bench-mcp-'));
const home = join(tmp, 'home');
const sink = join(tmp, 'sink');
mkdirSync(sink, { recursive: true });
const baseEnv = { PATH: process.env.PATH ?? '', HOME: tmp, VOX_HOME: home, VOXD_PORT: '0', VOX_NO_AUTOSTART: '1' };

const variants = [
  { name: 'vox mcp', args: [cli, 'mcp'] },
  // Claude Code starts it with the plugin's .mcp.json env (one malloc arena); other agents as above.
  { name: "vox mcp, the plugin's launch", args: [cli, 'mcp'], env: pluginServerEnv(repo) },
  {
    name: 'vox mcp + flags',
    args: [...FLAGS, cli, 'mcp'],
    flags: FLAGS,
    env: { ...pluginServerEnv(repo), ...FLAGS_ENV },
  },
];
if (process.env.BENCH_SDK !== '0') {
  const sdkBundle = await bundleSdk(tmp);
  if (sdkBundle) {
    const from = SDK_IMPORTS.replace(/from "[^"]*"/g, `from ${JSON.stringify(sdkBundle)}`);
    variants.push({ name: 'SDK Server, bundled', args: ['--input-type=module', '-e', sdkServerSource(from)] });
  }
  variants.push({ name: 'SDK Server, modules', args: ['--input-type=module', '-e', sdkServerSource(SDK_IMPORTS)] });
  variants.push({ name: 'SDK McpServer, modules', args: ['--input-type=module', '-e', MCPSERVER_SOURCE] });
  // The v2 server package, dual-era (the conformance test's reference server: the same tools).
  variants.push({
    name: 'SDK v2 McpServer + serveStdio, modules',
    args: [join(repo, 'packages/vox-mcp/test/helpers/reference-server.mjs')],
  });
}
const memoryVariants = [...variants, floorHttp];
const children = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const print = (o) => console.log(JSON.stringify({ bench: 'mcp', ...o, node: process.version }));

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Spawns an MCP server and returns a JSON-RPC caller over its stdio. */
function server(variant, cwd = tmp) {
  const child = track(
    spawn(process.execPath, variant.args, {
      cwd,
      env: { ...baseEnv, ...variant.env },
      stdio: ['pipe', 'pipe', 'ignore'],
    }),
  );
  const waiting = new Map();
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      waiting.get(msg.id)?.(msg);
    }
  });
  const exited = new Promise((r) => child.on('exit', r));
  const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const request = (id, method, params) => {
    const answer = new Promise((resolve, reject) => {
      waiting.set(id, resolve);
      exited.then(() => reject(new Error(`${variant.name} exited before answering ${method}`)));
    });
    send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return answer;
  };
  const hello = () => {
    const init = request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return Promise.all([init, request(2, 'tools/list')]);
  };
  return { child, request, hello, exited };
}

function run(args) {
  const child = track(spawn(process.execPath, args, { stdio: 'ignore', env: baseEnv }));
  return new Promise((r) => child.on('exit', r));
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  // Builds before the signal fix ignored SIGTERM while stdin was open (BENCH_VOX may name one): close it too.
  const late = setTimeout(() => child.stdin?.end(), 2000);
  await gone;
  clearTimeout(late);
}

// ---------------------------------------------------------------------------
// 1. Start-up

async function startup() {
  // vox mcp's own answers, for the floor to give.
  const probe = server(variants[0]);
  const [init, list] = await probe.hello();
  probe.child.stdin.end();
  await probe.exited;
  const floor = {
    name: 'stdio floor',
    args: [floorMcp, JSON.stringify({ initialize: init.result, 'tools/list': list.result })],
  };

  const base = [];
  const floorTimes = [];
  const times = new Map(variants.map((v) => [v.name, []]));
  const timeServer = async (v) => {
    const t = performance.now();
    const s = server(v);
    const [, list] = await s.hello();
    const ms = performance.now() - t;
    if (!list.result?.tools?.length) throw new Error(`${v.name}: tools/list returned no tools`);
    s.child.stdin.end();
    await s.exited;
    return ms;
  };
  for (let i = 0; i < RUNS + 1; i++) {
    let t = performance.now();
    await run(['-e', '0']);
    if (i > 0) base.push(performance.now() - t); // the first of each warms the page cache
    t = await timeServer(floor);
    if (i > 0) floorTimes.push(t);
    for (const v of variants) {
      t = await timeServer(v);
      if (i > 0) times.get(v.name).push(t);
    }
  }
  const b = median(base);
  const f = median(floorTimes);
  print({ figure: 'startup baseline: node -e 0', median_ms: round(b, 1), runs: RUNS });
  print({ figure: 'startup baseline: stdio floor', median_ms: round(f, 1), runs: RUNS });
  for (const v of variants) {
    const m = median(times.get(v.name));
    print({
      figure: `startup: ${v.name}`,
      flags: v.flags ?? [],
      median_ms: round(m, 1),
      baseline_ms: round(b, 1),
      ratio: round(m / b),
      floor_ms: round(f, 1),
      ratio_to_floor: round(m / f),
      budget_ratio: STARTUP_BUDGET,
      within_budget: m / b <= STARTUP_BUDGET,
      runs: RUNS,
    });
  }
}

// ---------------------------------------------------------------------------
// 2. Memory

function smaps(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { pss: kb('Pss'), priv: kb('Private_Clean') + kb('Private_Dirty'), rss: kb('Rss') };
}

async function startVoxd() {
  const child = track(
    spawn(process.execPath, [voxdMain, '--port', '0'], {
      env: { ...baseEnv, VOXD_AUDIO: `file:${sink}?realtime=0` },
      stdio: 'ignore',
    }),
  );
  for (let i = 0; i < 300 && !existsSync(join(home, 'voxd.json')); i++) await sleep(50);
  if (!existsSync(join(home, 'voxd.json'))) throw new Error('voxd did not start');
  return child;
}

/**
 * One round: SESSIONS idle bare nodes and SESSIONS servers of each variant run
 * at once (so each maps the node binary with the same number of sharers); each
 * server answers initialize and tools/list and speaks once; every process's
 * PSS is read EARLY_MS later and again at SETTLE_MS.
 */
async function memoryRound(wall) {
  const idle = [];
  const sessions = new Map(memoryVariants.map((v) => [v.name, []]));
  for (let i = 0; i < SESSIONS; i++) {
    idle.push(track(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore', env: baseEnv })));
    for (const v of memoryVariants) sessions.get(v.name).push(server(v));
  }
  await Promise.all([...sessions.values()].flat().map((s) => s.hello()));
  await Promise.all(
    [...sessions.values()].flat().map(async (s) => {
      const answer = await s.request(3, 'tools/call', { name: 'speak', arguments: { text: wall } });
      if (answer.result?.isError) throw new Error(`speak failed: ${answer.result.content[0].text}`);
    }),
  );
  const read = () => {
    const result = { idle: idle.map((c) => smaps(c.pid)) };
    for (const [name, list] of sessions) result[name] = list.map((s) => smaps(s.child.pid));
    return result;
  };
  await sleep(EARLY_MS);
  const early = read();
  await sleep(Math.max(0, SETTLE_MS - EARLY_MS));
  const settled = read();
  await Promise.all([...idle, ...[...sessions.values()].flat().map((s) => s.child)].map(stop));
  return { early, settled };
}

async function memory() {
  if (!existsSync('/proc/self/smaps_rollup')) {
    print({ figure: 'memory', skipped: 'no /proc/PID/smaps_rollup on this system' });
    return;
  }
  const voxd = await startVoxd();
  try {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++)
      rounds.push(await memoryRound(`Bench round ${r}: the wall text every session says.`));
    const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
    for (const when of ['settled', 'early']) {
      const at = rounds.map((r) => r[when]);
      const seconds = (when === 'settled' ? SETTLE_MS : EARLY_MS) / 1000;
      const baseline = median(at.map((r) => mean(r.idle, 'pss')));
      print({
        figure: `pss baseline: idle node, ${seconds} s`,
        pss_kb: round(baseline, 0),
        private_kb: round(median(at.map((r) => mean(r.idle, 'priv'))), 0),
        sessions: SESSIONS,
        rounds: ROUNDS,
      });
      for (const v of memoryVariants) {
        const ratio = median(at.map((r) => mean(r[v.name], 'pss') / mean(r.idle, 'pss')));
        print({
          figure: `pss per session: ${v.name}, ${seconds} s after a speak call`,
          flags: v.flags ?? [],
          pss_kb: round(median(at.map((r) => mean(r[v.name], 'pss'))), 0),
          private_kb: round(median(at.map((r) => mean(r[v.name], 'priv'))), 0),
          rss_kb: round(median(at.map((r) => mean(r[v.name], 'rss'))), 0),
          baseline_pss_kb: round(baseline, 0),
          ratio: round(ratio),
          budget_ratio: PSS_BUDGET,
          ...(when === 'settled' ? { within_budget: ratio <= PSS_BUDGET } : {}),
          sessions: SESSIONS,
          rounds: ROUNDS,
        });
      }
    }
  } finally {
    await stop(voxd);
  }
}

try {
  await startup();
  await memory();
} finally {
  await Promise.all([...children].map(stop));
  rmSync(tmp, { recursive: true, force: true });
}
