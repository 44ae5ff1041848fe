// Health latency while voxd serves adversarial requests: ten maximum-length
// texts (20,000 characters of shapes that were once quadratic in the text
// cleanup) are sent at once, again and again, while /v1/health is probed
// every 5 ms on its own connection. Budget: p99 <= 50 ms.
// Second figure (issue 23, work per tick): 200 texts at the inline limit
// (2,000 characters, prepared on the event loop unless its per-turn budget is
// spent) sent at once, three times. Budget: p99 <= 50 ms.
// Third figure (issue 34): the second again while a CPU-bound process (`node
// -e 'for(;;);'`) runs beside voxd. Budget for the second and third: p99 <=
// 50 ms, max <= 200 ms.
// The probes run in a separate process (a node of their own, keep-alive, one
// connection), so the bench's own sending does not delay them.
// Baseline: the same probes against the same voxd with nothing else to do.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { median, percentile, report, round, startVoxd } from './lib.mjs';

const MAX = 20_000;
/** voxd's INLINE_CHARS (text/preparer.ts). */
const INLINE_LIMIT = 2_000;
const SHAPES = ['!', '+1', '# ', '[]', ')(', 'a→', '#|', '"?', '!"', 'Mr. ', '\n~', "'\n", '.\\', '*a'];
const ROUNDS = 6;
const BATCH = 10;

// BENCH_VOXD: another build's packages/voxd/dist/main.js (a base to compare with, in the same run).
const d = await startVoxd({ audio: 'null', ...(process.env.BENCH_VOXD ? { voxd: process.env.BENCH_VOXD } : {}) });
/** The prober: GET /v1/health every 5 ms on one kept-alive connection until its stdin ends, then the times as JSON. */
const PROBER = `
const { request, Agent } = require('node:http');
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
let done = false;
process.stdin.on('data', () => {}).on('end', () => (done = true));
const health = () => new Promise((resolve, reject) => {
  const t0 = process.hrtime.bigint();
  const req = request({ host: '127.0.0.1', port: Number(process.argv[1]), path: '/v1/health', agent }, (res) => {
    res.resume();
    res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
  });
  req.on('error', reject);
  req.end();
});
(async () => {
  while (!done) {
    times.push(await health());
    await new Promise((r) => setTimeout(r, 5));
  }
  agent.destroy();
  process.stdout.write(JSON.stringify(times));
})();
`;

/** Probes in a process of their own until `stop()` is called; resolves to the probes' times. */
function probe() {
  const child = spawn(process.execPath, ['-e', PROBER, String(d.port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s) => (out += s));
  const times = new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`prober exited ${code}`)))),
  );
  return { stop: () => (child.stdin.end(), times) };
}

async function probeFor(ms) {
  const p = probe();
  await new Promise((r) => setTimeout(r, ms));
  return p.stop();
}

const text = (unit, i, len = MAX) =>
  (unit.repeat(Math.ceil(len / unit.length)).slice(0, len - 8) + ` r${i}`).slice(0, len);

/** CPU time voxd's main thread (its event loop) has used, in ms: work on the loop, whatever the machine's load. */
function loopCpuMs() {
  // Fields 14 and 15 of /proc/PID/task/PID/stat (after the command's closing parenthesis): utime and stime, in ticks of 10 ms.
  const fields = readFileSync(`/proc/${d.pid}/task/${d.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Rounds of `batch` texts of `len` characters sent at once (a stop after each), while health is probed. */
async function underLoad({ rounds, batch, len }) {
  const probing = probe();
  // Let the prober connect first.
  await new Promise((r) => setTimeout(r, 200));
  let served = 0;
  const cpu0 = loopCpuMs();
  const t0 = Date.now();
  for (let round = 0; round < rounds; round++) {
    const texts = Array.from({ length: batch }, (_, i) => {
      const unit = SHAPES[(round * batch + i) % SHAPES.length];
      return text(unit, round * batch + i, len);
    });
    // maxChars at the maximum too: the whole text is cleaned and split.
    await Promise.all(
      texts.map((t) =>
        d.api('POST', '/v1/speak', { text: t, maxChars: MAX, priority: 'text' }).then((r) => {
          if (r.status >= 400) throw new Error(`speak answered ${r.status}: ${JSON.stringify(r.body)}`);
          served++;
        }),
      ),
    );
    await d.api('POST', '/v1/stop', { scope: 'all' });
  }
  const loadMs = Date.now() - t0;
  const loopMs = loopCpuMs() - cpu0;
  return { served, loadMs, loopMs, loaded: await probing.stop() };
}

try {
  const idle = await probeFor(1500);
  // BENCH_HEALTH_ONLY=inline: only the second figure.
  const only = process.env.BENCH_HEALTH_ONLY;
  const inline = { rounds: 3, batch: 200, len: INLINE_LIMIT };
  for (const [bench, load, busy] of [
    ['health latency under 10 adversarial maximum-length requests at once', { rounds: ROUNDS, batch: BATCH, len: MAX }],
    ['health latency under 200 adversarial texts at the inline limit at once', inline],
    ['health latency under 200 adversarial texts at the inline limit at once, a busy core beside', inline, true],
  ]) {
    if (only && !bench.includes(only)) continue;
    // A CPU-bound process beside voxd: on a 2-core machine, one core is taken.
    const spinner = busy ? spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' }) : undefined;
    let result;
    try {
      result = await underLoad(load);
    } finally {
      spinner?.kill('SIGKILL');
    }
    const { served, loadMs, loopMs, loaded } = result;
    report({
      bench,
      requests: served,
      chars: load.len,
      loadMs,
      loopCpuMs: loopMs,
      loadAverage: round(loadavg()[0]),
      probes: loaded.length,
      idleMedianMs: round(median(idle)),
      idleP99Ms: round(percentile(idle, 99)),
      medianMs: round(median(loaded)),
      p99Ms: round(percentile(loaded, 99)),
      maxMs: round(Math.max(...loaded)),
      budgetP99Ms: 50,
      ...(load === inline ? { budgetMaxMs: 200 } : {}),
      withinBudget: percentile(loaded, 99) <= 50 && (load !== inline || Math.max(...loaded) <= 200),
    });
  }
} finally {
  await d.stop();
}
