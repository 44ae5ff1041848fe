/**
 * The test runner (scripts/test.mjs), for real.
 * - Its per-test timeout (VOX_TEST_TIMEOUT_MS): a test that never calls back
 *   fails with a timeout, the test after it still runs, and the run ends,
 *   failing. If the timeout did not work, this test would hang and the outer
 *   run's own timeout would fail it.
 * - Its summary of failed tests (VOX_TEST_FAILURES), which CI prints last.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/daemon.js';

function runner(args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; out: string }> {
  // A run of its own: without NODE_TEST_CONTEXT, which tells node --test it is nested in a test file.
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [join(ROOT, 'scripts/test.mjs'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((r) => child.once('close', (code) => r({ code, out })));
}

// Node 22's --test-timeout times whole files, so the runner gives files 20 min there (scripts/test.mjs).
const perTest = Number(process.versions.node.split('.')[0]) >= 23;

test(
  'a test that never calls back fails with a timeout, and the run goes on and ends',
  { skip: perTest ? false : `Node ${process.versions.node} times whole test files, not tests` },
  async () => {
    const { code, out } = await runner(['test/fixtures/test-runner/hangs.test.ts'], { VOX_TEST_TIMEOUT_MS: '1000' });
    assert.notEqual(code, 0, out);
    assert.match(out, /timeout 1000 ms a test;/);
    // TAP (node 20) or the spec reporter (node 22 and later).
    assert.match(out, /(?:not ok \d+ - |✖ )never calls back, on purpose/);
    assert.match(out, /test timed out after 1000ms/);
    assert.match(out, /(?:^ok \d+ - |✔ )the test after it still runs/m);
    assert.match(out, /leak check: no process or temp directory of this run remains/);
  },
);

test('VOX_TEST_TIMEOUT_MS that is not a number of milliseconds is refused', async () => {
  const { code, out } = await runner(['test/fixtures/test-runner/hangs.test.ts'], { VOX_TEST_TIMEOUT_MS: '2m' });
  assert.equal(code, 1, out);
  assert.match(out, /VOX_TEST_TIMEOUT_MS must be a whole number of milliseconds \(0: no timeout\), not "2m"/);
});

test('VOX_TEST_FAILURES gets the failed tests alone: where, the suite, the error; the full report still goes to stdout', async () => {
  const dir = tempDir('vox-failures-');
  const file = join(dir, 'failures.txt');
  const { code, out } = await runner(['test/fixtures/test-runner/fails.test.ts'], { VOX_TEST_FAILURES: file });
  assert.notEqual(code, 0, out);
  assert.match(out, /✔ passes too, and sees no VOX_TEST_FAILURES/);
  assert.match(out, /✖ throws, on purpose/);
  const summary = readFileSync(file, 'utf8');
  const heads = summary.split('\n').filter((l) => l.startsWith('✖'));
  assert.deepEqual(
    heads.map((l) => l.replace(/ \(\d+ ms\)$/, '')),
    [
      '✖ test/fixtures/test-runner/fails.test.ts: a suite › fails an assertion, on purpose',
      '✖ test/fixtures/test-runner/fails.test.ts: throws, on purpose',
    ],
    summary,
  );
  assert.match(summary, /arithmetic, on purpose/);
  assert.match(summary, /Error: thrown on purpose/);
  assert.doesNotMatch(summary, /passes/);
});
