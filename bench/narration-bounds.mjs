#!/usr/bin/env node
// Budget (issue "Hardening, round three", part 5): one message that never ends
// and never ends a sentence, 200 batches of 65,536 characters POSTed to
// /v1/narration in order: voxd's RSS grows by at most 64 MB, and every batch
// is answered within 50 ms.
// Baseline in the same run, on the same voxd before the flood: 200 batches of
// one short line each (a message of ordinary lines), their answer times and
// voxd's RSS once warm. Figures: each batch's answer time (max, p90, median),
// the RSS growth (peak, sampled after every batch, minus the warm RSS), the
// journal's largest size, and the ratios to the baseline.
// BENCH_BEFORE=path/to/voxd/dist/main.js runs the same against that build too
// (another build of voxd, e.g. the one before this change), one after the
// other, each on its own voxd. Null sink: what is measured is voxd taking the
// batches, not audio. Prints one JSON line. Needs `npm run build` first.
import { statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { median, percentile, report, round, rssMb, startVoxd, VOXD } from './lib.mjs';

const BATCHES = 200;
const DELTA_CHARS = 65_536;
const RSS_BUDGET_MB = 64;
const BATCH_BUDGET_MS = 50;
const words = 'and then it goes on ';
const delta = words.repeat(Math.floor(DELTA_CHARS / words.length));

async function measure(voxd) {
  const d = await startVoxd({ voxd });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request(
        {
          host: '127.0.0.1',
          port: d.port,
          method: 'POST',
          path: '/v1/narration',
          agent,
          headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c) => (text += c));
          res.on('end', () =>
            res.statusCode < 300
              ? resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, body: JSON.parse(text) })
              : reject(new Error(`HTTP ${res.statusCode} ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const journal = join(d.home, 'journal.jsonl');
  const size = () => {
    try {
      return statSync(journal).size;
    } catch {
      return 0;
    }
  };
  try {
    // Warm: a few messages, then the baseline of ordinary lines.
    for (let i = 0; i < 20; i++)
      await post({ session: 'warm#1', message: `w${i}`, index: 0, final: true, delta: 'A warm up line.\n' });
    await d.idle();
    const base = [];
    for (let i = 0; i < BATCHES; i++)
      base.push(
        (
          await post({
            session: 'base#1',
            message: 'base',
            index: i,
            final: i === BATCHES - 1,
            delta: `Line ${i} of an ordinary reply ends here.\n`,
          })
        ).ms,
      );
    await d.idle();
    const rss0 = rssMb(d.pid);
    const times = [];
    let peak = rss0;
    let journalMax = 0;
    const statuses = {};
    for (let i = 0; i < BATCHES; i++) {
      const r = await post({ session: 'flood#1', message: 'endless', index: i, final: false, delta });
      times.push(r.ms);
      statuses[r.body.status] = (statuses[r.body.status] ?? 0) + 1;
      peak = Math.max(peak, rssMb(d.pid));
      journalMax = Math.max(journalMax, size());
    }
    return {
      baselineBatchMedianMs: round(median(base)),
      baselineBatchMaxMs: round(Math.max(...base)),
      warmRssMb: round(rss0),
      batchMaxMs: round(Math.max(...times)),
      batchP90Ms: round(percentile(times, 90)),
      batchMedianMs: round(median(times)),
      batchMaxRatioToBaselineMax: round(Math.max(...times) / Math.max(...base)),
      rssGrowthMb: round(peak - rss0),
      journalMaxMb: round(journalMax / 1024 / 1024),
      statuses,
      withinBudget: peak - rss0 <= RSS_BUDGET_MB && Math.max(...times) <= BATCH_BUDGET_MS,
    };
  } finally {
    agent.destroy();
    await d.stop();
  }
}

const out = {
  bench: 'narration-bounds',
  batches: BATCHES,
  deltaChars: DELTA_CHARS,
  rssBudgetMb: RSS_BUDGET_MB,
  batchBudgetMs: BATCH_BUDGET_MS,
};
out.this = await measure(VOXD);
if (process.env.BENCH_BEFORE) out.before = await measure(process.env.BENCH_BEFORE);
report(out);
