#!/usr/bin/env node
// Eight sessions and voxd (issue 34): the memory vox costs a user with eight
// coding-agent sessions open. One voxd (its default engine, the file sink
// without real time) and eight `vox mcp`, each after `initialize`,
// `tools/list` and one call of the `hook` tool (a Notification, as Claude
// Code's mcp_tool hook entries send it), then left idle; PSS, private memory
// (USS) and RSS of each are read from /proc/PID/smaps_rollup once SETTLE_MS
// have passed since the last call. Budget: the sum of the nine PSS <= 110 MB
// (the Python original publishes 119 MB for the same eight sessions, its Go
// proxy shape 104 MB). Also printed: one idle `node` started beside them, as a
// reference (a tenth sharer of the node binary; the parts are read first).
// Then the same with two floors in place of the eight `vox mcp`: the memory
// floor of an MCP server that talks to voxd (bench/floor-mcp-http.cjs: stdin,
// JSON and one node:http request per call, nothing else) and eight idle
// `node` processes (no call at all): what eight per-session Node processes
// cost whatever they run, so whether a total budget can be met by any.
// Prints one JSON line per figure; never fails on a figure.
//
// Env: BENCH_SESSIONS (default 8), BENCH_SETTLE_MS (default 15000),
// BENCH_ROUNDS (default 1; the median of the sums is printed), BENCH_VOX /
// BENCH_VOXD (another build's packages/vox-mcp/bin/vox.cjs and
// packages/voxd/dist/main.js).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, median, pluginServerEnv, report, round, VOX, VOXD } from './lib.mjs';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 8);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 15_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const voxd = process.env.BENCH_VOXD || VOXD;
const BUDGET_MB = 110;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function smaps(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { pss: kb('Pss'), uss: kb('Private_Clean') + kb('Private_Dirty'), rss: kb('Rss') };
}

/** What runs as each session: `vox mcp` as the plugin launches it in Claude Code (with its .mcp.json env), or a floor. */
const KINDS = [
  { name: 'vox mcp', args: [VOX, 'mcp'], env: pluginServerEnv(), calls: true },
  { name: 'memory floor (stdio + node:http)', args: [join(import.meta.dirname, 'floor-mcp-http.cjs')], calls: true },
  { name: 'idle node', args: ['-e', 'setInterval(() => {}, 1e9)'], calls: false },
];

/** A session's server over stdio: request(method, params) resolves to the answer. */
function session(kind, env, cwd) {
  const child = spawn(process.execPath, kind.args, {
    env: { ...env, ...kind.env },
    cwd,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map();
  let buf = '';
  let next = 1;
  child.stdout.setEncoding('utf8').on('data', (s) => {
    buf += s;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  return { child, request, notify: (method) => send({ jsonrpc: '2.0', method }) };
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

async function round1(kind, r) {
  const tmp = mkdtempSync(join(tmpdir(), 'vox-bench-eight-'));
  const home = join(tmp, 'home');
  const sink = join(tmp, 'sink');
  const project = join(tmp, 'project');
  mkdirSync(sink, { recursive: true });
  mkdirSync(join(project, '.vox'), { recursive: true });
  const env = cleanEnv({ HOME: tmp, VOX_HOME: home, VOX_NO_AUTOSTART: '1' });
  const children = [];
  try {
    const d = spawn(process.execPath, [voxd], {
      env: { ...env, VOXD_PORT: '0', VOXD_AUDIO: `file:${sink}?realtime=0` },
      stdio: 'ignore',
    });
    children.push(d);
    for (let i = 0; i < 400 && !existsSync(join(home, 'voxd.json')); i++) await sleep(50);
    if (!existsSync(join(home, 'voxd.json'))) throw new Error('voxd did not start');
    const sessions = Array.from({ length: SESSIONS }, () => session(kind, env, project));
    children.push(...sessions.map((s) => s.child));
    await Promise.all(
      sessions.map(async (s, i) => {
        if (!kind.calls) return;
        await s.request('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        });
        s.notify('notifications/initialized');
        const list = await s.request('tools/list');
        if (!list.tools?.length) throw new Error('tools/list returned no tools');
        const hook = await s.request('tools/call', {
          name: 'hook',
          arguments: {
            event: 'Notification',
            session_id: `bench-${r}-${i}`,
            cwd: project,
            notification_type: 'permission_prompt',
            message: `Claude needs your permission to use Bash (session ${i})`,
          },
        });
        if (hook.isError) throw new Error(`hook failed: ${JSON.stringify(hook.content)}`);
      }),
    );
    await sleep(SETTLE_MS);
    const parts = { voxd: smaps(d.pid), sessions: sessions.map((s) => smaps(s.child.pid)) };
    const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { env, stdio: 'ignore' });
    children.push(idle);
    await sleep(2000);
    parts.idleNode = smaps(idle.pid);
    return parts;
  } finally {
    await Promise.all(children.map(stop));
    rmSync(tmp, { recursive: true, force: true });
  }
}

const mb = (kb) => round(kb / 1024, 1);
const sum = (p, k) => p.voxd[k] + p.sessions.reduce((a, s) => a + s[k], 0);
const per = (p, k) => p.sessions.reduce((a, s) => a + s[k], 0) / p.sessions.length;
for (const kind of KINDS) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round1(kind, r));
  const med = (f) => median(rounds.map(f));
  const total = med((p) => sum(p, 'pss'));
  report({
    // One name per kind: bench/compare.mjs matches figures by it.
    bench:
      kind.name === 'vox mcp' ? 'eight sessions and voxd' : `eight sessions and voxd: ${kind.name} as each session`,
    session: kind.name,
    sessions: SESSIONS,
    settleMs: SETTLE_MS,
    rounds: ROUNDS,
    loadAverage: round(loadavg()[0]),
    totalPssMb: mb(total),
    totalUssMb: mb(med((p) => sum(p, 'uss'))),
    voxdPssMb: mb(med((p) => p.voxd.pss)),
    voxdUssMb: mb(med((p) => p.voxd.uss)),
    voxdRssMb: mb(med((p) => p.voxd.rss)),
    sessionPssMb: mb(med((p) => per(p, 'pss'))),
    sessionUssMb: mb(med((p) => per(p, 'uss'))),
    sessionRssMb: mb(med((p) => per(p, 'rss'))),
    idleNodePssMb: mb(med((p) => p.idleNode.pss)),
    idleNodeRssMb: mb(med((p) => p.idleNode.rss)),
    budgetPssMb: BUDGET_MB,
    withinBudget: total / 1024 <= BUDGET_MB,
  });
}
