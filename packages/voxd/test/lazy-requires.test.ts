/** The stand-in of a module voxd's dependencies load and voxd never uses (lazy-requires.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyModule } from '../src/lazy-requires.js';

test('a stand-in loads its module at the first property read, once, and passes everything through', () => {
  let loads = 0;
  const real = { version: '1.2.3', f: (x: number) => x + 1 };
  const s = lazyModule(() => (loads++, real)) as typeof real;
  assert.equal(loads, 0, 'nothing loaded by making it');
  assert.equal(s.f(1), 2);
  assert.equal(s.version, '1.2.3');
  assert.equal(loads, 1);
  assert.ok('f' in s);
  assert.deepEqual(Object.keys(s).sort(), ['f', 'version']);
});
