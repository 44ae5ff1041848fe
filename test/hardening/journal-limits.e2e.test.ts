/**
 * The journal at its limits, end to end (real voxd, real HTTP, `kill -9`):
 * accepts up to its cap and a 503 past it, a journal too big for the cap at a
 * restart, hostile records, a full disk (a 2 MB tmpfs), a directory in the
 * journal's place, and 100 MB of garbage. What is asserted is what a caller
 * gets: everything answered 202 is replayed after a crash, what could not be
 * kept is refused with a code, and voxd always starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';
import { inCI } from '../helpers/tools.js';

/** A sentence that takes a while to speak, so what follows it stays queued. */
const LONG =
  'This long announcement keeps the speaker busy while the queue behind it fills up, sentence after sentence. '.repeat(
    8,
  );

/** Every id voxd has queued or playing now. */
async function live(d: Daemon): Promise<string[]> {
  const s = (await d.api('GET', '/v1/status?limit=999')).body;
  return [...(s.playing ? [s.playing.id] : []), ...s.queue.items.map((q: any) => q.id)];
}

async function logSays(home: string, re: RegExp): Promise<void> {
  await waitFor(
    () =>
      (existsSync(join(home, 'logs', 'voxd.log')) && re.test(readFileSync(join(home, 'logs', 'voxd.log'), 'utf8'))) ||
      undefined,
    20_000,
    `voxd.log to say ${re}`,
  );
}

async function kill9(d: Daemon): Promise<void> {
  d.proc.kill('SIGKILL');
  await waitFor(() => d.proc.signalCode !== null || undefined, 10_000, 'voxd to die');
}

