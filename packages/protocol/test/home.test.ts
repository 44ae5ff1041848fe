import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { makeDirs } from '../src/home.js';

const root = mkdtempSync(join(tmpdir(), 'vox-home-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('makeDirs creates every missing level with the mode, and a directory that exists is fine', () => {
  const dir = join(root, 'a', 'b', 'c');
  makeDirs(dir, 0o700);
  assert.ok(statSync(dir).isDirectory());
  assert.equal(statSync(join(root, 'a')).mode & 0o777, 0o700);
  makeDirs(dir, 0o700);
  makeDirs(root);
});

test('makeDirs fails as mkdirSync does: EEXIST for a file, ENOTDIR when a part is a file', () => {
  const file = join(root, 'file');
  writeFileSync(file, '');
  assert.throws(() => makeDirs(file), { code: 'EEXIST' });
  assert.throws(() => makeDirs(join(file, 'x', 'y')), { code: 'ENOTDIR' });
});

test(
  'makeDirs returns ENOENT where mkdir says so under a parent that exists (/proc), instead of retrying forever',
  { skip: process.platform !== 'linux' ? 'needs /proc' : false },
  () => {
    assert.throws(() => makeDirs(`/proc/vox-test-${process.pid}/x`), { code: 'ENOENT' });
  },
);
