import assert from 'node:assert/strict';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CACHE_HEADER_BYTES, cacheKey, canonicalJson, createCache, type CacheKeyInput } from '../../src/audio/cache.js';
import type { AudioFormat } from '../../src/audio/pcm.js';
import { sine } from '../fixtures/sine-engine.js';

const FORMAT: AudioFormat = { sampleRate: 22050, channels: 1, bitDepth: 16 };
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'vox-cache-'));
  dirs.push(d);
  return join(d, 'cache');
}

const base: CacheKeyInput = {
  engine: 'openai',
  model: 'tts-1',
  voice: 'alloy',
  rate: 175,
  volume: 1,
  params: { speed: 1 },
  text: 'Build passed.',
};

test('the same request hits', async () => {
  const cache = createCache({ dir: dir() });
  const pcm = sine(300, 22050);
  const key = cache.key(base);
  assert.equal(await cache.get(key), undefined);
  assert.equal(await cache.put(key, FORMAT, pcm), true);
  const hit = await cache.get(cache.key({ ...base }));
  assert.ok(hit);
  assert.deepEqual(hit.format, FORMAT);
  assert.deepEqual(hit.pcm, pcm);
  const s = await cache.stats();
  assert.equal(s.hits, 1);
  assert.equal(s.misses, 1);
});

test('changing the rate, the model, the voice, the volume, an engine parameter, the engine or the text misses', async () => {
  const cache = createCache({ dir: dir() });
  await cache.put(cache.key(base), FORMAT, sine(100, 22050));
  const variants: CacheKeyInput[] = [
    { ...base, rate: 200 },
    { ...base, model: 'gpt-4o-mini-tts' },
    { ...base, voice: 'nova' },
    { ...base, volume: 0.5 },
    { ...base, params: { speed: 1.5 } },
    { ...base, format: 'pcm_24000' },
    { ...base, engine: 'elevenlabs' },
    { ...base, text: 'Build passed!' },
  ];
  const keys = new Set(variants.map((v) => cache.key(v)));
  assert.equal(keys.size, variants.length);
  assert.ok(!keys.has(cache.key(base)));
  for (const v of variants) assert.equal(await cache.get(cache.key(v)), undefined, JSON.stringify(v));
  assert.ok(await cache.get(cache.key(base)));
});

test('the key is canonical: member order and undefined members do not matter', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: undefined, c: [1, 'x'] } }), '{"a":{"c":[1,"x"]},"b":1}');
  assert.equal(
    cacheKey({ text: 'x', engine: 'e', voice: undefined, params: { b: 2, a: 1 } }),
    cacheKey({ engine: 'e', params: { a: 1, b: 2 }, text: 'x' }),
  );
  assert.match(cacheKey(base), /^[0-9a-f]{64}$/);
});

test('eviction keeps the size bound and drops the least recently used', async () => {
  const d = dir();
  const entry = sine(100, 22050); // 4410 bytes
  const size = entry.length + CACHE_HEADER_BYTES;
  const cache = createCache({ dir: d, maxBytes: size * 4 });
  const keys = Array.from({ length: 10 }, (_, i) => cache.key({ ...base, text: `line ${i}` }));
  for (const [i, k] of keys.entries()) {
    await cache.put(k, FORMAT, entry);
    if (i >= 1) assert.ok(await cache.get(keys[0]!), 'the entry in use stays'); // keeps keys[0] recent
    const s = await cache.stats();
    assert.ok(s.bytes <= size * 4, `bytes ${s.bytes} over the bound`);
  }
  const onDisk = readdirSync(d).filter((f) => f.endsWith('.vox'));
  assert.equal(onDisk.length, 4);
  const total = onDisk.reduce((n, f) => n + statSync(join(d, f)).size, 0);
  assert.ok(total <= size * 4);
  assert.ok(await cache.get(keys[0]!), 'recently used entry survived');
  assert.ok(await cache.get(keys[9]!), 'newest entry survived');
  assert.equal(await cache.get(keys[1]!), undefined, 'least recently used entry was evicted');
});

