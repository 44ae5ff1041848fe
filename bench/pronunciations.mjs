#!/usr/bin/env node
// Budget (issue 23): `vox hook Notification` in a project whose
// .vox/config.md holds the largest pronunciations table the caps allow
// (PRONUNCIATION_LIMITS: every row used, the characters shared out, every
// word a phrase), at most 1.2x the same hook in a project with no table, in
// the same run, against the same warm voxd (null sink), with a clean
// environment. The two are interleaved with `node -e 0`; medians of
// BENCH_RUNS (default 40) each. Two more variants, a 20,000-character
// message (the longest voxd takes) with the largest table and with none,
// show the matching's cost on a long text (reported, no budget). Prints one JSON line. Needs `npm run build` first.
// BENCH_VOX=another/build/bin/vox.cjs measures another build (before the
// matcher: BENCH_LIMITS=issue gives the table, 440 rows of 60-word
// phrases, which the caps now refuse; with BENCH_LONG=0).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, VOX, interleave, median, percentile, report, round, startVoxd, timeRun } from './lib.mjs';

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 40));
const BUDGET = 1.2;
const { PRONUNCIATION_LIMITS: L } = await import(join(ROOT, 'packages/vox-mcp/dist/project/config-schema.js'));
const fixture = JSON.parse(
  readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', 'notification-permission.json'), 'utf8'),
);

function largest() {
  if (process.env.BENCH_LIMITS === 'issue') {
    return Array.from(
      { length: 440 },
      (_, r) =>
        `| x${r} ${Array.from({ length: 60 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(r * 7 + i) % 26]).join(' ')} | y |`,
    );
  }
  const per = Math.floor(L.chars / L.rows);
  const rows = [];
  for (let r = 0; r < L.rows; r++) {
    const word = `zq${r} ${'alpha beta gamma delta '.repeat(8)}`.slice(0, Math.min(L.wordChars, per - 2)).trim();
    rows.push(`| ${word} | ${'s'.repeat(per - word.length)} |`);
  }
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-pron-'));
const project = (name, rows) => {
  const p = join(dir, name);
  mkdirSync(join(p, '.vox'), { recursive: true });
  const table = rows.length ? `\n## Pronunciations\n\n| word | say as |\n| --- | --- |\n${rows.join('\n')}\n` : '';
  writeFileSync(join(p, '.vox', 'config.md'), `---\nrate: 200\n---\n${table}`);
  return p;
};
const none = project('none', []);
const big = project('largest', largest());
const payload = (cwd, message = fixture.message) => JSON.stringify({ ...fixture, cwd, message });
const longMessage = `Claude needs your permission to use Bash. ${'alpha beta gamma delta '.repeat(900)}`.slice(
  0,
  20_000,
);

const d = await startVoxd({ audio: 'null' });
try {
  const env = { ...d.clientEnv, VOX_NO_AUTOSTART: '1' };
  const hook = (input) => () =>
    timeRun(process.execPath, [VOX, 'hook', 'Notification'], { env, input, quietStderr: true });
  const variants = {
    'node -e 0': () => timeRun(process.execPath, ['-e', '0'], { env }),
    'hook, no table': hook(payload(none)),
    'hook, largest table': hook(payload(big)),
    // BENCH_LONG=0 leaves it out (a build before the matcher takes ~40 s a run).
    ...(process.env.BENCH_LONG === '0'
      ? {}
      : {
          'hook, no table, 20,000 chars': hook(payload(none, longMessage)),
          'hook, largest table, 20,000 chars': hook(payload(big, longMessage)),
        }),
  };
  // Warm the daemon, the code cache and the file system cache.
  for (let i = 0; i < 3; i++) for (const v of Object.values(variants)) v();
  const times = interleave(variants, RUNS, 2);
  const m = (n) => median(times[n]);
  const paired = times['hook, largest table'].map((t, i) => t / times['hook, no table'][i]);
  const ratio = m('hook, largest table') / m('hook, no table');
  report({
    bench: 'pronunciations',
    table:
      process.env.BENCH_LIMITS === 'issue'
        ? '440 rows of 60-word phrases'
        : `largest allowed (${L.rows} rows, ${L.chars} characters)`,
    tableBytes: readFileSync(join(big, '.vox', 'config.md')).length,
    runs: RUNS,
    nodeMedianMs: round(m('node -e 0')),
    noTableMedianMs: round(m('hook, no table')),
    largestMedianMs: round(m('hook, largest table')),
    largestP90Ms: round(percentile(times['hook, largest table'], 90)),
    largestLongTextMedianMs: times['hook, largest table, 20,000 chars']
      ? round(m('hook, largest table, 20,000 chars'))
      : undefined,
    ratioToNoTable: round(ratio),
    pairedRatioToNoTable: round(median(paired)),
    pairedRatioIqr: [round(percentile(paired, 25)), round(percentile(paired, 75))],
    noTableLongTextMedianMs: times['hook, no table, 20,000 chars']
      ? round(m('hook, no table, 20,000 chars'))
      : undefined,
    // The matching's share of a long message: the same 20,000 characters with the table and without.
    longTextRatio: times['hook, largest table, 20,000 chars']
      ? round(m('hook, largest table, 20,000 chars') / m('hook, no table, 20,000 chars'))
      : undefined,
    budget: BUDGET,
    withinBudget: ratio <= BUDGET,
  });
} finally {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
}
