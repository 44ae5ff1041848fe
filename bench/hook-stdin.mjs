#!/usr/bin/env node
// Budget (hardening, round three): `vox hook Notification` ends within 2.5 s
// and a peak RSS of 100 MB whatever its stdin holds: huge, deeply nested,
// endless, never closed, binary (src/cli/hook-payload.ts). Each hostile input
// is written to the hook's stdin as it runs (an endless writer writes until the
// hook exits); each run is killed after BENCH_KILL_MS (default 30000) and
// counted as such. Wall time and peak RSS (bench/max-rss.cjs, preloaded) per
// input, medians of BENCH_RUNS (default 3) interleaved runs, with `node -e 0`
// (the same preload, the normal payload on stdin) as the baseline of both, in
// the same run. No voxd: VOX_NO_AUTOSTART=1, so an accepted payload costs one
// refused connection. BENCH_VOX names another build to compare (an older one).
// Prints one JSON line per input. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, VOX, cleanEnv, median, report, round } from './lib.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const KILL_MS = Math.max(1000, Number(process.env.BENCH_KILL_MS ?? 30_000));
const BUDGET_MS = 2500;
const BUDGET_RSS_MB = 100;
const PROBE = join(ROOT, 'bench/max-rss.cjs');
const normal = readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', 'notification-permission.json'));
const MB = 1024 * 1024;

/** A writer that writes `head`, then `chunk` `times` times (forever when Infinity), then ends unless `open`. */
const stream = (head, chunk = '', times = 0, { open = false, everyMs = 0 } = {}) => ({
  head,
  chunk,
  times,
  open,
  everyMs,
});
const deep = 400_000;
const inputs = {
  'normal payload (1 KB)': stream(normal),
  '3,000,000 [': stream('[', '[', 2_999_999),
  '500,000 {"a":': stream('{"a":', '{"a":', 499_999),
  [`valid, nested ${deep} deep (800 KB)`]: stream(
    `{"hook_event_name":"Notification","a":${'['.repeat(deep)}${']'.repeat(deep)}}`,
  ),
  '100 MB (one string)': stream('{"a":"', 'x'.repeat(MB), 100),
  'endless, fast (never closed)': stream('{"a":"', 'x'.repeat(64 * 1024), Infinity, { open: true }),
  'never closed, half an object': stream('{"hook_event_name":"Notification",', '', 0, { open: true }),
  'trickle: a space every 50 ms': stream('{"a":', ' ', Infinity, { open: true, everyMs: 50 }),
  'binary (1 MB random)': stream(Buffer.concat([Buffer.from([0]), randomBytes(MB - 1)])),
  '4 MiB of {} in one array': stream(`{"a":[${'{},'.repeat((4 * MB) / 3 - 10)}{}]}`),
  // The largest payloads taken: they are parsed and handled.
  'accepted: a 4 MiB string': stream(`{"hook_event_name":"Notification","message":"${'x'.repeat(4 * MB - 100)}"}`),
  'accepted: 99,000 values': stream(`{"hook_event_name":"Notification","a":[${'{},'.repeat(49_000)}{}]}`),
};

const home = mkdtempSync(join(tmpdir(), 'vox-bench-stdin-'));
const env = cleanEnv({ VOX_HOME: home, VOX_NO_AUTOSTART: '1' });

/** One run: wall ms, peak RSS in MB (undefined when killed), exit code, stderr's first line. */
function runOnce(args, input) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-r', PROBE, ...args], { env, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let rss = '';
    let done = false;
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdio[3].setEncoding('utf8').on('data', (d) => (rss += d));
    child.stdin.on('error', () => undefined); // EPIPE once the hook stopped reading
    const kill = setTimeout(() => child.kill('SIGKILL'), KILL_MS);
    child.on('close', (code, signal) => {
      done = true;
      clearTimeout(kill);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      resolve({ ms, rssMb: rss ? Number(rss) / 1024 : undefined, code, signal, stderr: stderr.split('\n')[0] });
    });
    // Writes with backpressure, until the input is written or the hook has exited.
    (async () => {
      const w = (data) => (child.stdin.write(data) ? undefined : new Promise((r) => child.stdin.once('drain', r)));
      try {
        await w(input.head);
        for (let i = 0; i < input.times && !done && child.stdin.writable; i++) {
          if (input.everyMs) await new Promise((r) => setTimeout(r, input.everyMs));
          await w(input.chunk);
        }
        if (!input.open) child.stdin.end();
      } catch {
        // the hook closed its stdin
      }
    })();
  });
}

const variants = {
  'node -e 0': () => runOnce(['-e', '0'], stream(normal)),
  ...Object.fromEntries(
    Object.entries(inputs).map(([name, input]) => [name, () => runOnce([VOX, 'hook', 'Notification'], input)]),
  ),
};
const results = Object.fromEntries(Object.keys(variants).map((n) => [n, []]));
try {
  const names = Object.keys(variants);
  for (let round_ = 0; round_ < RUNS; round_++)
    for (let j = 0; j < names.length; j++) {
      const name = names[(round_ + j) % names.length];
      results[name].push(await variants[name]());
    }
} finally {
  rmSync(home, { recursive: true, force: true });
}
const node = results['node -e 0'];
const nodeMs = median(node.map((r) => r.ms));
const nodeRss = median(node.map((r) => r.rssMb));
for (const [name, runs] of Object.entries(results)) {
  if (name === 'node -e 0') continue;
  const ms = runs.map((r) => r.ms);
  const rss = runs.filter((r) => r.rssMb !== undefined).map((r) => r.rssMb);
  const killed = runs.filter((r) => r.signal === 'SIGKILL').length;
  report({
    bench: 'hook-stdin',
    input: name,
    vox: VOX,
    runs: runs.length,
    killedAfterMs: killed ? KILL_MS : undefined,
    killed,
    medianMs: round(median(ms)),
    maxMs: round(Math.max(...ms)),
    nodeMedianMs: round(nodeMs),
    ratioToNode: round(median(ms) / nodeMs),
    maxRssMb: rss.length ? round(Math.max(...rss), 1) : null,
    nodeRssMb: round(nodeRss, 1),
    rssRatioToNode: rss.length ? round(Math.max(...rss) / nodeRss) : null,
    withinBudget:
      !killed && Math.max(...ms) <= BUDGET_MS && rss.length === runs.length && Math.max(...rss) <= BUDGET_RSS_MB,
    exitCodes: [...new Set(runs.map((r) => r.code ?? r.signal))],
    // JSON escapes any control character the hook would have printed.
    stderr: runs[0].stderr.slice(0, 160),
  });
}
