/** needTool: a skip reason on a developer's machine, a failure under CI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, tempDir } from './daemon.js';
import { inCI, needTool, toolPath } from './tools.js';

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

test('a missing tool gives a one-line reason that names it and how to install it', () => {
  const why = withEnv({ CI: undefined }, () => needTool('vox-test-no-such-tool'));
  assert.equal(typeof why, 'string');
  assert.match(why as string, /^needs vox-test-no-such-tool: vox-test-no-such-tool is not on PATH \(install vox-test-no-such-tool\)$/);
  const aplay = withEnv({ CI: undefined, PATH: '/nonexistent' }, () => needTool('aplay'));
  assert.ok(aplay === false || /apt-get install alsa-utils/.test(aplay), String(aplay));
});

test('under CI a missing tool throws, naming it', () => {
  assert.throws(() => withEnv({ CI: 'true' }, () => needTool('vox-test-no-such-tool')), /CI=true, and this test needs vox-test-no-such-tool/);
});

test('a program on PATH is found, and toolPath gives its path', () => {
  const dir = tempDir('vox-tools-test-');
  try {
    const bin = join(dir, 'vox-test-tool');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    withEnv({ PATH: dir, CI: 'true' }, () => {
      assert.equal(needTool('vox-test-tool'), false);
      assert.equal(toolPath('vox-test-tool'), bin);
    });
  } finally {
    removeDir(dir);
  }
});

test('CI counts as set unless empty, 0 or false', () => {
  assert.equal(inCI({ CI: 'true' }), true);
  assert.equal(inCI({ CI: '1' }), true);
  assert.equal(inCI({ CI: 'false' }), false);
  assert.equal(inCI({ CI: '0' }), false);
  assert.equal(inCI({}), false);
});
