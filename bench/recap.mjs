#!/usr/bin/env node
// `vox recap` with 1,000 missed items (issue 33): from POST /v1/recap to the
// first audio at the sink. Budget: <= 300 ms. In-process: buildServer() with
// the real embedded espeak engine and a real-time FileSink, listening on
// 127.0.0.1:0, its recall (dispatch/recall.ts) read from a recall.jsonl seeded
// with 1,000 missed items over 8 sessions (each trial a fresh copy: a recap
// moves the mark). The baseline, in the same run, is the same route with
// nothing missed ("Nothing new since the last recap."). Reports the medians
// and p95 over BENCH_RUNS trials (default 15) and their ratio; never fails on
// a duration. Needs `npm run build` first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { Recall } from '../packages/voxd/dist/dispatch/recall.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { median, percentile, report, round, TimedSink, BENCH_TOKEN as TOKEN, postJson as post } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ITEMS = 1000;
const BUDGET_MS = 300;

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-recap-'));
const lines = Array.from({ length: ITEMS }, (_, i) =>
  JSON.stringify({
    t: 'u',
    n: i + 1,
    id: `m${String(i).padStart(7, '0')}`,
    session: `s${i % 8}#${String(i % 8).repeat(6)}`,
    priority: 'notification',
    outcome: i % 3 ? 'dropped' : 'failed',
    text: `Session ${i % 8} finished step ${i} of the long migration, with a sentence of ordinary length.`,
    at: Date.now() - (ITEMS - i) * 1000,
    missed: true,
  }),
);
const engine = new EspeakEngine();
await engine.start();
const sink = new TimedSink(new FileSink(join(dir, 'sink')));

/** ms from the request to the first audio at the sink, with `missed` items waiting. */
async function trial(missed, i) {
  const path = join(dir, `recall-${i}.jsonl`);
  writeFileSync(path, missed ? `${lines.join('\n')}\n` : '');
  const recall = new Recall(path);
  const { app, dispatcher } = await buildServer({ token: TOKEN, synthesizer: singleEngine(engine), sink, recall });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const end = sink.nextEnd();
    const t0 = performance.now();
    const r = await post(app.server.address().port, '/v1/recap', {});
    if (r.body.items !== (missed ? ITEMS : 0)) throw new Error(`recap answered ${JSON.stringify(r.body)}`);
    while (!sink.firstAudio) await new Promise((res) => setImmediate(res));
    const ms = sink.firstAudio - t0;
    await dispatcher.stop('all');
    await end;
    return ms;
  } finally {
    await app.close();
    recall.close();
  }
}

try {
  const results = { missed: [], none: [] };
  // Alternated, after two warm-up trials of each.
  for (let i = 0; i < RUNS + 2; i++) {
    for (const kind of ['missed', 'none']) {
      const ms = await trial(kind === 'missed', `${kind}-${i}`);
      if (i >= 2) results[kind].push(ms);
    }
  }
  const m = median(results.missed);
  const b = median(results.none);
  report({
    bench: 'recap',
    items: ITEMS,
    firstAudioMedianMs: round(m),
    firstAudioP95Ms: round(percentile(results.missed, 95)),
    nothingNewMedianMs: round(b),
    ratio: round(m / b),
    budgetMs: BUDGET_MS,
    withinBudget: percentile(results.missed, 95) <= BUDGET_MS,
    runs: RUNS,
  });
} finally {
  await engine.close();
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
}
