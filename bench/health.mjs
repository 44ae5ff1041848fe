// Health latency while voxd serves adversarial requests: ten maximum-length
// texts (20,000 characters of shapes that were once quadratic in the text
// cleanup) are sent at once, again and again, while /v1/health is probed
// every 5 ms on its own connection. Budget: p99 <= 50 ms.
// Second figure (issue 23, work per tick): 200 texts at the inline limit
// (2,000 characters, prepared on the event loop unless its per-turn budget is
// spent) sent at once, three times. Budget: p99 <= 50 ms.
// Baseline: the same probes against the same voxd with nothing else to do.
import { request, Agent } from 'node:http';
import { median, percentile, report, round, startVoxd } from './lib.mjs';

const MAX = 20_000;
/** voxd's INLINE_CHARS (text/preparer.ts). */
const INLINE_LIMIT = 2_000;
const SHAPES = ['!', '+1', '# ', '[]', ')(', 'a→', '#|', '"?', '!"', 'Mr. ', '\n~', "'\n", '.\\', '*a'];
const ROUNDS = 6;
const BATCH = 10;

// BENCH_VOXD: another build's packages/voxd/dist/main.js (a base to compare with, in the same run).
const d = await startVoxd({ audio: 'null', ...(process.env.BENCH_VOXD ? { voxd: process.env.BENCH_VOXD } : {}) });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function health() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port: d.port, path: '/v1/health', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    });
    req.on('error', reject);
    req.end();
  });
}

async function probe(untilDone) {
  const times = [];
  while (!untilDone.done) {
    times.push(await health());
    await new Promise((r) => setTimeout(r, 5));
  }
  return times;
}

async function probeFor(ms) {
  const flag = { done: false };
  const p = probe(flag);
  await new Promise((r) => setTimeout(r, ms));
  flag.done = true;
  return p;
}

const text = (unit, i, len = MAX) =>
  (unit.repeat(Math.ceil(len / unit.length)).slice(0, len - 8) + ` r${i}`).slice(0, len);

/** Rounds of `batch` texts of `len` characters sent at once (a stop after each), while health is probed. */
async function underLoad({ rounds, batch, len }) {
  const flag = { done: false };
  const probing = probe(flag);
  let served = 0;
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
  flag.done = true;
  return { served, loadMs, loaded: await probing };
}

try {
  const idle = await probeFor(1500);
  // BENCH_HEALTH_ONLY=inline: only the second figure.
  const only = process.env.BENCH_HEALTH_ONLY;
  for (const [bench, load] of [
    ['health latency under 10 adversarial maximum-length requests at once', { rounds: ROUNDS, batch: BATCH, len: MAX }],
    [
      'health latency under 200 adversarial texts at the inline limit at once',
      { rounds: 3, batch: 200, len: INLINE_LIMIT },
    ],
  ]) {
    if (only && !bench.includes(only)) continue;
    const { served, loadMs, loaded } = await underLoad(load);
    report({
      bench,
      requests: served,
      chars: load.len,
      loadMs,
      probes: loaded.length,
      idleMedianMs: round(median(idle)),
      idleP99Ms: round(percentile(idle, 99)),
      medianMs: round(median(loaded)),
      p99Ms: round(percentile(loaded, 99)),
      maxMs: round(Math.max(...loaded)),
      budgetP99Ms: 50,
      withinBudget: percentile(loaded, 99) <= 50,
    });
  }
} finally {
  agent.destroy();
  await d.stop();
}
