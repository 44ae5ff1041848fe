import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuplicateFilter } from '../../src/dispatch/dedup.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('an in-flight original absorbs repeats', () => {
  const c = clock();
  const f = new DuplicateFilter(c.now);
  assert.equal(f.check('k', 5000), undefined);
  f.begin('k', 'a', 5000);
  const hit = f.check('k', 5000);
  assert.equal(hit?.original.id, 'a');
  assert.equal(hit?.original.state, 'inflight');
});

test('after playback the window runs from the end of playback', () => {
  const c = clock();
  const f = new DuplicateFilter(c.now);
  f.begin('k', 'a', 5000);
  c.advance(30_000); // a long utterance
  f.played('k', 'a');
  c.advance(4000);
  assert.equal(f.check('k', 5000)?.remainingMs, 1000);
  c.advance(1000);
  assert.equal(f.check('k', 5000), undefined);
});

test('the longer of the two windows applies (Biff --once 600 minutes later)', () => {
  const c = clock();
  const f = new DuplicateFilter(c.now);
  f.begin('wall', 'a', 600_000);
  f.played('wall', 'a');
  c.advance(60_000);
  assert.equal(f.check('wall', 5000)?.original.id, 'a', 'the original asked for 600 s');
  const g = new DuplicateFilter(c.now);
  g.begin('wall', 'b', 5000);
  g.played('wall', 'b');
  c.advance(60_000);
  assert.equal(g.check('wall', 600_000)?.original.id, 'b', 'the repeat asks for 600 s');
  assert.equal(g.check('wall', 5000), undefined);
});

test('a failed original does not suppress a retry', () => {
  const f = new DuplicateFilter(clock().now);
  f.begin('k', 'a', 5000);
  f.forget('k', 'a');
  assert.equal(f.check('k', 5000), undefined);
});

test('settling a superseded id leaves the newer entry alone', () => {
  const c = clock();
  const f = new DuplicateFilter(c.now);
  f.begin('k', 'a', 5000);
  f.forget('k', 'a');
  f.begin('k', 'b', 5000);
  f.forget('k', 'a');
  f.played('k', 'a');
  assert.equal(f.check('k', 5000)?.original.id, 'b');
  assert.equal(f.check('k', 5000)?.original.state, 'inflight');
});

test('concurrent arrivals: only the first of many begins, the rest are duplicates', async () => {
  const f = new DuplicateFilter(clock().now);
  const outcomes = await Promise.all(
    Array.from({ length: 64 }, async (_, i) => {
      await Promise.resolve();
      if (f.check('k', 5000)) return 'dup';
      f.begin('k', `id${i}`, 5000);
      return 'original';
    }),
  );
  assert.equal(outcomes.filter((o) => o === 'original').length, 1);
});
