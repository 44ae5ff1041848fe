#!/usr/bin/env node
// Budget: `vox hook Notification` with the permission-prompt fixture on stdin,
// against a warm voxd (null sink), wall time, at most 1.5x `node -e 0` measured
// in the same run. Runs are interleaved so both see the same noise; medians of
// BENCH_RUNS (default 30) each. Prints one JSON line. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, VOX, median, percentile, report, round, startVoxd } from './lib.mjs';

const RUNS = Math.max(20, Number(process.env.BENCH_RUNS ?? 30));
const BUDGET = 1.5;
const FIXTURE = join(ROOT, 'test', 'fixtures', 'hooks', 'notification-permission.json');
const payload = readFileSync(FIXTURE, 'utf8');

/** Wall time of one run, in ms; `input` is written to stdin, which is then closed. */
function time(args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (r.stderr?.length) throw new Error(`node ${args.join(' ')} reported: ${r.stderr}`);
  return ms;
}

const d = await startVoxd({ audio: 'null' });
try {
  const env = { ...d.env, VOX_NO_AUTOSTART: '1' };
  const hook = () => time([VOX, 'hook', 'Notification'], { env, input: payload });
  // Warm the daemon's engine and the file system cache.
  for (let i = 0; i < 3; i++) hook();
  const received = async () => {
    const c = (await d.api('GET', '/v1/status')).body.counters;
    return c.accepted + c.deduped + c.dropped;
  };
  const before = await received();
  const node = [];
  const hooks = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(time(['-e', '0'], { input: '' }));
    hooks.push(hook());
  }
  if ((await received()) - before !== RUNS) throw new Error(`voxd received ${(await received()) - before} of ${RUNS} hook requests`);
  const ratio = median(hooks) / median(node);
  report({
    bench: 'hook',
    event: 'Notification',
    fixture: 'notification-permission.json',
    runs: RUNS,
    nodeMedianMs: round(median(node)),
    hookMedianMs: round(median(hooks)),
    hookP90Ms: round(percentile(hooks, 90)),
    ratio: round(ratio),
    budget: BUDGET,
    withinBudget: ratio <= BUDGET,
  });
} finally {
  await d.stop();
}