test('an entry larger than the bound is not stored', async () => {
  const cache = createCache({ dir: dir(), maxBytes: 1000 });
  assert.equal(await cache.put(cache.key(base), FORMAT, sine(100, 22050)), false);
  assert.equal((await cache.stats()).entries, 0);
});

test('a truncated entry is a miss, is removed, and is healed by the next put', async () => {
  const d = dir();
  const cache = createCache({ dir: d });
  const key = cache.key(base);
  const pcm = sine(200, 22050);
  await cache.put(key, FORMAT, pcm);
  const file = join(d, `${key}.vox`);
  truncateSync(file, CACHE_HEADER_BYTES + 100);
  assert.equal(await cache.get(key), undefined);
  assert.throws(() => statSync(file), /ENOENT/);
  await cache.put(key, FORMAT, pcm);
  assert.deepEqual((await cache.get(key))?.pcm, pcm);
});

test('a flipped byte fails the checksum', async () => {
  const d = dir();
  const warnings: object[] = [];
  const cache = createCache({ dir: d, log: { warn: (o) => warnings.push(o) } });
  const key = cache.key(base);
  await cache.put(key, FORMAT, sine(200, 22050));
  const file = join(d, `${key}.vox`);
  const buf = readFileSync(file);
  buf[CACHE_HEADER_BYTES + 500]! ^= 0xff;
  writeFileSync(file, buf);
  assert.equal(await cache.get(key), undefined);
  assert.equal(warnings.length, 1);
});

test('garbage in the cache directory is not an entry', async () => {
  const d = dir();
  const cache = createCache({ dir: d });
  const key = cache.key(base);
  await cache.stats();
  writeFileSync(join(d, `${key}.vox`), 'not audio');
  assert.equal(await cache.get(key), undefined);
  assert.equal(await cache.get('../../etc/passwd'), undefined);
});

test('concurrent writers of the same key leave one valid entry and no temp files', async () => {
  const d = dir();
  const cache = createCache({ dir: d });
  const other = createCache({ dir: d });
  const key = cache.key(base);
  const pcm = sine(500, 22050);
  const results = await Promise.all([
    ...Array.from({ length: 8 }, () => cache.put(key, FORMAT, pcm)),
    ...Array.from({ length: 8 }, () => other.put(key, FORMAT, [pcm.subarray(0, 1001), pcm.subarray(1001)])),
  ]);
  assert.ok(results.every(Boolean));
  assert.deepEqual(readdirSync(d), [`${key}.vox`]);
  assert.deepEqual((await cache.get(key))?.pcm, pcm);
  assert.equal((await cache.stats()).entries, 1);
});

test('a new cache on the same directory finds the entries, oldest first, and clears stale temp files', async () => {
  const d = dir();
  const first = createCache({ dir: d });
  const entry = sine(100, 22050);
  const size = entry.length + CACHE_HEADER_BYTES;
  const k = [0, 1, 2].map((i) => first.key({ ...base, text: `t${i}` }));
  for (const key of k) await first.put(key, FORMAT, entry);
  // k[0] is the most recently used on disk.
  const t = Date.now() / 1000;
  utimesSync(join(d, `${k[1]}.vox`), t - 300, t - 300);
  utimesSync(join(d, `${k[2]}.vox`), t - 200, t - 200);
  utimesSync(join(d, `${k[0]}.vox`), t - 100, t - 100);
  writeFileSync(join(d, 'leftover.123.abc.tmp'), 'x');
  utimesSync(join(d, 'leftover.123.abc.tmp'), t - 3600, t - 3600);

  const second = createCache({ dir: d, maxBytes: size * 3 });
  assert.equal((await second.stats()).entries, 3);
  assert.ok(!readdirSync(d).some((f) => f.endsWith('.tmp')));
  await second.put(second.key({ ...base, text: 'new' }), FORMAT, entry);
  assert.equal(await second.get(k[1]!), undefined, 'oldest by mtime evicted');
  assert.ok(await second.get(k[0]!));
  assert.ok(await second.get(k[2]!));
});
