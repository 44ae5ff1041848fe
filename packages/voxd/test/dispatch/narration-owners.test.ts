import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NarrationOwners } from '../../src/dispatch/narration-owners.js';

test('the first source of a turn narrates it; the other is refused with why until a cut', () => {
  const o = new NarrationOwners();
  assert.equal(o.claim('api#1', 'mod', 0), undefined);
  assert.equal(o.claim('api#1', 'mod', 10), undefined);
  assert.match(o.claim('api#1', 'mcp', 20)!, /narrated from the vox mod/);
  // Another session is its own.
  assert.equal(o.claim('web#2', 'mcp', 30), undefined);
  assert.match(o.claim('web#2', 'mod', 40)!, /narrated from vox mcp/);
  o.cut('api#1');
  assert.equal(o.claim('api#1', 'mcp', 50), undefined);
  assert.match(o.claim('api#1', 'mod', 60)!, /vox mcp/);
});

test('an owner silent past its idle time lets the other source narrate', () => {
  const o = new NarrationOwners({ idleMs: 100 });
  assert.equal(o.claim('s', 'mod', 0), undefined);
  assert.ok(o.claim('s', 'mcp', 99));
  // A refused batch does not keep the owner alive.
  assert.equal(o.claim('s', 'mcp', 100), undefined);
  assert.ok(o.claim('s', 'mod', 150));
});

test('at most `max` sessions are remembered, the least recently used forgotten first', () => {
  const o = new NarrationOwners({ max: 2 });
  o.claim('a', 'mod', 0);
  o.claim('b', 'mod', 1);
  o.claim('a', 'mod', 2);
  o.claim('c', 'mod', 3);
  assert.equal(o.size, 2);
  assert.ok(o.claim('a', 'mcp', 4), 'a was kept (used after b)');
  assert.equal(o.claim('b', 'mcp', 5), undefined, 'b was forgotten');
});
