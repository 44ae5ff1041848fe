#!/usr/bin/env node
// A deep queue: 10,000 requests waiting behind one that plays. Figures:
// - admission: the time to accept each of them (median and p99), first 1,000
//   against last 1,000 (the baseline: a queue that is still short), so growth
//   per item shows as a ratio;
// - stop all: POST /v1/stop {scope: all} to the end of audio at the sink
//   (the sink notes when play() returns). Budget <= 100 ms;
// - the size of GET /v1/status with 10,000 queued.
// In-process: buildServer() with the real embedded espeak engine and a
// real-time FileSink on 127.0.0.1:0. Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { median, percentile, report, round, TimedSink } from './lib.mjs';

const N = 10_000;
const TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

function api(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { authorization: `Bearer ${TOKEN}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const out = mkdtempSync(join(tmpdir(), 'vox-bench-deep-'));
const engine = new EspeakEngine();
await engine.start();
const sink = new TimedSink(new FileSink(out, { realtime: true }));
const { app, dispatcher } = await buildServer({ token: TOKEN, synthesizer: singleEngine(engine), sink, maxQueue: N });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = app.server.address().port;
try {
  const first = await dispatcher.speak({
    text: 'This long announcement plays while ten thousand others wait behind it. '.repeat(30),
  });
  const times = [];
  const settled = [first.settled];
  for (let i = 1; i < N; i++) {
    const t0 = performance.now();
    const r = await dispatcher.speak({ text: `Queued announcement number ${i}`, session: `s${i % 8}` });
    times.push(performance.now() - t0);
    settled.push(r.settled);
  }
  const early = times.slice(0, 1000);
  const late = times.slice(-1000);
  const status = await api(port, 'GET', '/v1/status');
  const ended = sink.nextEnd();
  const t0 = performance.now();
  const stop = await api(port, 'POST', '/v1/stop', { scope: 'all' });
  const responded = performance.now();
  const end = await ended;
  const outcomes = await Promise.all(settled);
  report({
    bench: 'deep queue: 10,000 queued',
    admissionMedianUsFirst1000: round(median(early) * 1000, 1),
    admissionMedianUsLast1000: round(median(late) * 1000, 1),
    admissionGrowth: round(median(late) / median(early)),
    admissionP99UsLast1000: round(percentile(late, 99) * 1000, 1),
    statusBytes: Buffer.byteLength(status.text),
    stopStatus: stop.status,
    stopToEndOfAudioMs: round(end - t0),
    stopResponseMs: round(responded - t0),
    stoppedOutcomes: outcomes.filter((o) => o.status === 'stopped').length,
    budgetMs: 100,
    withinBudget: end - t0 <= 100,
  });
} finally {
  await app.close();
  await engine.close();
  rmSync(out, { recursive: true, force: true });
}
