/**
 * The runner's per-test timeout (scripts/test.mjs, VOX_TEST_TIMEOUT_MS), for
 * real: a test that never calls back fails with a timeout, the test after it
 * still runs, and the run ends, failing. If the timeout did not work, this
 * test would hang and the outer run's own timeout would fail it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers/daemon.js';

function runner(args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; out: string }> {
  // A run of its own: without NODE_TEST_CONTEXT, which tells node --test it is nested in a test file.
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [join(ROOT, 'scripts/test.mjs'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((r) => child.once('close', (code) => r({ code, out })));
}

// Node 22's --test-timeout times whole files, so the runner gives files 20 min there (scripts/test.mjs).
const perTest = Number(process.versions.node.split('.')[0]) >= 23;

test('a test that never calls back fails with a timeout, and the run goes on and ends', { skip: perTest ? false : `Node ${process.versions.node} times whole test files, not tests` }, async () => {
  const { code, out } = await runner(['test/fixtures/test-timeout/hangs.test.ts'], { VOX_TEST_TIMEOUT_MS: '1000' });
  assert.notEqual(code, 0, out);
  assert.match(out, /timeout 1000 ms a test;/);
  // TAP (node 20) or the spec reporter (node 22 and later).
  assert.match(out, /(?:not ok \d+ - |✖ )never calls back, on purpose/);
  assert.match(out, /test timed out after 1000ms/);
  assert.match(out, /(?:^ok \d+ - |✔ )the test after it still runs/m);
  assert.match(out, /leak check: no process or temp directory of this run remains/);
});

test('VOX_TEST_TIMEOUT_MS that is not a number of milliseconds is refused', async () => {
  const { code, out } = await runner(['test/fixtures/test-timeout/hangs.test.ts'], { VOX_TEST_TIMEOUT_MS: '2m' });
  assert.equal(code, 1, out);
  assert.match(out, /VOX_TEST_TIMEOUT_MS must be a whole number of milliseconds \(0: no timeout\), not "2m"/);
});
