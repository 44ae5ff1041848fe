/** needTool: a skip reason on a developer's machine, a failure under CI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, tempDir } from './daemon.js';
import { absentOnPurpose, inCI, needTool, toolPath } from './tools.js';

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

test('a missing tool gives a one-line reason that names it and how to install it', () => {
  const why = withEnv({ CI: undefined }, () => needTool('vox-test-no-such-tool'));
  assert.equal(typeof why, 'string');
  assert.match(
    why as string,
    /^needs vox-test-no-such-tool: vox-test-no-such-tool is not on PATH \(install vox-test-no-such-tool\)$/,
  );
  const aplay = withEnv({ CI: undefined, PATH: '/nonexistent' }, () => needTool('aplay'));
  assert.ok(aplay === false || /apt-get install alsa-utils/.test(aplay), String(aplay));
});

test('under CI a missing tool throws, naming it', () => {
  assert.throws(
    () => withEnv({ CI: 'true' }, () => needTool('vox-test-no-such-tool')),
    /CI=true, and this test needs vox-test-no-such-tool/,
  );
});

test('VOX_TEST_ABSENT: a tool a run goes without on purpose skips even under CI, and must really be missing', () => {
  const why = withEnv({ CI: 'true', VOX_TEST_ABSENT: 'sherpa-onnx, vox-test-gone' }, () => needTool('vox-test-gone'));
  assert.match(String(why), /^needs vox-test-gone: vox-test-gone is not on PATH/);
  assert.deepEqual([...absentOnPurpose({ VOX_TEST_ABSENT: ' a,,b ' })], ['a', 'b']);
  const dir = tempDir('vox-tools-test-');
  try {
    const bin = join(dir, 'vox-test-there');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    assert.throws(
      () => withEnv({ PATH: dir, CI: 'true', VOX_TEST_ABSENT: 'vox-test-there' }, () => needTool('vox-test-there')),
      /VOX_TEST_ABSENT names vox-test-there, but vox-test-there is usable/,
    );
  } finally {
    removeDir(dir);
  }
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

test("every optional tool a test asks for is named in the README's paragraph on what npm test needs", async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { ROOT } = await import('./daemon.js');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist') continue;
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.test.ts')) files.push(join(dir, e.name));
    }
  };
  walk(join(ROOT, 'test'));
  for (const p of readdirSync(join(ROOT, 'packages'))) walk(join(ROOT, 'packages', p, 'test'));
  const names = new Set<string>();
  for (const f of files)
    for (const m of readFileSync(f, 'utf8').matchAll(/needTool\('([^']+)'\)/g))
      if (!m[1]!.startsWith('vox-test-')) names.add(m[1]!);
  assert.ok(names.has('aplay') && names.has('speaker'), [...names].join(', '));
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const para = readme.slice(
    readme.indexOf('`npm test` needs nothing beyond Node'),
    readme.indexOf('Run one test file'),
  );
  const shown = (n: string) => ({ libasound2: 'libasound.so.2', 'sherpa-onnx': 'sherpa-onnx-node' })[n] ?? n;
  for (const n of names)
    assert.ok(para.includes(`\`${shown(n)}\``), `README.md's paragraph on what npm test needs names \`${shown(n)}\``);
});
