#!/usr/bin/env node
// Cache hit latency: from registry.synthesize() to the first PCM chunk, for a
// 5-second utterance (24 kHz, ~240 KB) already in the on-disk cache.
// Budget: p95 <= 10 ms. Prints one JSON line. Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCache } from '../packages/voxd/dist/audio/cache.js';
import { createEngineRegistry } from '../packages/voxd/dist/engines/registry.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const BUDGET_MS = 10;
const SAMPLE_RATE = 24000;
const SECONDS = 5;

// A stand-in embedded engine: a tone of SECONDS, in 20 ms chunks.
const tone = Buffer.alloc(SAMPLE_RATE * SECONDS * 2);
for (let i = 0; i < tone.length / 2; i++)
  tone.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE) * 10000), i * 2);
const embedded = {
  name: 'espeak',
  calls: 0,
  async ready() {
    return { ready: true };
  },
  async voices() {
    return [];
  },
  understandsTags() {
    return false;
  },
  async synthesize() {
    this.calls++;
    async function* chunks() {
      for (let i = 0; i < tone.length; i += 960) yield tone.subarray(i, i + 960);
    }
    return { format: { sampleRate: SAMPLE_RATE, channels: 1, bitDepth: 16 }, chunks: chunks() };
  },
  async close() {},
};

const home = mkdtempSync(join(tmpdir(), 'vox-bench-cache-'));
try {
  const cache = createCache({ dir: join(home, 'cache') });
  const registry = createEngineRegistry({ env: { PATH: '' }, home, embedded, cache, platform: 'linux' });
  const request = { engine: 'espeak', text: 'The build finished. All four hundred tests passed.', rate: 175 };

  // Fill the cache, and wait for the write.
  for await (const _ of (await registry.synthesize(request)).synthesis.chunks);
  while ((await cache.stats()).entries === 0) await new Promise((r) => setTimeout(r, 5));

  const times = [];
  for (let i = 0; i < RUNS + 20; i++) {
    const t0 = performance.now();
    const r = await registry.synthesize(request);
    const it = r.synthesis.chunks[Symbol.asyncIterator]();
    const first = await it.next();
    const ms = performance.now() - t0;
    if (!r.cached || first.done) throw new Error('expected a cache hit with audio');
    await it.return?.();
    if (i >= 20) times.push(ms); // the first runs warm the JIT and the page cache
  }
  await registry.close();
  if (embedded.calls !== 1) throw new Error(`engine called ${embedded.calls} times; the cache did not serve`);

  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  const round = (x) => Math.round(x * 1000) / 1000;
  console.log(
    JSON.stringify({
      bench: 'cache.hit-to-first-chunk',
      unit: 'ms',
      runs: times.length,
      entryBytes: tone.length,
      median: round(q(0.5)),
      p95: round(q(0.95)),
      max: round(times.at(-1)),
      budget: BUDGET_MS,
      ok: q(0.95) <= BUDGET_MS,
    }),
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
