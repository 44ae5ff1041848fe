/**
 * One voice ask at a time across sessions (hooks/voice/ask-lock.ts): a second
 * taker waits for the first to let go, a holder that died is taken over, and
 * a live holder keeps the lock until the waiter's deadline, and a waiter
 * removes only the stale lock it judged.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { acquireAskLock, removeStale } from '../packages/vox-mcp/src/hooks/voice/ask-lock.js';

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

test("a lock file made but not yet written is its taker's, not stale; one left empty for seconds is taken over", async () => {
  // What a waiter sees between the taker's open and its write: an empty file. Taking it over let two sessions ask at once.
  writeFileSync(file, '');
  assert.equal(await acquireAskLock(env, 'e', Date.now() + 300), undefined);
  assert.equal(readFileSync(file, 'utf8'), '', "the taker's file is left alone");
  // A taker that died between the two leaves it empty for good.
  const past = new Date(Date.now() - 5000);
  utimesSync(file, past, past);
  const lock = await acquireAskLock(env, 'f', Date.now() + 300);
  assert.ok(lock);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} f\n`);
  lock.release();
});

test('a lock is never seen unwritten, and taking it leaves no file beside it', async () => {
  const lock = await acquireAskLock(env, 'g', Date.now() + 300);
  assert.ok(lock);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} g\n`);
  assert.deepEqual(readdirSync(home), ['voice-ask.lock']);
  lock.release();
  assert.deepEqual(readdirSync(home), []);
});

test('a waiter that judged a lock stale removes only that lock, not the one another waiter took over with', async () => {
  // Waiter 1 and 2 both saw this dead holder's lock.
  writeFileSync(file, '999999999 dead\n');
  const st = statSync(file);
  const seen = { ino: st.ino, dev: st.dev, mtimeMs: st.mtimeMs, text: '999999999 dead\n' };
  // Waiter 1 took over first: removed the stale lock and took its own.
  rmSync(file);
  const lock = await acquireAskLock(env, 'h', Date.now() + 300);
  assert.ok(lock);
  // Waiter 2 now removes what it judged stale: the new lock stays.
  removeStale(file, seen);
  assert.equal(readFileSync(file, 'utf8'), `${process.pid} h\n`);
  assert.deepEqual(readdirSync(home), ['voice-ask.lock']);
  // And the stale lock itself is removed.
  lock.release();
  writeFileSync(file, '999999999 dead\n');
  const again = statSync(file);
  removeStale(file, { ino: again.ino, dev: again.dev, mtimeMs: again.mtimeMs, text: '999999999 dead\n' });
  assert.equal(existsSync(file), false);
});

test('what is not a lock at its place (a FIFO, a directory, a link to /dev/zero) is cleared, and never blocks a waiter', async () => {
  const makers: Array<[string, () => void]> = [
    ['a FIFO', () => execFileSync('mkfifo', [file])],
    ['a directory', () => mkdirSync(join(file, 'inside'), { recursive: true })],
    ['a link to /dev/zero', () => symlinkSync('/dev/zero', file)],
  ];
  for (const [what, make] of makers) {
    make();
    const lock = await acquireAskLock(env, 'i', Date.now() + 1000);
    assert.ok(lock, what);
    assert.equal(readFileSync(file, 'utf8'), `${process.pid} i\n`, what);
    lock.release();
    assert.deepEqual(readdirSync(home), [], what);
  }
});
