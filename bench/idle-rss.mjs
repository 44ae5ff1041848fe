#!/usr/bin/env node
// voxd at rest (issue 23): its RSS once idle against an idle node, in the
// same run, and the first request's latency against another build.
//   - idle: voxd as a user runs it (engine auto, the null sink) 15 s after it
//     listens (past its first idle check, idle-trim.ts), against `node -e`
//     that waits as long. Budget: voxd <= 2 x node.
//   - first request: a fresh voxd, then POST /v1/speak {wait: true} of one
//     sentence, timed from the request to the answer (played, file sink
//     without real time), interleaved with the same on BENCH_BASE_VOXD (another
//     build's packages/voxd/dist/main.js; omitted without it). Budget: head
//     median <= base median + 20 ms.
// Also the threads at rest, and RSS with VOXD_ENGINE=espeak (the embedded
// engine warmed at boot). NODE_OPTIONS and NODE_EXTRA_CA_CERTS are stripped
// on every side (lib.mjs cleanEnv). Never fails on a figure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, median, report, round, startVoxd, VOXD } from './lib.mjs';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BASE = process.env.BENCH_BASE_VOXD;

function status(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN) / 1024;
  return {
    rssMb: round(kb('VmRSS'), 1),
    anonMb: round(kb('RssAnon'), 1),
    fileMb: round(kb('RssFile'), 1),
    threads: Number(/Threads:\s+(\d+)/.exec(s)[1]),
  };
}
const threadNames = (pid) =>
  readdirSync(`/proc/${pid}/task`).map((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function idleNode() {
  const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { env: cleanEnv(), stdio: 'ignore' });
  await sleep(IDLE_MS);
  const s = status(p.pid);
  p.kill();
  return s;
}

async function idleVoxd(engine, build = VOXD) {
  const d = await startVoxd({ audio: 'null', env: { VOXD_ENGINE: engine }, voxd: build });
  try {
    await sleep(IDLE_MS);
    return { ...status(d.pid), names: [...new Set(threadNames(d.pid))].join(',') };
  } finally {
    await d.stop();
  }
}

async function firstRequest(voxd) {
  const out = mkdtempSync(join(tmpdir(), 'vox-bench-first-'));
  const d = await startVoxd({ audio: `file:${out}?realtime=0`, env: { VOXD_ENGINE: 'auto' }, voxd });
  try {
    const t0 = performance.now();
    const r = await d.api('POST', '/v1/speak', { text: 'The first request of the day.', wait: true });
    const ms = performance.now() - t0;
    if (r.body?.status !== 'played') throw new Error(`first request: ${JSON.stringify(r.body)}`);
    return { ms, engine: r.body.engine };
  } finally {
    await d.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

const [node, voxd, base] = await Promise.all([idleNode(), idleVoxd('auto'), BASE ? idleVoxd('auto', BASE) : undefined]);
report({
  bench: 'idle RSS: voxd (engine auto) vs an idle node',
  idleMs: IDLE_MS,
  idleNode: node,
  voxd,
  ...(base ? { baseVoxd: base } : {}),
  ratio: round(voxd.rssMb / node.rssMb),
  budgetRatio: 2,
  withinBudget: voxd.rssMb <= 2 * node.rssMb,
});
const embedded = await idleVoxd('espeak');
report({
  bench: 'idle RSS: voxd with the embedded engine as the default (warmed at boot)',
  idleMs: IDLE_MS,
  voxd: embedded,
  ratioToNode: round(embedded.rssMb / node.rssMb),
});

const times = { head: [], ...(BASE ? { base: [] } : {}) };
let engine;
for (let i = 0; i < RUNS; i++) {
  for (const side of i % 2 ? ['base', 'head'] : ['head', 'base']) {
    if (!times[side]) continue;
    const r = await firstRequest(side === 'head' ? VOXD : BASE);
    times[side].push(r.ms);
    engine = r.engine;
  }
}
report({
  bench: 'first request after start: POST /v1/speak wait, request to answer',
  engine,
  runs: RUNS,
  headMedianMs: round(median(times.head)),
  ...(BASE
    ? {
        baseMedianMs: round(median(times.base)),
        deltaMs: round(median(times.head) - median(times.base)),
        budgetDeltaMs: 20,
        withinBudget: median(times.head) - median(times.base) <= 20,
      }
    : {}),
});
