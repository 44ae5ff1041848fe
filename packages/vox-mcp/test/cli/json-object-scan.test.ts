/**
 * The one-pass scan of a hook payload (cli/json-object-scan.ts): where the
 * top-level object ends, whatever splits it into chunks, and its bounds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonObjectScan, type ScanResult } from '../../src/cli/json-object-scan.js';

const bounds = { maxDepth: 4, maxValues: 20 };

/** Scans `text` in chunks of `size` bytes: the byte offset where the object ended, or the refusal, or 'more'. */
function scan(text: string, size: number): number | string {
  const bytes = Buffer.from(text);
  const s = new JsonObjectScan(bounds);
  for (let at = 0; at < bytes.length; at += size) {
    const r: ScanResult = s.push(bytes.subarray(at, at + size));
    if (r && 'end' in r) return at + r.end;
    if (r) return r.refused;
  }
  return 'more';
}

test('the end of the object, whatever the chunks: brackets and quotes inside strings, escapes, UTF-8', () => {
  const object = ' \n{"a":"}]{[\\"\\\\","b":[1,{"c":"é\u2028😀"}],"d":"\\\\"}';
  for (const tail of ['', '\n', 'garbage {'])
    for (const size of [1, 2, 3, 7, 1000])
      assert.equal(scan(object + tail, size), Buffer.byteLength(object), `${size}`);
});

test('incomplete input asks for more', () => {
  for (const text of ['', '  ', '{', '{"a":"}', '{"a":"\\"}', '{"a":[1,2]'])
    for (const size of [1, 5]) assert.equal(scan(text, size), 'more', text);
});

test('refused: not an object, past the depth, past the count of values', () => {
  for (const text of ['[1]', '"x"', '\u0000{}', 'x{}', '}'])
    assert.equal(scan(text, 1), 'it does not start with "{"', JSON.stringify(text));
  assert.equal(scan('{"a":[[[[1]]]]}', 2), 'it nests deeper than 4 levels');
  assert.equal(scan('{"a":[[[1]]]}', 2), 13);
  // Brackets in strings are no nesting.
  assert.equal(scan('{"a":"[[[[[[[["}', 2), 16);
  assert.equal(scan(`{"a":[${'1,'.repeat(30)}1]}`, 4), 'it holds more than 20 values');
  assert.equal(scan(`{"a":"${',:'.repeat(30)}"}`, 4), 68);
});
