#!/usr/bin/env node
// What the plugin's SessionStart command hook costs (issue 19 item 5). Claude
// Code runs a command hook with /bin/sh -c and the payload on stdin. The
// plugin's command starts with a shell gate (QUIET_GATE, hooks/shell-gate.ts)
// that exits unless the nearest .vox/config.md sets notify: chatty (or
// continuous), where alone SessionStart and SessionEnd say anything. Timed, interleaved, medians
// of BENCH_RUNS (default 40) each, clean environment, SessionStart payload on
// stdin, against a warm voxd (null sink):
// - `node -e 0` and `sh -c true`: the baselines (a Node process doing nothing;
//   a shell doing nothing, the least any command hook costs);
// - `gated, quiet`: the plugin's command in a notify: normal project;
// - `ungated, quiet`: the command before the gate (node and vox every time);
// - `gated, continuous`: the plugin's command where it speaks (gate + node).
// Prints one JSON line. Needs `npm run build` first.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT, interleave, median, percentile, report, round, startVoxd, timeRun } from './lib.mjs';

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 40));
const hooks = JSON.parse(readFileSync(join(ROOT, 'plugin', 'hooks', 'hooks.json'), 'utf8')).hooks;
const gated = hooks.SessionStart[0].hooks[0].command;
const ungated = 'node "${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs" hook SessionStart';
if (!gated.endsWith(ungated))
  throw new Error(`hooks.json's SessionStart command is not the gate before ${ungated}: ${gated}`);
const payload = readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', 'session-start.json'), 'utf8');

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-session-'));
const project = (name, frontMatter) => {
  const p = join(dir, name);
  mkdirSync(join(p, '.vox'), { recursive: true });
  writeFileSync(join(p, '.vox', 'config.md'), `---\n${frontMatter}\n---\n`);
  return p;
};
const quiet = project('quiet', 'notify: normal');
const loud = project('loud', 'notify: continuous');

const d = await startVoxd({ audio: 'null' });
try {
  const env = {
    ...d.clientEnv,
    VOX_NO_AUTOSTART: '1',
    CLAUDE_PLUGIN_ROOT: join(ROOT, 'plugin'),
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
  };
  const sh = (command, cwd) => () =>
    timeRun('/bin/sh', ['-c', command], { env, cwd, input: payload, quietStderr: true });
  const variants = {
    'node -e 0': () => timeRun(process.execPath, ['-e', '0'], { env, input: payload }),
    'sh -c true': sh('true', quiet),
    'gated, quiet': sh(gated, quiet),
    'ungated, quiet': sh(ungated, quiet),
    'gated, continuous': sh(gated, loud),
  };
  const times = interleave(variants, RUNS);
  const m = (n) => median(times[n]);
  const figures = {};
  for (const n of Object.keys(variants)) {
    figures[n] = {
      medianMs: round(m(n)),
      p90Ms: round(percentile(times[n], 90)),
      ratioToNode: round(m(n) / m('node -e 0')),
    };
  }
  report({
    bench: 'session-hook',
    runs: RUNS,
    ...figures,
    savedPerQuietHookMs: round(m('ungated, quiet') - m('gated, quiet')),
  });
} finally {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
}
