import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markEnd, readTail, TAIL_LIMITS, type TailLimits, type TailState } from '../../src/claude/transcript-tail.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-tail-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text = ''): string => {
  const p = join(dir, `t${++n}.jsonl`);
  writeFileSync(p, text);
  return p;
};
const text = (lines: Buffer[]): string[] => lines.map((l) => l.toString('utf8'));
/** The real transcript of a narrated Claude Code 2.1.332 session (test/fixtures/transcripts). */
const REAL = readFileSync(
  new URL('../../../../test/fixtures/transcripts/claude-2.1.332-narrated-session.jsonl', import.meta.url),
);

test('a file first seen is read from its end; what is appended after is read once, in order', () => {
  const p = file('old 1\nold 2\n');
  let r = readTail(p, undefined);
  assert.deepEqual(r.lines, []);
  appendFileSync(p, 'new 1\nnew 2\n');
  r = readTail(p, r.state);
  assert.deepEqual(text(r.lines), ['new 1', 'new 2']);
  r = readTail(p, r.state);
  assert.deepEqual(r.lines, [], 'nothing twice');
  appendFileSync(p, 'new 3\n');
  assert.deepEqual(text(readTail(p, r.state).lines), ['new 3']);
});

test('a turn marked before the file exists reads it from its start', () => {
  const p = join(dir, 'later.jsonl');
  const s = markEnd(p);
  writeFileSync(p, 'first\nsecond\n');
  assert.deepEqual(text(readTail(p, s).lines), ['first', 'second']);
});

test('a partial last line waits for its newline and is then handed out whole, once', () => {
  const p = file();
  let s: TailState = markEnd(p);
  appendFileSync(p, '{"type":"assist');
  let r = readTail(p, s);
  assert.deepEqual(r.lines, []);
  s = r.state;
  appendFileSync(p, 'ant"}\n{"b":');
  r = readTail(p, s);
  assert.deepEqual(text(r.lines), ['{"type":"assistant"}']);
  appendFileSync(p, '1}\n');
  r = readTail(p, r.state);
  assert.deepEqual(text(r.lines), ['{"b":1}']);
});

test('the real transcript, grown in uneven pieces, gives every line once and in order', () => {
  const p = file();
  let s = markEnd(p);
  const got: string[] = [];
  for (let at = 0, step = 1; at < REAL.length; at += step, step = (step * 7 + 13) % 9000 || 1) {
    appendFileSync(p, REAL.subarray(at, Math.min(REAL.length, at + step)));
    const r = readTail(p, s);
    got.push(...text(r.lines));
    s = r.state;
  }
  assert.deepEqual(got, REAL.toString('utf8').split('\n').slice(0, -1));
});

test('bounded: a call reads at most maxReadBytes, the rest on the next; a line over the cap is dropped, not the next', () => {
  const limits: TailLimits = { ...TAIL_LIMITS, maxReadBytes: 100, maxLineBytes: 50 };
  const p = file();
  let s = markEnd(p);
  appendFileSync(p, `${'a'.repeat(30)}\n${'b'.repeat(200)}\n${'c'.repeat(30)}\n`);
  let r = readTail(p, s, limits);
  assert.deepEqual(text(r.lines), ['a'.repeat(30)]);
  assert.equal(r.state.offset, 100);
  assert.ok(r.state.skipping && !r.state.partial, 'the long line is not kept');
  const lines: string[] = [];
  for (let i = 0; i < 5; i++) {
    r = readTail(p, r.state, limits);
    lines.push(...text(r.lines));
  }
  assert.deepEqual(lines, ['c'.repeat(30)]);
});

test('a file that grows without end is skipped to its end past maxBehindBytes', () => {
  const limits: TailLimits = { ...TAIL_LIMITS, maxBehindBytes: 1000 };
  const p = file();
  const s = markEnd(p);
  appendFileSync(p, 'x'.repeat(5000) + '\nlate');
  const r = readTail(p, s, limits);
  assert.equal(r.moved, 'skipped');
  assert.deepEqual(r.lines, []);
  assert.equal(r.state.offset, 5005);
  assert.ok(r.state.skipping, 'the line cut by the jump is not handed out');
  appendFileSync(p, ' line\nnext\n');
  assert.deepEqual(text(readTail(p, r.state, limits).lines), ['next']);
});

test('a truncated or replaced file starts again from its end', () => {
  const p = file('a\n');
  let r = readTail(p, undefined);
  appendFileSync(p, 'b\nc\n');
  r = readTail(p, r.state);
  truncateSync(p, 0);
  appendFileSync(p, 'x\n');
  const t = readTail(p, r.state);
  assert.equal(t.moved, 'reset');
  assert.deepEqual(t.lines, []);
  appendFileSync(p, 'y\n');
  assert.deepEqual(text(readTail(p, t.state).lines), ['y']);
  const q = file('other\nlines\nhere\n');
  renameSync(q, p);
  const u = readTail(p, t.state);
  assert.equal(u.moved, 'reset');
  assert.deepEqual(u.lines, []);
});

test('a FIFO, a link to /dev/zero, a directory and a missing file are refused at once', () => {
  const fifo = join(dir, 'fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  const zero = join(dir, 'zero.jsonl');
  symlinkSync('/dev/zero', zero);
  const link = join(dir, 'link.jsonl');
  symlinkSync(file('a\n'), link);
  for (const [p, why] of [
    [fifo, /FIFO/],
    [zero, /symbolic link/],
    [link, /symbolic link/],
    [dir, /directory/],
    [join(dir, 'none.jsonl'), /does not exist/],
  ] as const) {
    for (const s of [undefined, markEnd(p)]) {
      const r = readTail(p, s);
      assert.deepEqual(r.lines, [], p);
      assert.match(r.problem ?? '', why, p);
    }
  }
});

test('/dev/zero itself (a character device) is refused, never read', () => {
  const r = readTail('/dev/zero', { dev: 0, ino: 0, offset: 0, partial: undefined, skipping: false });
  assert.match(r.problem ?? '', /character device/);
});
