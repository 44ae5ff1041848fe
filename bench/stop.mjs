#!/usr/bin/env node
// Stop latency (issue "Shared voice etiquette"): from POST /v1/stop to the end
// of audio at the sink. Budget: <= 100 ms. In-process: buildServer() with the
// real embedded espeak engine and a real-time FileSink, listening on
// 127.0.0.1:0; the sink is wrapped to note performance.now() when play()
// returns (the WAV is complete and closed: no audio can follow). Each trial speaks a
// long utterance, lets it play for a varying time, then stops it. Reports
// median and p95 over BENCH_RUNS trials (default 25), for the HTTP route and
// for a direct dispatcher.stop() call. Prints one JSON line per figure; never
// fails on a duration. Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { median, percentile, report, round, TimedSink, BENCH_TOKEN as TOKEN, postJson as post } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const BUDGET_MS = 100;
const LONG =
  'This announcement is long on purpose, so that there is time to stop it while it plays. ' +
  'It goes on with a second sentence about nothing in particular. ' +
  'A third sentence follows, and then a fourth one closes it.';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const out = mkdtempSync(join(tmpdir(), 'vox-bench-stop-'));
const engine = new EspeakEngine();
await engine.start();
const sink = new TimedSink(new FileSink(out));
const { app, dispatcher } = await buildServer({ token: TOKEN, synthesizer: singleEngine(engine), sink });
try {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = app.server.address().port;

  const results = { http: [], direct: [] };
  let trial = 0;
  for (const via of ['http', 'direct']) {
    for (let i = 0; i < RUNS + 3; i++) {
      trial += 1;
      const { response, settled } = await dispatcher.speak({ text: `Trial ${trial}. ${LONG}` });
      // Let it play for 150 to 1,300 ms: the stop lands mid-sentence or between sentences.
      while (!(dispatcher.playing?.id === response.id && sink.firstAudio)) await sleep(2);
      await sleep(150 + ((i * 97) % 1150));
      const end = sink.nextEnd();
      const t0 = performance.now();
      if (via === 'http') {
        const r = await post(port, '/v1/stop', { scope: 'current' });
        if (r.body.stopped[0] !== response.id) throw new Error(`stop answered ${JSON.stringify(r.body)}`);
      } else {
        dispatcher.stop('current');
      }
      const ended = await end;
      const outcome = (await settled).status;
      if (outcome !== 'stopped') throw new Error(`trial ${trial} ended ${outcome}`);
      await dispatcher.idle();
      if (i < 3) continue; // warm-up
      results[via].push(ended - t0);
    }
  }
  for (const via of ['http', 'direct']) {
    const ms = results[via];
    report({
      bench: `stop-${via}`,
      runs: ms.length,
      medianMs: round(median(ms)),
      p95Ms: round(percentile(ms, 95)),
      maxMs: round(Math.max(...ms)),
      budgetMs: BUDGET_MS,
      withinBudget: percentile(ms, 95) <= BUDGET_MS,
    });
  }
} finally {
  await app.close();
  await engine.close();
  rmSync(out, { recursive: true, force: true });
}
