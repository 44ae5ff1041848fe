/**
 * The runner's leak check (scripts/test.mjs), for real: it runs a test file
 * that fails after leaking a detached process and a temp directory. The run
 * must report the failure and both leaks, exit non-zero, and leave nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';

/** Alive and not a zombie (an init that does not reap would keep the pid). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test(
  'a failed run that leaked a process and a temp directory is reported, cleaned up and fails',
  { skip: !existsSync('/proc/self/environ') && 'needs /proc' },
  async () => {
    // A run of its own: without NODE_TEST_CONTEXT, which tells node --test it is nested in a test file.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, [join(ROOT, 'scripts/test.mjs'), 'test/fixtures/leak-check/leaky.test.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((r) => child.once('close', r));
    assert.notEqual(code, 0, out);
    // TAP (node 20) or the spec reporter (node 22 and later).
    assert.match(out, /(?:not ok \d+ - |✖ )leaks a process and a temp directory, then fails on purpose/);
    const leaked = /leaky: pid (\d+) dir (\S+)/.exec(out);
    assert.ok(leaked, `the fixture said what it leaked:\n${out}`);
    const [, pid, dir] = leaked;
    const runTmp = /TMPDIR=(\S+)\)/.exec(out)?.[1];
    assert.ok(runTmp && dir!.startsWith(runTmp), `the leaked dir ${dir} is in the run's TMPDIR ${runTmp}`);
    assert.match(
      out,
      new RegExp(
        `leak check: 1 process\\(es\\) started by this run were still alive \\(killed now\\):\\n  pid ${pid}: `,
      ),
    );
    assert.match(out, /leak check: the run left 1 temp entry in .* \(removed now\):\n  vox-leaky-/);
    assert.equal(running(Number(pid)), false, `pid ${pid} is gone`);
    assert.equal(existsSync(dir!), false, `${dir} is gone`);
    assert.equal(existsSync(runTmp!), false, `${runTmp} is gone`);
  },
);
