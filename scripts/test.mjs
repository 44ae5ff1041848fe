#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with node:test, through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
//
// `node scripts/test.mjs [SUBSTRING...]` runs the files whose path contains any
// SUBSTRING (after `npm run build`); an argument that is a *.test.ts file runs
// that file, even one under a fixtures directory. VOX_TEST_FAILURES=FILE also
// writes the failed tests alone to FILE (scripts/test-failures.mjs).
//
// Timeout: each test fails after 120 s (VOX_TEST_TIMEOUT_MS overrides, in ms; on
// Node 22, whose flag times whole files, each file after 20 min;
// 0 turns it off, e.g. under a debugger), so a test that never calls back
// fails instead of holding the run. The slowest tests take about 25 s on a
// loaded 2-core machine; a test that needs longer says so with its own
// `{ timeout }`, which wins. scripts/test-file-exit.mjs then ends a test file
// whose timed-out test left a handle open (a server, a child's pipe, a timer),
// 30 s after its last test, as it would otherwise never exit (not
// --test-force-exit, which loses results: see that file); its leftover
// processes are still the leak check's to find.
//
// Leak check: the run gets its own TMPDIR (a fresh directory) and a unique
// VOX_TEST_RUN marker that every child inherits. Afterwards, any process that
// still carries the marker (or names the run's TMPDIR in its environment or
// command line, for children started with a reduced environment) is reported
// and killed, and anything left in TMPDIR is reported and removed. Either
// fails the run. Other suites running on the machine have other markers.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const roots = [
  join(root, 'test'),
  ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'test')),
];
let files = roots.flatMap((d) => walk(d, [])).sort();
if (filters.length) {
  const named = filters.filter((x) => x.endsWith('.test.ts') && existsSync(x)).map((x) => resolve(x));
  files = [...new Set([...files.filter((f) => filters.some((x) => f.includes(x))), ...named])].sort();
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const DEFAULT_TIMEOUT_MS = 120_000;
const timeoutText = process.env.VOX_TEST_TIMEOUT_MS ?? String(DEFAULT_TIMEOUT_MS);
// Test files at once: most of a file's time is waiting (real-time audio, timeouts, child processes), not CPU.
const concurrency = Number(process.env.VOX_TEST_CONCURRENCY ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `VOX_TEST_CONCURRENCY must be a whole number of test files at once (1 or more), not "${process.env.VOX_TEST_CONCURRENCY}"`,
  );
  process.exit(2);
}
if (!/^\d+$/.test(timeoutText)) {
  console.error(`VOX_TEST_TIMEOUT_MS must be a whole number of milliseconds (0: no timeout), not "${timeoutText}"`);
  process.exit(1);
}
const timeoutMs = Number(timeoutText);
// Node 22's --test-timeout also times each test file as a whole (from 23 on, only each test), so there it
// would fail a file whose tests together take longer than one may (journal.e2e takes over 2 min). On 22 the
// flag gets FILE_TIMEOUT_MS instead: a test that hangs still fails the run, only later.
const FILE_TIMEOUT_MS = 20 * 60_000;
const perTest = Number(process.versions.node.split('.')[0]) >= 23;
const flagMs = timeoutMs && !perTest ? Math.max(timeoutMs, FILE_TIMEOUT_MS) : timeoutMs;

/** The usual report on stdout, and with VOX_TEST_FAILURES=FILE the failed tests alone in FILE (for CI's summary). */
function reporters() {
  const file = process.env.VOX_TEST_FAILURES;
  if (!file) return [];
  return [
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-failures.mjs',
    `--test-reporter-destination=${resolve(file)}`,
  ];
}

function withoutFailuresFile(env) {
  const { VOX_TEST_FAILURES: _, ...rest } = env;
  return rest;
}

const runId = randomUUID();
const runTmp = mkdtempSync(join(tmpdir(), 'vox-test-run-'));
const pulseDir = join(runTmp, 'pulse');
mkdirSync(pulseDir, { mode: 0o700 });
const marker = `VOX_TEST_RUN=${runId}`;

