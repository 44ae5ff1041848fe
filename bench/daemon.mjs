// Budgets (issue 2): 64 concurrent identical requests give exactly 1 playback;
// of 1,000 distinct requests every one is accepted and each is played or
// reported; voxd's RSS when idle after warm-up is at most 150 MB.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report, round, rssMb, startVoxd } from './lib.mjs';

const out = mkdtempSync(join(tmpdir(), 'vox-bench-out-'));
const d = await startVoxd({ audio: `file:${out}?realtime=0` });
try {
  await d.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = rssMb(d.pid);
  report({ bench: 'idle-rss', rssMb: round(idleRss, 1), budgetMb: 150, withinBudget: idleRss <= 150 });

  const before = readdirSync(out).length;
  const same = await Promise.all(
    Array.from({ length: 64 }, () => d.api('POST', '/v1/speak', { text: 'Sixty four sessions say this at once.' })),
  );
  await d.idle();
  const played = readdirSync(out).length - before;
  const statuses = same.reduce((m, r) => ((m[r.body.status] = (m[r.body.status] ?? 0) + 1), m), {});
  report({ bench: 'concurrent-identical', requests: 64, playbacks: played, statuses, withinBudget: played === 1 });

  const N = Number(process.env.BENCH_DISTINCT ?? 1000);
  const t0 = performance.now();
  const accepted = [];
  for (let i = 0; i < N; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, N - i) }, (_, j) =>
        d.api('POST', '/v1/speak', { text: `Distinct request number ${i + j}.`, priority: 'message' }),
      ),
    );
    accepted.push(...batch);
  }
  const status = await d.idle();
  const codes = accepted.reduce((m, r) => ((m[r.status] = (m[r.status] ?? 0) + 1), m), {});
  const c = status.counters;
  const reported = c.played + c.failed + c.expired + c.interrupted + c.dropped + c.deduped;
  report({
    bench: 'distinct-1000',
    requests: N,
    httpStatus: codes,
    counters: c,
    accountedFor: reported,
    seconds: round((performance.now() - t0) / 1000, 1),
    withinBudget: (codes[202] ?? 0) === N && c.accepted >= N && reported === c.accepted + c.deduped,
  });
  const afterRss = rssMb(d.pid);
  report({ bench: 'rss-after-load', rssMb: round(afterRss, 1) });
} finally {
  await d.stop();
  rmSync(out, { recursive: true, force: true });
}
