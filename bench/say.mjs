#!/usr/bin/env node
// Budget (issue 12): `vox say "Build finished"` against a warm voxd (null sink),
// wall time, at most 1.15x the node:http floor (bench/floor.cjs POSTing the
// same /v1/speak request to the same voxd), with a clean environment; also
// reported against `node -e 0`. All three are interleaved so they see the same
// noise; medians of BENCH_RUNS (default 60) each. `npm run bench` runs it on
// every Node line (bench/run.mjs). Prints one JSON line. Needs `npm run build`.
import { VOX, baselines, interleave, report, startVoxd, startupFigures, timeRun } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const BUDGET = 1.15;
const TEXT = 'Build finished';

const d = await startVoxd();
try {
  timeRun(process.execPath, [VOX, 'say', '--wait', 'warm up'], { env: d.clientEnv });
  // What vox say sends for TEXT with no project config (docs/protocol.md). vox and the floor get a
  // client's environment (VOX_HOME, not voxd's VOXD_AUDIO or VOXD_ENGINE), as a hook has it.
  const body = { text: TEXT, session: 'bench#floor0', priority: 'message', once: 5, rate: 175, volume: 1 };
  const times = interleave(
    {
      ...baselines({ env: d.clientEnv, route: '/v1/speak', body }),
      'vox say': () => timeRun(process.execPath, [VOX, 'say', TEXT], { env: d.clientEnv, quietStderr: true }),
    },
    RUNS,
  );
  report({ bench: 'say', ...startupFigures(times, 'vox say', BUDGET) });
} finally {
  await d.stop();
}
