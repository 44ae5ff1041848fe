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

test('a function named as read early is read without loading, and loads at its first call', () => {
  let loads = 0;
  const real = {
    base: 10,
    add(x: number) {
      return this.base + x;
    },
  };
  const s = lazyModule(() => (loads++, real), ['add']) as typeof real;
  // rotating-file-stream's constructor keeps zlib's createGzip for a compressed rotation that may never come.
  const kept = s.add;
  assert.equal(loads, 0, 'reading it loads nothing');
  assert.equal(kept(5), 15, 'called, it is the real function, on the real module');
  assert.equal(loads, 1);
  assert.equal(s.base, 10);
  assert.equal(loads, 1);
});

test('a class named as read early is constructed at the first use of its instance', () => {
  let loads = 0;
  let made = 0;
  class Builder {
    constructor(readonly options: { headless: boolean }) {
      made++;
    }
    build(x: string) {
      return this.options.headless ? x : `<?xml?>${x}`;
    }
  }
  const s = lazyModule(() => (loads++, { Builder }), ['Builder']) as { Builder: typeof Builder };
  // dbus-next makes its xml2js builder when it connects; a client may never ask for introspection data.
  const b = new s.Builder({ headless: true });
  assert.deepEqual([loads, made], [0, 0], 'constructing it loads and makes nothing');
  assert.equal(b.build('<node/>'), '<node/>');
  assert.deepEqual([loads, made], [1, 1]);
  (b as unknown as { extra: number }).extra = 2;
  assert.equal((b as unknown as { extra: number }).extra, 2, 'a property set on it is set on the real instance');
  assert.equal(made, 1);
});
