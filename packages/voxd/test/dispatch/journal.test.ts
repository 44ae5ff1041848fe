/**
 * The journal alone, on a real file: what a reopen finds (unsettled accepts
 * with their last sentence, recent settles), a torn or corrupt line, the
 * bounded size under compaction, the file's mode, and a link in its place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
  assert.deepEqual(again.replay.pending.map((p) => [p.id, p.priority, p.session, p.sentence, p.requestId]), [
    ['a', 'text', 's1', 1, 'r-a'],
    ['c', 'important', undefined, undefined, undefined],
  ]);
  assert.deepEqual(again.replay.settled.map((s) => [s.id, s.outcome, s.requestId]), [['b', 'played', 'r-b']]);
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
  assert.deepEqual(again.replay.pending.map((p) => p.id), ['a', 'b']);
  assert.equal(again.replay.problems.length, 1);
  assert.match(again.replay.problems[0]!, /last record was cut short/);
  // Opening rewrote the file without it: the next append starts on a line of its own.
  await again.accept(entry('c'));
  await again.close();
  const third = Journal.open(path);
  assert.deepEqual(third.replay.problems, []);
  assert.deepEqual(third.replay.pending.map((p) => p.id), ['a', 'b', 'c']);
  await third.close();
});

test('corrupt and unknown lines are skipped and reported, never fatal', async () => {
  const path = join(dir(), 'journal.jsonl');
  const good = JSON.stringify({ t: 'a', ...entry('ok') });
  writeFileSync(path, `garbage\n${good}\n{"t":"zz","id":"q"}\n{"t":"a","id":"half"}\n\u0000\u0001\n`);
  const j = Journal.open(path);
  assert.deepEqual(j.replay.pending.map((p) => p.id), ['ok']);
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
  assert.deepEqual(again.replay.pending.map((p) => p.id), ['u4997', 'u4998', 'u4999']);
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

test('a link where the journal should be is replaced, never followed', { skip: process.platform === 'win32' ? 'no symlinks' : false }, async () => {
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
});

test('a directory where the journal should be: reported, and accepts still resolve (speech goes on without a journal)', async () => {
  const d = dir();
  const path = join(d, 'journal.jsonl');
  mkdirSync(path);
  const errors: string[] = [];
  const j = Journal.open(path, { log: { warn: () => {}, error: (_o, msg) => errors.push(msg ?? '') } });
  assert.match(j.replay.problems.join('\n'), /not a regular file/);
  await j.accept(entry('a'));
  j.progress('a', 0);
  j.settle({ id: 'a', dedupKey: 'say a', windowMs: 5000, outcome: 'played' });
  await j.close();
  assert.equal(errors.length, 1, 'said once');
  assert.ok(lstatSync(path).isDirectory(), 'left as it was');
});
