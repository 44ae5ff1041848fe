#!/usr/bin/env node
// What the remote link (docs/remote.md) costs a client that has none: this
// build against an older one (BENCH_BEFORE: a packages/vox-mcp directory with
// bin/ and dist/ of that build, whose dist resolves @vox/protocol, e.g. a copy
// with node_modules linked beside it), in the same run.
// 1. In process: resolveEndpoint() of each build, for a local client (voxd.json
//    and token in VOX_HOME, no remote.json) and for a linked one (remote.json
//    only), BENCH_BLOCKS blocks of BENCH_CALLS calls, alternated; median µs per call.
// 2. Whole runs: `vox say` and `vox hook Notification` of each build against
//    one warm voxd (null sink), with the node:http floor, interleaved;
//    medians of BENCH_RUNS, ratios to the floor and before/after.
// Prints one JSON line. Needs `npm run build`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, baselines, interleave, median, percentile, report, round, startVoxd, timeRun } from './lib.mjs';

const BEFORE = process.env.BENCH_BEFORE;
if (!BEFORE) throw new Error('set BENCH_BEFORE to the packages/vox-mcp directory of the build to compare with');
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
// Many short blocks, alternated: on a loaded machine the median of the blocks is what holds still.
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 200);
const builds = { before: BEFORE, after: join(ROOT, 'packages/vox-mcp') };

// 1. resolveEndpoint in process.
const http = {};
// resolveEndpoint is in dist/client/endpoint.js since the call became layers; older builds have it in dist/daemon/http.js.
for (const [name, dir] of Object.entries(builds))
  http[name] = await import(
    join(dir, existsSync(join(dir, 'dist/client/endpoint.js')) ? 'dist/client/endpoint.js' : 'dist/daemon/http.js')
  );
const home = mkdtempSync(join(tmpdir(), 'vox-bench-hotpath-'));
const local = join(home, 'local');
const linked = join(home, 'linked');
mkdirSync(local);
mkdirSync(linked);
// A real voxd's state file and token (2. times that voxd).
const d = await startVoxd({ audio: 'null' });
writeFileSync(join(local, 'voxd.json'), readFileSync(join(d.home, 'voxd.json')));
writeFileSync(join(local, 'token'), readFileSync(join(d.home, 'token')), { mode: 0o600 });
writeFileSync(
  join(linked, 'remote.json'),
  JSON.stringify({
    host: 'A',
    socket: join(linked, 'remote.sock'),
    token: 'abcdefghijklmnopqrstuvwxyz012345',
    version: '0.1.0',
    as: 'B',
  }),
  { mode: 0o600 },
);
const perCall = { before: { local: [], linked: [] }, after: { local: [], linked: [] } };
for (let block = 0; block < BLOCKS + 2; block++) {
  for (const name of block % 2 ? ['after', 'before'] : ['before', 'after']) {
    for (const [kind, dir] of [
      ['local', local],
      ['linked', linked],
    ]) {
      const env = { VOX_HOME: dir };
      const t = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++)
        if (!http[name].resolveEndpoint(env)) throw new Error(`${name} ${kind}: no endpoint`);
      if (block >= 2) perCall[name][kind].push(Number(process.hrtime.bigint() - t) / 1e3 / CALLS);
    }
  }
}
const us = (xs) => round(median(xs), 2);

// 2. Whole runs.
const payload = readFileSync(join(ROOT, 'test/fixtures/hooks/notification-permission.json'), 'utf8');
let whole;
try {
  const env = { ...d.clientEnv, VOX_NO_AUTOSTART: '1' };
  const vox = (name) => join(builds[name], 'bin/vox.cjs');
  const dry = JSON.parse(
    spawnSync(process.execPath, [vox('after'), 'hook', 'Notification', '--dry-run'], {
      env,
      input: payload,
      encoding: 'utf8',
    }).stdout,
  );
  const variants = {
    ...baselines({
      env,
      route: '/v1/speak',
      body: { text: 'Build finished', session: 'bench#floor0', priority: 'message', once: 5, rate: 175, volume: 1 },
    }),
  };
  for (const name of Object.keys(builds)) {
    variants[`say ${name}`] = () =>
      timeRun(process.execPath, [vox(name), 'say', 'Build finished'], { env, quietStderr: true });
    variants[`hook ${name}`] = () =>
      timeRun(process.execPath, [vox(name), 'hook', 'Notification'], { env, input: payload, quietStderr: true });
  }
  for (const name of Object.keys(builds)) timeRun(process.execPath, [vox(name), 'say', 'warm up'], { env });
  const times = interleave(variants, RUNS, 3);
  const m = (n) => median(times[n]);
  const paired = (a, b) => round(median(times[a].map((t, i) => t / times[b][i])), 3);
  whole = {
    runs: RUNS,
    floorMedianMs: round(m('node:http floor')),
    ...Object.fromEntries(
      ['say', 'hook'].flatMap((c) => [
        [`${c}BeforeMedianMs`, round(m(`${c} before`))],
        [`${c}AfterMedianMs`, round(m(`${c} after`))],
        [`${c}AfterP90Ms`, round(percentile(times[`${c} after`], 90))],
        [`${c}BeforeRatioToFloor`, round(m(`${c} before`) / m('node:http floor'))],
        [`${c}AfterRatioToFloor`, round(m(`${c} after`) / m('node:http floor'))],
        [`${c}PairedAfterToBefore`, paired(`${c} after`, `${c} before`)],
      ]),
    ),
    hookRoute: dry.route,
  };
} finally {
  await d.stop();
  rmSync(home, { recursive: true, force: true });
}
report({
  bench: 'remote-hotpath',
  resolveEndpointUs: {
    localBefore: us(perCall.before.local),
    localAfter: us(perCall.after.local),
    linkedBefore: us(perCall.before.linked),
    linkedAfter: us(perCall.after.linked),
    calls: CALLS,
    blocks: perCall.after.local.length,
  },
  ...whole,
});
