/** permission-asks.ts: one ask per session, heard once within the window, in this process and through the file. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PERMISSION_DEDUP_SECONDS } from '../../src/hooks/policy.js';
import { ASKS_FILE_MAX_BYTES, PermissionAsks, readAsks } from '../../src/hooks/permission-asks.js';

describe('PermissionAsks', () => {
  test("a session's request is announced for the window, then not; other sessions are their own", () => {
    const asks = new PermissionAsks();
    assert.equal(asks.announced('api#aaaaaa', 1000), false);
    asks.requested('api#aaaaaa', 1000);
    assert.equal(asks.announced('api#aaaaaa', 1000 + 6000), true, 'the Notification ~6 s later is the same ask');
    assert.equal(asks.announced('api#aaaaaa', 1000 + PERMISSION_DEDUP_SECONDS * 1000), true);
    assert.equal(asks.announced('api#aaaaaa', 1000 + PERMISSION_DEDUP_SECONDS * 1000 + 1), false);
    assert.equal(asks.announced('api#bbbbbb', 1000 + 6000), false);
    assert.equal(asks.announced('api#aaaaaa', 999), false, 'a clock that went back is no ask');
  });

  test('a newer request restarts the window, and memory is bounded', () => {
    const asks = new PermissionAsks(10);
    asks.requested('s', 0);
    asks.requested('s', 8);
    assert.equal(asks.announced('s', 15), true);
    for (let i = 0; i < 100; i++) asks.requested(`other${i}`, 20);
    assert.equal(asks.announced('s', 15), false, 'the oldest session was let go');
    assert.equal(asks.announced('other99', 25), true);
  });
});

describe('PermissionAsks shared through a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-asks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('what one instance announced, another (another process) sees; the file is 0600', () => {
    const file = join(dir, 'home', 'permission-asks.json');
    new PermissionAsks(undefined, file).requested('api#aaaaaa', 1000);
    const other = new PermissionAsks(undefined, file);
    assert.equal(other.announced('api#aaaaaa', 7000), true);
    assert.equal(other.announced('api#bbbbbb', 7000), false);
    assert.equal(other.announced('api#aaaaaa', 1000 + PERMISSION_DEDUP_SECONDS * 1000 + 1), false);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('the file keeps only asks within the window, and at most 64', () => {
    const file = join(dir, 'bounded.json');
    const asks = new PermissionAsks(10, file);
    asks.requested('old', 0);
    for (let i = 0; i < 100; i++) asks.requested(`s${i}`, 20);
    const kept = readAsks(file);
    assert.equal(kept.has('old'), false);
    assert.equal(kept.size, 64);
    assert.ok(readFileSync(file).length < ASKS_FILE_MAX_BYTES);
  });

  test('a hostile file is nothing remembered, and the next ask replaces it', () => {
    const file = join(dir, 'hostile.json');
    const decoy = join(dir, 'decoy.json');
    writeFileSync(decoy, JSON.stringify({ version: 1, asks: { 'api#aaaaaa': 1000 } }));
    const cases: Record<string, () => void> = {
      huge: () =>
        writeFileSync(file, `{"version":1,"asks":{"api#aaaaaa":1000,"x":"${'x'.repeat(ASKS_FILE_MAX_BYTES)}"}}`),
      fifo: () => execFileSync('mkfifo', [file]),
      symlink: () => symlinkSync(decoy, file),
      garbage: () => writeFileSync(file, '\0{not json'),
      wrongShape: () => writeFileSync(file, JSON.stringify({ version: 1, asks: ['api#aaaaaa'] })),
      otherVersion: () => writeFileSync(file, JSON.stringify({ version: 2, asks: { 'api#aaaaaa': 1000 } })),
      directory: () => mkdirSync(file),
    };
    for (const [kind, make] of Object.entries(cases)) {
      rmSync(file, { recursive: true, force: true });
      make();
      assert.equal(new PermissionAsks(undefined, file).announced('api#aaaaaa', 2000), false, kind);
      new PermissionAsks(undefined, file).requested('api#bbbbbb', 2000);
      if (kind !== 'directory')
        assert.equal(new PermissionAsks(undefined, file).announced('api#bbbbbb', 3000), true, `${kind}: replaced`);
    }
    rmSync(file, { recursive: true, force: true });
  });
});
