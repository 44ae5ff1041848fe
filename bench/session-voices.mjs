#!/usr/bin/env node
// The cost of giving each session its own voice (issue 21): every request
// that names a session is given that session's voice at admission
// (voices/assignment.ts). Figure: POST /v1/speak answered (202 queued, a
// null sink, a kept-alive connection), median and p90, with a session label
// (eight sessions in turn, so each already has its voice: the usual case)
// against the same request without one (no voice to choose), interleaved in
// the same run; plus the first request of a new session each time (a voice
// is chosen and the file written). No budget was set in the issue: the
// ratio should stay near 1. Medians of BENCH_RUNS (default 400) each.
// Prints one JSON line. Needs `npm run build` first.
import { Agent, request } from 'node:http';
import { median, percentile, report, round, startVoxd } from './lib.mjs';

const RUNS = Math.max(100, Number(process.env.BENCH_RUNS ?? 400));
const d = await startVoxd({ audio: 'null' });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
try {
  const post = (body) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request(
        {
          host: '127.0.0.1',
          port: d.port,
          method: 'POST',
          path: '/v1/speak',
          agent,
          headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode < 300
              ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  let n = 0;
  // Distinct texts, so none is a duplicate; a stop every 50 keeps the queue short.
  const body = (extra) => ({ text: `Status line number ${n++} of the bench.`, priority: 'message', ...extra });
  const times = { withSession: [], withoutSession: [], newSession: [] };
  for (let i = 0; i < 20; i++) {
    await post(body({ session: `warm#${i % 8}` }));
    await post(body({}));
  }
  for (let i = 0; i < RUNS; i++) {
    times.withSession.push(await post(body({ session: `api${i % 8}#c0ffee` })));
    times.withoutSession.push(await post(body({})));
    if (i % 8 === 0) times.newSession.push(await post(body({ session: `new${i}#beef00` })));
    if (i % 50 === 49)
      await post({ text: 'x', priority: 'message' }).then(() => d.api('POST', '/v1/stop', { scope: 'all' }));
  }
  const w = median(times.withSession);
  const wo = median(times.withoutSession);
  report({
    bench: 'session-voices',
    runs: RUNS,
    withSessionMedianMs: round(w),
    withSessionP90Ms: round(percentile(times.withSession, 90)),
    withoutSessionMedianMs: round(wo),
    withoutSessionP90Ms: round(percentile(times.withoutSession, 90)),
    ratio: round(w / wo),
    newSessionMedianMs: round(median(times.newSession)),
    newSessionRatio: round(median(times.newSession) / wo),
  });
} finally {
  agent.destroy();
  await d.stop();
}
