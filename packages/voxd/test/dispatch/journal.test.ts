/**
 * The journal alone, on a real file: what a reopen finds (unsettled accepts
 * with their last sentence, recent settles), a torn or corrupt line, the
 * bounded size under compaction, the file's mode, and a link in its place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal, type JournalEntry } from '../../src/dispatch/journal.js';

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'vox-journal-'));
  test.after?.(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function entry(id: string, extra: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id,
    kind: 'speech',
    priority: 'message',
    text: `Say ${id}. Then more.`,
    sentences: [`Say ${id}.`, 'Then more.'],
    dedupKey: `say ${id}`,
    windowMs: 5000,
    acceptedAt: 1_700_000_000_000,
    ...extra,
  };
}

test('a reopened journal holds the unsettled accepts in order, with their last sentence, and the recent settles', async () => {
  const path = join(dir(), 'journal.jsonl');
  const j = Journal.open(path);
  assert.deepEqual(j.replay, { pending: [], settled: [], problems: [] });
  await j.accept(entry('a', { session: 's1', priority: 'text', requestId: 'r-a' }));
  await j.accept(entry('b'));
  await j.accept(entry('c', { priority: 'important' }));
  j.progress('a', 0);
  j.progress('a', 1);
  j.settle({ id: 'b', dedupKey: 'say b', windowMs: 5000, outcome: 'played', requestId: 'r-b' });
  // No close: as after kill -9.
  const again = Journal.open(path);
  assert.deepEqual(again.replay.problems, []);
  assert.deepEqual(
    again.replay.pending.map((p) => [p.id, p.priority, p.session, p.sentence, p.requestId]),
    [
      ['a', 'text', 's1', 1, 'r-a'],
      ['c', 'important', undefined, undefined, undefined],
    ],
  );
  assert.deepEqual(
    again.replay.settled.map((s) => [s.id, s.outcome, s.requestId]),
    [['b', 'played', 'r-b']],
  );
  await j.close();
  await again.close();
});

test('an accept is in the file once its promise resolves; the file is 0600', async () => {
  const path = join(dir(), 'journal.jsonl');
  const j = Journal.open(path);
  await j.accept(entry('x'));
  assert.match(readFileSync(path, 'utf8'), /"id":"x"/);
  if (process.platform !== 'win32') assert.equal(statSync(path).mode & 0o777, 0o600);
  await j.close();
  await j.close(); // harmless twice
});

test('a torn last line (a crash during a write) is ignored and reported; the rest is replayed', async () => {
  const path = join(dir(), 'journal.jsonl');
  const j = Journal.open(path);
  await j.accept(entry('a'));
  await j.accept(entry('b'));
  await j.close();
  appendFileSync(path, '{"t":"a","id":"torn","kind":"spe');
  const again = Journal.open(path);
  assert.deepEqual(
    again.replay.pending.map((p) => p.id),
    ['a', 'b'],
  );
  assert.equal(again.replay.problems.length, 1);
  assert.match(again.replay.problems[0]!, /last record was cut short/);
  // Opening rewrote the file without it: the next append starts on a line of its own.
  await again.accept(entry('c'));
  await again.close();
  const third = Journal.open(path);
  assert.deepEqual(third.replay.problems, []);
  assert.deepEqual(
    third.replay.pending.map((p) => p.id),
    ['a', 'b', 'c'],
  );
  await third.close();
});

test('corrupt and unknown lines are skipped and reported, never fatal', async () => {
  const path = join(dir(), 'journal.jsonl');
  const good = JSON.stringify({ t: 'a', ...entry('ok') });
  writeFileSync(path, `garbage\n${good}\n{"t":"zz","id":"q"}\n{"t":"a","id":"half"}\n\u0000\u0001\n`);
  const j = Journal.open(path);
  assert.deepEqual(
    j.replay.pending.map((p) => p.id),
    ['ok'],
  );
  assert.equal(j.replay.problems.length, 4, j.replay.problems.join('\n'));
  await j.close();
});

test('compaction keeps the file bounded: 5,000 accepted and settled leave it small', async () => {
  const path = join(dir(), 'journal.jsonl');
  const j = Journal.open(path, { keepSettled: 16, compactBytes: 16 * 1024 });
  let biggest = 0;
  for (let i = 0; i < 5000; i++) {
    const id = `u${i}`;
    void j.accept(entry(id, { text: `Utterance ${i} ${'x'.repeat(200)}` }));
    j.progress(id, 0);
    if (i >= 3) j.settle({ id: `u${i - 3}`, dedupKey: `k${i - 3}`, windowMs: 5000, outcome: 'played' });
    biggest = Math.max(biggest, j.size);
  }
  await j.close();
  // Three unsettled (~300 bytes each) and 16 settles: well under the 16 KiB trigger's double.
  assert.ok(biggest < 40 * 1024, `the journal grew to ${biggest} bytes`);
  assert.ok(statSync(path).size < 40 * 1024);
  const again = Journal.open(path, { keepSettled: 16 });
  assert.deepEqual(
    again.replay.pending.map((p) => p.id),
    ['u4997', 'u4998', 'u4999'],
  );
  assert.equal(again.replay.settled.length, 16);
  assert.equal(again.replay.settled.at(-1)!.id, 'u4996');
  await again.close();
});

test('old settles are let go after their retention, however few', async () => {
  const path = join(dir(), 'journal.jsonl');
  let now = 1_000_000;
  const j = Journal.open(path, { clock: () => now, keepSettledMs: 60_000 });
  await j.accept(entry('a'));
  j.settle({ id: 'a', dedupKey: 'say a', windowMs: 5000, outcome: 'played' });
  await j.close();
  now += 61_000;
  const again = Journal.open(path, { clock: () => now - 60_000, keepSettledMs: 60_000 });
  assert.equal(again.replay.settled.length, 1, 'kept within its retention');
  await again.close();
  const third = Journal.open(path, { clock: () => now, keepSettledMs: 60_000 });
  assert.equal(third.replay.settled.length, 0, 'let go after it');
  await third.close();
  assert.doesNotMatch(readFileSync(path, 'utf8'), /"t":"s"/);
});

test(
  'a link where the journal should be is replaced, never followed',
  { skip: process.platform === 'win32' ? 'no symlinks' : false },
  async () => {
    const d = dir();
    const target = join(d, 'elsewhere.txt');
    writeFileSync(target, 'not yours\n', { mode: 0o644 });
    const path = join(d, 'journal.jsonl');
    symlinkSync(target, path);
    const j = Journal.open(path);
    assert.match(j.replay.problems.join('\n'), /symbolic link/);
    await j.accept(entry('a'));
    await j.close();
    assert.equal(readFileSync(target, 'utf8'), 'not yours\n');
    assert.equal(statSync(target).mode & 0o777, 0o644);
    assert.ok(lstatSync(path).isFile());
  },
);

test('a directory where the journal should be: reported, accepts are refused with 503 VOX_ERR_JOURNAL_UNWRITABLE, and taken again once it is gone', async () => {
  const d = dir();
  const path = join(d, 'journal.jsonl');
  mkdirSync(path);
  const errors: string[] = [];
  const j = Journal.open(path, { log: { warn: () => {}, error: (_o, msg) => errors.push(msg ?? '') } });
  assert.match(j.replay.problems.join('\n'), /not a regular file/);
  assert.throws(
    () => j.accept(entry('a')),
    (err: any) => err.code === 'VOX_ERR_JOURNAL_UNWRITABLE' && err.statusCode === 503 && /EISDIR/.test(err.message),
  );
  assert.throws(
    () => j.accept(entry('b')),
    (err: any) => err.code === 'VOX_ERR_JOURNAL_UNWRITABLE',
  );
  assert.equal(j.pendingCount, 0, 'nothing refused is counted as kept');
  assert.equal(errors.length, 1, 'said once');
  assert.ok(lstatSync(path).isDirectory(), 'left as it was');
  rmdirSync(path);
  await j.accept(entry('c'));
  await j.close();
  const again = Journal.open(path);
  assert.deepEqual(
    again.replay.pending.map((p) => p.id),
    ['c'],
  );
  await again.close();
});

test('hostile or unknown fields skip that record with a warning; the rest replays', async () => {
  const d = dir();
  const path = join(d, 'journal.jsonl');
  const good = (id: string, extra: object = {}) => JSON.stringify({ t: 'a', ...entry(id), ...extra });
  writeFileSync(
    path,
    [
      good('ok1'),
      ...['urgent', 'bogus', '__proto__', 'constructor', 'toString'].map((p, i) => good(`bad${i}`, { priority: p })),
      good('bad5', { kind: 'song' }),
      good('bad6', { surprise: 1 }),
      '{"t":"a","__proto__":{"priority":"message"},"id":"bad7"}',
      good('bad8', { sentences: [1, 2] }),
      JSON.stringify({ t: 's', id: 'x', dedupKey: 'k', windowMs: 1, outcome: 'exploded', at: 1 }),
      JSON.stringify({ t: 's', id: 'x', dedupKey: 'k', windowMs: 1, outcome: 'played', at: 1, code: 'constructor' }),
      JSON.stringify({ t: 'p', id: 'ok1', n: 0, more: true }),
      '[1,2,3]',
      'null',
      good('ok2'),
      '',
    ].join('\n'),
  );
  const j = Journal.open(path);
  assert.deepEqual(
    j.replay.pending.map((p) => p.id),
    ['ok1', 'ok2'],
  );
  assert.equal(j.replay.pending[0]!.sentence, undefined, 'the progress record with an unknown field was skipped');
  assert.deepEqual(j.replay.settled, []);
  const problems = j.replay.problems.join('\n');
  assert.match(problems, /line 2 has a value voxd does not write in "priority"/);
  assert.match(problems, /field voxd does not write \("surprise"\)/);
  assert.match(problems, /more journal lines were skipped/);
  await j.close();
});

test('a journal past its cap at open: the first records within the cap are replayed in order, the rest reported and settled as dropped', async () => {
  const d = dir();
  const path = join(d, 'journal.jsonl');
  const lines = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ t: 'a', ...entry(`r${i}`), requestId: `req-${i}`, text: 'x'.repeat(900) }),
  );
  // r3 is settled later in the file: it is not lost, whatever the cap.
  lines.push(
    JSON.stringify({ t: 's', id: 'r3', dedupKey: 'say r3', windowMs: 5000, outcome: 'played', at: Date.now() }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  const j = Journal.open(path, { maxBytes: 10_000 });
  const ids = j.replay.pending.map((p) => p.id);
  assert.ok(ids.length >= 5 && ids.length < 12, `some fit, not all: ${ids.length}`);
  assert.deepEqual(
    ids,
    Array.from({ length: 50 }, (_, i) => `r${i}`)
      .filter((id) => id !== 'r3')
      .slice(0, ids.length),
    'the first ones, in order',
  );
  const dropped = j.replay.settled.filter((s) => s.outcome === 'dropped');
  assert.equal(dropped.length, 49 - ids.length);
  assert.equal(j.replay.notReplayed, dropped.length);
  assert.ok(
    dropped.every((s) => s.requestId?.startsWith('req-')),
    'a re-send can be told',
  );
  assert.match(
    j.replay.problems.join('\n'),
    new RegExp(`held ${dropped.length} unsettled requests past its cap of 10000 bytes`),
  );
  assert.ok(existsSync(path) && !existsSync(`${path}.too-big`), 'nothing is moved aside');
  // Full now: the next accept is refused, not taken.
  assert.throws(
    () => j.accept({ ...entry('new'), text: 'y'.repeat(9000) }),
    (err: any) => err.code === 'VOX_ERR_JOURNAL_FULL' && err.statusCode === 503,
  );
  await j.close();
});
