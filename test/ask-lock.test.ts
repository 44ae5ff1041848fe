/**
 * One voice ask at a time across sessions (claude/ask-lock.ts): a second
 * taker waits for the first to let go, a holder that died is taken over, and
 * a live holder keeps the lock until the waiter's deadline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { acquireAskLock } from '../packages/vox-mcp/src/claude/ask-lock.js';

const home = mkdtempSync(join(tmpdir(), 'vox-ask-lock-'));
const env = { VOX_HOME: home };
const file = join(home, 'voice-ask.lock');
after(() => rmSync(home, { recursive: true, force: true }));

test('a second taker waits until the first lets go', async () => {
  const first = await acquireAskLock(env, 'a', Date.now() + 1000);
  assert.ok(first);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} a\n`);
  let got = false;
  const second = acquireAskLock(env, 'b', Date.now() + 5000).then((l) => ((got = true), l));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(got, false, 'still waiting while the first holds it');
  first.release();
  const lock = await second;
  assert.ok(lock);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} b\n`);
  first.release(); // a second release of the old holder leaves the new one's lock alone
  assert.ok(existsSync(file));
  lock.release();
  assert.equal(existsSync(file), false);
});

test("a dead holder's lock is taken over; a live holder's is not, and the waiter gives up at its deadline", async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    writeFileSync(file, `${child.pid} live\n`);
    assert.equal(await acquireAskLock(env, 'c', Date.now() + 300), undefined);
    assert.equal(readFileSync(file, 'utf8'), `${child.pid} live\n`);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  // Now that pid is dead: the lock is stale.
  const lock = await acquireAskLock(env, 'd', Date.now() + 300);
  assert.ok(lock);
  lock.release();
});

test('a lock file made but not yet written is its taker\'s, not stale; one left empty for seconds is taken over', async () => {
  // What a waiter sees between the taker's open and its write: an empty file. Taking it over let two sessions ask at once.
  writeFileSync(file, '');
  assert.equal(await acquireAskLock(env, 'e', Date.now() + 300), undefined);
  assert.equal(readFileSync(file, 'utf8'), '', 'the taker\'s file is left alone');
  // A taker that died between the two leaves it empty for good.
  const past = new Date(Date.now() - 5000);
  utimesSync(file, past, past);
  const lock = await acquireAskLock(env, 'f', Date.now() + 300);
  assert.ok(lock);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} f\n`);
  lock.release();
});
