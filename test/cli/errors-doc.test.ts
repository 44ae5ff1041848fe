/** docs/errors.md and the two error catalogues stay in step (CONTRIBUTING.md habit 6). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WIRE_ERRORS } from '@vox/protocol';
import { CLIENT_ERRORS } from '../../packages/vox-mcp/src/errors.js';
import { ROOT } from '../helpers/daemon.js';

const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');

function documented(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`(VOX_ERR_[A-Z_]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        m[2]!.split('|').map((c) => c.trim()),
      );
  }
  return rows;
}

test('every table has the columns Code, Meaning and How to fix', () => {
  const headers = doc.split('\n').filter((l) => l.startsWith('| Code'));
  assert.ok(headers.length >= 2);
  for (const h of headers)
    assert.deepEqual(
      h
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean),
      ['Code', 'Meaning', 'How to fix'],
    );
});

test('every code in the catalogues is documented with a meaning and a fix', () => {
  const rows = documented();
  for (const code of [...Object.keys(WIRE_ERRORS), ...Object.keys(CLIENT_ERRORS)]) {
    const row = rows.get(code);
    assert.ok(row, `${code} is missing from docs/errors.md`);
    assert.equal(row.length, 2, `${code} needs a Meaning and a How to fix cell`);
    assert.ok(row[0]!.length > 10 && row[1]!.length > 10, `${code} has an empty cell`);
  }
});

test('nothing documented is missing from the code', () => {
  const known = new Set([...Object.keys(WIRE_ERRORS), ...Object.keys(CLIENT_ERRORS)]);
  for (const code of documented().keys()) assert.ok(known.has(code), `${code} is documented but not defined`);
});

test('wire messages say how to fix, and client codes never collide with wire codes', () => {
  for (const [code, spec] of Object.entries(WIRE_ERRORS)) {
    assert.ok(spec.message.length > 30, code);
    assert.ok(spec.statusCode >= 400 && spec.statusCode < 600, code);
    assert.ok(!(code in CLIENT_ERRORS));
  }
});
