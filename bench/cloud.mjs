#!/usr/bin/env node
// Cloud time to first audio through voxd's engine registry, against a local
// fake API that waits LATENCY_MS before its first byte (as a real API thinks),
// compared with the time to first byte a bare node:http client sees from the
// same fake. Budget: ratio (median TTFA / median TTFB) <= 1.2.
// Prints one JSON line per engine. Needs `npm run build` first.
import { Agent, createServer, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineRegistry } from '../packages/voxd/dist/engines/registry.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 60);
const BUDGET = 1.2;

// One fake serving both APIs: PCM (0.5 s) in 4 KB chunks, 2 ms apart, after LATENCY_MS.
const pcm = Buffer.alloc(24000);
for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(Math.sin(i / 10) * 8000), i * 2);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    setTimeout(async () => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      for (let i = 0; i < pcm.length && !res.destroyed; i += 4096) {
        res.write(pcm.subarray(i, i + 4096));
        await new Promise((r) => setTimeout(r, 2));
      }
      res.end();
    }, LATENCY_MS);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 100) / 100;

// The fake's own time to first byte, as a bare keep-alive client sees it.
const agent = new Agent({ keepAlive: true });
function rawTtfb(path, headers) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      `${base}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.once('data', () => {
          resolve(performance.now() - t0);
          res.resume();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ input: 'x' }));
  });
}

const home = mkdtempSync(join(tmpdir(), 'vox-bench-cloud-'));
const embedded = {
  name: 'espeak',
  ready: async () => ({ ready: true }),
  voices: async () => [],
  understandsTags: () => false,
  synthesize: async () => {
    throw new Error('the bench must not fall back');
  },
  close: async () => {},
};
const registry = createEngineRegistry({
  env: {
    PATH: '',
    OPENAI_API_KEY: 'sk-bench',
    ELEVENLABS_API_KEY: 'bench',
    OPENAI_BASE_URL: `${base}/v1`,
    ELEVENLABS_BASE_URL: base,
  },
  home,
  embedded,
  cache: false,
  platform: 'linux',
});

try {
  for (const [engine, path, headers] of [
    ['openai', '/v1/audio/speech', { authorization: 'Bearer sk-bench' }],
    ['elevenlabs', '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb/stream?output_format=pcm_22050', { 'xi-api-key': 'bench' }],
  ]) {
    const ttfa = [];
    const ttfb = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const raw = await rawTtfb(path, headers);
      const t0 = performance.now();
      const r = await registry.synthesize({ engine, text: `Run ${i} finished.` });
      const it = r.synthesis.chunks[Symbol.asyncIterator]();
      const first = await it.next();
      const ms = performance.now() - t0;
      if (r.engine !== engine || first.done) throw new Error(`${engine}: no audio (${r.fallbackReason ?? 'empty'})`);
      // Play it out, as voxd does, so the connection is reused like in real use.
      while (!(await it.next()).done);
      if (i >= 3) {
        // The first runs open the connections.
        ttfa.push(ms);
        ttfb.push(raw);
      }
    }
    const ratio = median(ttfa) / median(ttfb);
    console.log(
      JSON.stringify({
        bench: `cloud.${engine}.time-to-first-audio`,
        unit: 'ratio',
        runs: ttfa.length,
        fakeLatencyMs: LATENCY_MS,
        ttfaMedianMs: round(median(ttfa)),
        fakeTtfbMedianMs: round(median(ttfb)),
        overheadMs: round(median(ttfa) - median(ttfb)),
        ratio: round(ratio),
        budget: BUDGET,
        ok: ratio <= BUDGET,
      }),
    );
  }
} finally {
  await registry.close();
  agent.destroy();
  server.closeAllConnections();
  server.close();
  rmSync(home, { recursive: true, force: true });
}
