import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Floor } from '../../src/listen/floor.js';

const who = (id: string) => ({ id });

describe('floor', () => {
  test('onNext: each waiter hears once that it is next in line (queued first, after the one before it is granted or leaves, or a barge-in ahead of all)', async () => {
    const floor = new Floor();
    const told: string[] = [];
    const held = await floor.acquire({ who: who('a'), waitMs: 1000 });
    const ac = new AbortController();
    const b = floor.acquire({ who: who('b'), waitMs: 1000, onNext: () => told.push('b') });
    const c = floor.acquire({ who: who('c'), waitMs: 1000, signal: ac.signal, onNext: () => told.push('c') });
    const d = floor.acquire({ who: who('d'), waitMs: 1000, onNext: () => told.push('d') });
    assert.deepEqual(told, ['b'], 'only the head is told');
    const e = floor.acquire({ who: who('e'), waitMs: 1000, bargeIn: true, onNext: () => told.push('e') });
    assert.deepEqual(told, ['b', 'e'], 'a barge-in goes ahead of everyone, and is next');
    held.release();
    const ge = await e;
    assert.deepEqual(told, ['b', 'e'], 'b, next again behind the barge-in, was told already: not twice');
    ge.release();
    const gb = await b;
    assert.deepEqual(told, ['b', 'e', 'c'], 'c is next once b holds the floor');
    ac.abort(new Error('gone'));
    await assert.rejects(c, /gone/);
    assert.deepEqual(told, ['b', 'e', 'c', 'd'], 'd is next once c left the queue');
    gb.release();
    (await d).release();
    assert.equal(floor.state.queued, 0);
  });
});