console.log(
  `running ${files.length} test files (${!flagMs ? 'no timeout' : perTest ? `timeout ${flagMs} ms a test` : `timeout ${flagMs} ms a file, as Node ${process.versions.node} times files`}; VOX_TEST_RUN=${runId}, TMPDIR=${runTmp})`,
);
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './scripts/test-file-exit.mjs',
    '--test',
    `--test-concurrency=${concurrency}`,
    ...(flagMs ? [`--test-timeout=${flagMs}`] : []),
    ...reporters(),
    ...files.map((f) => relative(root, f)),
  ],
  {
    stdio: 'inherit',
    cwd: root,
    // tsx keeps its transform cache in TMPDIR, and vox its code caches in XDG_CACHE_HOME (here, not in
    // the user's ~/.cache); both are ours to clean, not leaks.
    // libpulse (which the system espeak-ng links) makes a runtime directory in TMPDIR on first use when
    // XDG_RUNTIME_DIR is unset, and keeps it for the user: PULSE_RUNTIME_PATH gives it one of the run's own.
    // VOX_TEST_FAILURES is this run's (its reporter writes the file): a run a test starts writes none there.
    env: {
      ...withoutFailuresFile(process.env),
      VOX_REPO_ROOT: root,
      VOX_TEST_RUN: runId,
      TMPDIR: runTmp,
      TMP: runTmp,
      TEMP: runTmp,
      XDG_CACHE_HOME: join(runTmp, 'cache'),
      PULSE_RUNTIME_PATH: pulseDir,
    },
  },
);
// Ctrl-C reaches the test runner through the terminal; the check below still runs.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
const status = await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));

const leaks = await checkLeaks();
process.exit(status !== 0 ? status : leaks ? 1 : 0);

/** Processes of this run still alive, and files left in its TMPDIR: report, kill, remove. */
async function checkLeaks() {
  // A child that was signalled just before the runner ended may still be exiting.
  let procs = ours();
  for (let i = 0; i < 40 && procs.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
    procs = ours();
  }
  for (const p of procs) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  // Other programs' caches, not vox's leaks: tsx's, and Node's default compile cache, which a program
  // that calls module.enableCompileCache() with no directory makes (tsc, the Copilot CLI; seen once in a
  // Node 22 run, from which test not known). vox passes a directory of its own (bin/vox.cjs).
  const OTHERS = new Set(['cache', 'pulse', 'node-compile-cache']);
  const left = readdirSync(runTmp).filter((name) => !/^tsx-\d+$/.test(name) && !OTHERS.has(name));
  rmSync(runTmp, { recursive: true, force: true });
  if (procs.length) {
    console.error(`\nleak check: ${procs.length} process(es) started by this run were still alive (killed now):`);
    for (const p of procs) console.error(`  pid ${p.pid}: ${p.cmd}`);
  }
  if (left.length) {
    console.error(
      `\nleak check: the run left ${left.length} temp entr${left.length === 1 ? 'y' : 'ies'} in ${runTmp} (removed now):`,
    );
    for (const name of left) console.error(`  ${name}`);
  }
  if (!procs.length && !left.length) console.log('leak check: no process or temp directory of this run remains');
  return procs.length > 0 || left.length > 0;
}

function ours() {
  const found = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return found; // no /proc (macOS): only the temp directory is checked
  }
  for (const pid of pids) {
    let environ;
    let cmdline;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    const env = environ.split('\0');
    if (env.includes(marker) || env.some((kv) => kv.includes(runTmp)) || cmdline.includes(runTmp)) {
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${pid}/exe`);
      } catch {
        // A zombie or kernel thread has none.
      }
      found.push({ pid: Number(pid), cmd: cmdline.split('\0').filter(Boolean).join(' ') || exe });
    }
  }
  return found;
}
