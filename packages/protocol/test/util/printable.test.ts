import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasUnprintable, printable, printableJson } from '../../src/util/printable.js';

test('printable escapes C0, DEL, C1 and bidi controls, and leaves printable text alone', () => {
  assert.equal(printable('a\u001b[2Jb'), 'a\\x1b[2Jb');
  assert.equal(printable('t\tn\nr\r'), 't\\tn\\nr\\r');
  assert.equal(printable('\u0000\u0007\u007f\u009b31m'), '\\x00\\x07\\x7f\\x9b31m');
  assert.equal(printable('abc\u202edef\u2066'), 'abc\\u202edef\\u2066');
  assert.equal(printable('Größe, 東京, 😀, C:\\path'), 'Größe, 東京, 😀, C:\\path');
  assert.equal(hasUnprintable('plain'), false);
  assert.equal(hasUnprintable('x\u001by'), true);
  // The same answer twice in a row (the pattern is global: its lastIndex must not carry over).
  assert.equal(hasUnprintable('x\u001by'), true);
});

test('printableJson keeps the JSON the same and leaves no control character raw', () => {
  const value = { msg: 'say', text: 'x\u001b]0;owned\u0007\u009b2J\u202ey', tab: 'a\tb' };
  const line = JSON.stringify(value); // JSON.stringify escapes C0, not C1 or bidi
  assert.equal(hasUnprintable(line), true);
  const safe = printableJson(line);
  assert.equal(hasUnprintable(safe.replace(/\t/g, '')), false);
  assert.deepEqual(JSON.parse(safe), value);
  assert.equal(printableJson('{"a":\t1}'), '{"a":\t1}');
});
