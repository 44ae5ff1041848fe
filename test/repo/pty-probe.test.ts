/**
 * The `script` probe of test/helpers/tools.ts: script(1) on PATH is not enough,
 * it must open a pseudo-terminal; a sandbox without /dev/pts has the program
 * and fails every run. Fake `script` programs stand for each case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, tempDir } from '../helpers/daemon.js';
import { ptyProbe } from '../helpers/tools.js';

function fakeScript(body: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('vox-pty-probe-');
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'script'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'bin', 'script'), 0o755);
  return { dir, env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin` } };
}

test('script that cannot open a pseudo-terminal: a reason that says so, with its own words', () => {
  const f = fakeScript("echo 'script: failed to create pseudo-terminal: Permission denied' >&2; exit 1");
  try {
    const why = ptyProbe(f.env);
    assert.equal(
      why,
      'script is on PATH but cannot open a pseudo-terminal here (script: failed to create pseudo-terminal: Permission denied)',
    );
  } finally {
    removeDir(f.dir);
  }
});

test('script that runs its command: usable; no script at all: not on PATH', () => {
  const f = fakeScript('exit 0');
  try {
    assert.equal(ptyProbe(f.env), undefined);
    assert.equal(ptyProbe({ PATH: join(f.dir, 'nothing') }), 'script is not on PATH');
  } finally {
    removeDir(f.dir);
  }
});
