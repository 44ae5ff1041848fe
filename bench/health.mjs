// Health latency while voxd serves adversarial requests: ten maximum-length
// texts (20,000 characters of shapes that were once quadratic in the text
// cleanup) are sent at once, again and again, while /v1/health is probed
// every 5 ms on its own connection. Budget: p99 <= 50 ms.
// Baseline: the same probes against the same voxd with nothing else to do.
import { request, Agent } from 'node:http';
import { median, percentile, report, round, startVoxd } from './lib.mjs';

const MAX = 20_000;
const SHAPES = ['!', '+1', '# ', '[]', ')(', 'a→', '#|', '"?', '!"', 'Mr. ', '\n~', "'\n", '.\\', '*a'];
const ROUNDS = 6;
const BATCH = 10;

const d = await startVoxd({ audio: 'null' });
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

const text = (unit, i) => (unit.repeat(Math.ceil(MAX / unit.length)).slice(0, MAX - 8) + ` r${i}`).slice(0, MAX);

try {
  const idle = await probeFor(1500);
  const flag = { done: false };
  const probing = probe(flag);
  let served = 0;
  const t0 = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    const batch = Array.from({ length: BATCH }, (_, i) => {
      const unit = SHAPES[(round * BATCH + i) % SHAPES.length];
      // maxChars at the maximum too: the whole text is cleaned and split.
      return d.api('POST', '/v1/speak', { text: text(unit, round * BATCH + i), maxChars: MAX, priority: 'text' }).then((r) => {
        if (r.status >= 400) throw new Error(`speak answered ${r.status}: ${JSON.stringify(r.body)}`);
        served++;
      });
    });
    await Promise.all(batch);
    await d.api('POST', '/v1/stop', { scope: 'all' });
  }
  const loadMs = Date.now() - t0;
  flag.done = true;
  const loaded = await probing;
  report({
    bench: 'health latency under 10 adversarial maximum-length requests at once',
    requests: served,
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
} finally {
  agent.destroy();
  await d.stop();
}
