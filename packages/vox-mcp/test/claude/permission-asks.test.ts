/** permission-asks.ts: one ask per session, heard once within the window. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PERMISSION_DEDUP_SECONDS } from '../../src/claude/hook.js';
import { PermissionAsks } from '../../src/claude/permission-asks.js';

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
