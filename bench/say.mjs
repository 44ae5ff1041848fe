// Budget (issue 2): `vox say "Build finished"` against a warm daemon, wall time,
// at most 1.5x `node -e 0`. Runs are interleaved so both see the same noise.
import { VOX, median, percentile, report, round, startVoxd, timeRun } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const d = await startVoxd();
try {
  timeRun(process.execPath, [VOX, 'say', '--wait', 'warm up'], { env: d.env });
  const node = [];
  const say = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(timeRun(process.execPath, ['-e', '0']));
    say.push(timeRun(process.execPath, [VOX, 'say', 'Build finished'], { env: d.env }));
  }
  const ratio = median(say) / median(node);
  report({ bench: 'say', runs: RUNS, nodeMedianMs: round(median(node)), sayMedianMs: round(median(say)), sayP90Ms: round(percentile(say, 90)), ratio: round(ratio), budget: 1.5, withinBudget: ratio <= 1.5 });
} finally {
  await d.stop();
}
