#!/usr/bin/env node
// Budget (issue 12): `vox hook Notification` with the permission-prompt
// fixture on stdin, against a warm voxd (null sink), wall time, at most 1.15x
// the node:http floor (bench/floor.cjs reading the same stdin and POSTing the
// request the hook sends to the same voxd), with a clean environment; also
// reported against `node -e 0`. All three are interleaved; medians of
// BENCH_RUNS (default 60) each. `npm run bench` runs it on every Node line.
// Prints one JSON line. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, VOX, baselines, interleave, report, startVoxd, startupFigures, timeRun } from './lib.mjs';

const RUNS = Math.max(20, Number(process.env.BENCH_RUNS ?? 60));
const BUDGET = 1.15;
const FIXTURE = 'notification-permission.json';
const payload = readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', FIXTURE), 'utf8');

const d = await startVoxd({ audio: 'null' });
try {
  const env = { ...d.clientEnv, VOX_NO_AUTOSTART: '1' };
  // The request the hook sends, from its own --dry-run, for the floor to send too.
  const dry = spawnSync(process.execPath, [VOX, 'hook', 'Notification', '--dry-run'], {
    env,
    input: payload,
    encoding: 'utf8',
  });
  const { route, body } = JSON.parse(dry.stdout);
  const hook = () =>
    timeRun(process.execPath, [VOX, 'hook', 'Notification'], { env, input: payload, quietStderr: true });
  // Warm the daemon's engine and the file system cache.
  for (let i = 0; i < 3; i++) hook();
  const received = async () => {
    const c = (await d.api('GET', '/v1/status')).body.counters;
    return c.accepted + c.deduped + c.dropped;
  };
  const before = await received();
  const WARMUP = 2;
  const times = interleave({ ...baselines({ env, route, body, stdin: payload }), 'vox hook': hook }, RUNS, WARMUP);
  // Every hook run and every floor run reached voxd.
  const got = (await received()) - before;
  if (got !== 2 * (WARMUP + RUNS)) throw new Error(`voxd received ${got} of ${2 * (WARMUP + RUNS)} requests`);
  report({ bench: 'hook', event: 'Notification', fixture: FIXTURE, ...startupFigures(times, 'vox hook', BUDGET) });
} finally {
  await d.stop();
}