test('kill -9 at the cap: accepts past it get 503 VOX_ERR_JOURNAL_FULL, every 202 is replayed; a smaller cap at the restart replays the first ones in order and a re-send of the rest learns it was dropped', async (t) => {
  const cap = 64 * 1024;
  const d = await startDaemon({ env: { VOXD_JOURNAL_MAX_BYTES: String(cap) } });
  const home = d.home;
  try {
    const first = await d.api('POST', '/v1/speak', { text: LONG, requestId: 'long' });
    assert.equal(first.status, 202);
    const accepted: string[] = [first.body.id];
    let refused: any;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await d.api('POST', '/v1/speak', {
        text: `Request ${i} of the flood. ${'Words to fill the journal. '.repeat(60)}`,
        requestId: `flood-${i}`,
      });
      if (r.status === 202) accepted.push(r.body.id);
      else refused = r;
    }
    assert.ok(refused, 'the cap was reached within 200 requests');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.code, 'VOX_ERR_JOURNAL_FULL');
    assert.match(refused.body.message, /cap of 65536 bytes/);
    assert.ok(accepted.length > 5, `${accepted.length} accepted before the cap`);
    await kill9(d);

    const again = await startDaemon({ home, env: { VOXD_JOURNAL_MAX_BYTES: String(cap) } });
    try {
      const back = await live(again);
      t.diagnostic(
        `at a cap of ${cap} bytes: ${accepted.length} answered 202, then 503; after kill -9, ${back.length} of ${accepted.length} replayed`,
      );
      assert.deepEqual(back, accepted, 'every request answered 202 is back, in order');
    } finally {
      await kill9(again);
    }

    // Restarted with half the cap: the first that fit, in order; the rest reported, never moved aside.
    const half = await startDaemon({ home, env: { VOXD_JOURNAL_MAX_BYTES: String(cap / 2) } });
    try {
      const back = await live(half);
      assert.ok(
        back.length > 0 && back.length < accepted.length,
        `${back.length} of ${accepted.length} fit in half the cap`,
      );
      t.diagnostic(
        `restarted with half the cap: ${back.length} of ${accepted.length} replayed in order, ${accepted.length - back.length} reported`,
      );
      assert.deepEqual(back, accepted.slice(0, back.length));
      await logSays(home, new RegExp(`held ${accepted.length - back.length} unsettled requests? past its cap`));
      assert.ok(!existsSync(join(home, 'journal.jsonl.too-big')));
      // A caller re-sending one that was not replayed is told, not queued again in silence.
      const lastIndex = accepted.length - 2; // flood-(n-2) is the last accepted flood request
      const resend = await half.api('POST', '/v1/speak', {
        text: `Request ${lastIndex} of the flood. ${'Words to fill the journal. '.repeat(60)}`,
        requestId: `flood-${lastIndex}`,
      });
      assert.equal(resend.body.status, 'dropped', JSON.stringify(resend.body));
      assert.match(resend.body.reason, /cap/);
    } finally {
      await half.stop();
    }
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test('hostile journal records (priority urgent, bogus, __proto__, constructor) are skipped with a warning; voxd starts and replays the rest', async () => {
  const home = tempDir();
  const now = Date.now();
  const rec = (id: string, priority: string) =>
    JSON.stringify({
      t: 'a',
      id,
      kind: 'speech',
      priority,
      text: `Say ${id}.`,
      sentences: [`Say ${id}.`],
      dedupKey: `say ${id}`,
      windowMs: 5000,
      acceptedAt: now,
    });
  writeFileSync(
    join(home, 'journal.jsonl'),
    `${[rec('good1', 'message'), ...['urgent', 'bogus', '__proto__', 'constructor'].map((p, i) => rec(`evil${i}`, p)), rec('good2', 'important')].join('\n')}\n`,
    { mode: 0o600 },
  );
  const d = await startDaemon({ home, realtime: false });
  try {
    await logSays(home, /journal line 2 has a value voxd does not write in \\?"priority/);
    const idle = await d.idle();
    const outcomes = Object.fromEntries(idle.history.map((h: any) => [h.id, h.outcome]));
    assert.equal(outcomes.good1, 'played');
    assert.equal(outcomes.good2, 'played');
    assert.ok(!Object.keys(outcomes).some((id) => id.startsWith('evil')), 'no hostile record was replayed');
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test("a directory in the journal's place: voxd starts, refuses speech with 503 VOX_ERR_JOURNAL_UNWRITABLE (never 202), and takes it again once the directory is gone", async () => {
  const home = tempDir();
  mkdirSync(join(home, 'journal.jsonl'));
  const d = await startDaemon({ home, realtime: false });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Can you keep this?' });
    assert.equal(r.status, 503);
    assert.equal(r.body.code, 'VOX_ERR_JOURNAL_UNWRITABLE');
    assert.match(r.body.message, /journal\.jsonl \(EISDIR\)/);
    assert.equal((await d.api('GET', '/v1/status')).status, 200, 'voxd serves');
    rmdirSync(join(home, 'journal.jsonl'));
    const ok = await d.api('POST', '/v1/speak', { text: 'Now you can.', wait: true });
    assert.equal(ok.body.status, 'played');
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test('100 MB of garbage in the journal: voxd starts, reports it, and serves', async () => {
  const home = tempDir();
  const fd = openSync(join(home, 'journal.jsonl'), 'w', 0o600);
  const chunk = Buffer.alloc(1024 * 1024, 'garbage '.repeat(8));
  for (let i = 0; i < 100; i++) writeSync(fd, chunk);
  closeSync(fd);
  const d = await startDaemon({ home, realtime: false, env: { VOXD_JOURNAL_MAX_BYTES: String(1024 * 1024) } });
  try {
    await logSays(home, /the journal was 104857600 bytes; voxd read the first/);
    const r = await d.api('POST', '/v1/speak', { text: 'Garbage did not stop me.', wait: true });
    assert.equal(r.body.status, 'played');
  } finally {
    await d.stop();
    removeDir(home);
  }
});

/** Mount a 2 MB tmpfs at a fresh directory; undefined (with the reason) when this machine does not allow it. */
function tmpfs(): { dir: string; unmount(): void } | string {
  const dir = tempDir('vox-tmpfs-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    removeDir(dir);
    return `cannot mount a tmpfs here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()})`;
  }
  return {
    dir,
    unmount() {
      spawnSync('umount', ['-l', dir]);
      removeDir(dir);
    },
  };
}

test('a full disk (VOX_HOME on a 2 MB tmpfs): requests are refused with 503 VOX_ERR_JOURNAL_UNWRITABLE, and every 202 is replayed after kill -9', async (t) => {
  const fs = tmpfs();
  if (typeof fs === 'string') {
    if (inCI()) assert.fail(fs);
    t.skip(fs);
    return;
  }
  let d: Daemon | undefined;
  let again: Daemon | undefined;
  try {
    // The audio goes elsewhere: the point is the journal, not a WAV that cannot be written.
    const audio = `file:${tempDir('vox-out-')}`;
    d = await startDaemon({ home: fs.dir, audio });
    const accepted: string[] = [];
    const first = await d.api('POST', '/v1/speak', { text: LONG });
    assert.equal(first.status, 202);
    accepted.push(first.body.id);
    // Fill the disk to the last byte.
    const filler = join(fs.dir, 'filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(fd, block);
    } catch {
      // ENOSPC: full
    }
    try {
      for (;;) writeSync(fd, block.subarray(0, 1));
    } catch {
      // full to the byte
    }
    closeSync(fd);
    const answers: Array<{ status: number; body: any }> = [];
    for (let i = 0; i < 3; i++)
      answers.push(
        await d.api('POST', '/v1/speak', {
          text: `Full disk request ${i}. ${'More words than a page holds. '.repeat(300)}`,
        }),
      );
    for (const a of answers) {
      if (a.status === 202) accepted.push(a.body.id);
      else {
        assert.equal(a.status, 503, JSON.stringify(a.body));
        assert.equal(a.body.code, 'VOX_ERR_JOURNAL_UNWRITABLE');
        assert.match(a.body.message, /ENOSPC/);
      }
    }
    assert.ok(
      answers.some((a) => a.status === 503),
      'a full disk is told',
    );
    t.diagnostic(
      `full disk: ${answers.filter((a) => a.status === 503).length} of 3 refused 503, ${answers.filter((a) => a.status === 202).length} answered 202`,
    );
    // Space again: taken again, no restart needed.
    rmSync(filler);
    const later = await d.api('POST', '/v1/speak', { text: 'The disk has room again.' });
    assert.equal(later.status, 202, JSON.stringify(later.body));
    accepted.push(later.body.id);
    await kill9(d);
    again = await startDaemon({ home: fs.dir, audio });
    const back = await live(again);
    t.diagnostic(`after kill -9: ${back.length} of ${accepted.length} answered 202 replayed`);
    assert.deepEqual(back, accepted, 'every request answered 202 was replayed');
  } finally {
    await again?.stop();
    await d?.stop();
    fs.unmount();
  }
});
