import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseDaemonState } from '../../src/home.js';
import { readRegularFile } from '../../src/util/regular-file.js';

const root = mkdtempSync(join(tmpdir(), 'vox-regular-file-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('a regular file under the cap is read; missing is its own answer', () => {
  writeFileSync(join(root, 'ok'), 'hello\n');
  const r = readRegularFile(join(root, 'ok'), { maxBytes: 64 });
  assert.equal(r.ok && r.text, 'hello\n');
  assert.deepEqual(readRegularFile(join(root, 'none'), { maxBytes: 64 }), {
    ok: false,
    problem: 'missing',
    why: 'does not exist',
  });
});

test('a FIFO, /dev/zero, a directory and a big file are refused at once, each named', () => {
  execFileSync('mkfifo', [join(root, 'fifo')]);
  mkdirSync(join(root, 'dir'));
  writeFileSync(join(root, 'big'), '');
  truncateSync(join(root, 'big'), 200 * 1024 * 1024);
  // Without a reader or writer on the FIFO: a blocking open would never return.
  assert.deepEqual(readRegularFile(join(root, 'fifo'), { maxBytes: 64 }), {
    ok: false,
    problem: 'kind',
    why: 'is a FIFO (named pipe)',
  });
  assert.deepEqual(readRegularFile('/dev/zero', { maxBytes: 64, followLinks: true }), {
    ok: false,
    problem: 'kind',
    why: 'is a character device',
  });
  assert.deepEqual(readRegularFile(join(root, 'dir'), { maxBytes: 64 }), {
    ok: false,
    problem: 'kind',
    why: 'is a directory',
  });
  assert.deepEqual(readRegularFile(join(root, 'big'), { maxBytes: 64 }), {
    ok: false,
    problem: 'big',
    why: 'is 209715200 bytes, over the 64-byte cap',
  });
});

test('a link is refused unless links are allowed, and then only to a regular file', () => {
  writeFileSync(join(root, 'target'), 'x');
  symlinkSync(join(root, 'target'), join(root, 'link'));
  symlinkSync('/dev/zero', join(root, 'zero'));
  assert.deepEqual(readRegularFile(join(root, 'link'), { maxBytes: 64 }), {
    ok: false,
    problem: 'kind',
    why: 'is a symbolic link',
  });
  assert.equal(readRegularFile(join(root, 'link'), { maxBytes: 64, followLinks: true }).ok, true);
  assert.equal(readRegularFile(join(root, 'zero'), { maxBytes: 64, followLinks: true }).ok, false);
});

test('parseDaemonState takes only a port a socket can have and a positive integer pid', () => {
  assert.equal(parseDaemonState('{"pid":12,"port":8421,"host":"127.0.0.1"}')?.port, 8421);
  for (const port of [-5, 0, 70000, 1.5, '8421'])
    assert.equal(parseDaemonState(JSON.stringify({ pid: 12, port })), undefined, String(port));
  for (const pid of [0, -1, 1.5, 'x'])
    assert.equal(parseDaemonState(JSON.stringify({ pid, port: 8421 })), undefined, String(pid));
  assert.equal(parseDaemonState('\u0000garbage'), undefined);
  assert.equal(parseDaemonState('[1,2]'), undefined);
});

test('a file bigger than one read piece comes back whole, characters cut between pieces included', () => {
  // 64 KB pieces: the euro sign (3 bytes) lands across their boundaries.
  const text = `${'a'.repeat(65535)}${'\u20ac'.repeat(50000)}\n`;
  writeFileSync(join(root, 'long'), text);
  const r = readRegularFile(join(root, 'long'), { maxBytes: 1024 * 1024 });
  assert.equal(r.ok && r.text, text);
  assert.equal(r.ok && r.size, Buffer.byteLength(text));
  assert.equal(readRegularFile(join(root, 'long'), { maxBytes: 200000 }).ok, false);
});

test(
  'a /proc file, which reports size 0, is read whole, and its cap still holds',
  { skip: process.platform !== 'linux' },
  () => {
    const file = `/proc/${process.pid}/cmdline`;
    const r = readRegularFile(file, { maxBytes: 256 * 1024 });
    assert.equal(r.ok && r.text, readFileSync(file, 'utf8'));
    assert.deepEqual(readRegularFile(file, { maxBytes: 4 }), {
      ok: false,
      problem: 'big',
      why: 'is over the 4-byte cap',
    });
  },
);
