/**
 * The staging directory of a refused install is removed even while late
 * writes still land in it (node-tar's writes of the entries before a refused
 * one), and its removal never throws: it runs in a `finally`, where a throw
 * (ENOTEMPTY, seen in CI) replaced the refusal the user must see.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { removeStage } from '../../src/models/install.js';

const root = mkdtempSync(join(tmpdir(), 'vox-stage-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('a stage that late writes keep filling is removed once they stop, without a throw', async () => {
  const stage = join(root, '.staging-x');
  mkdirSync(stage);
  // Another process that makes directories and files again behind each removal, as fast as it can, for 400 ms.
  const code = `const fs = require('node:fs'); const end = Date.now() + 400; let n = 0;
    while (Date.now() < end) { try { fs.mkdirSync(process.argv[1] + '/voice/d' + n, { recursive: true }); fs.writeFileSync(process.argv[1] + '/voice/d' + n + '/f', 'x'); n++; } catch {} }
    process.stdout.write(String(n));`;
  const writer = spawn(process.execPath, ['-e', code, stage], { stdio: ['ignore', 'pipe', 'inherit'] });
  let wrote = '';
  writer.stdout.setEncoding('utf8').on('data', (s: string) => (wrote += s));
  const done = new Promise((r) => writer.once('close', r));
  await new Promise((r) => setTimeout(r, 100));
  await removeStage(stage);
  await done;
  // What it wrote after the last removal round is not the stage's to keep either.
  await removeStage(stage);
  assert.ok(Number(wrote) > 10, `the writer wrote (${wrote})`);
  assert.equal(existsSync(stage), false);
});

/** An immutable file (chattr +i; root, on a file system that has the attribute): a removal that fails every time. */
function immutable(file: string): boolean {
  return process.getuid?.() === 0 && spawnSync('chattr', ['+i', file], { stdio: 'ignore' }).status === 0;
}

test('a stage that cannot be removed at all is left, and its removal still does not throw', async (t) => {
  const stage = join(root, '.staging-stuck');
  mkdirSync(join(stage, 'voice'), { recursive: true });
  const stuck = join(stage, 'voice', 'f');
  writeFileSync(stuck, 'x');
  if (!immutable(stuck)) return t.skip('needs root and chattr +i on this file system');
  try {
    await removeStage(stage); // rmSync throws EPERM every round
    assert.ok(existsSync(stuck));
  } finally {
    spawnSync('chattr', ['-i', stuck]);
  }
});
