#!/usr/bin/env node
// The focus moved by a prompt typed in another session (issue 33): from the
// hook's request reaching voxd to the new focus applied. Budget: <= 50 ms.
// In-process: buildServer() with `attention: focus` and the null sink
// (nothing is spoken: the focus is all that changes), listening on
// 127.0.0.1:0, its recall seeded with 1,000 held items over 8 sessions (the
// answer counts them). Each trial alternates the focus between two sessions
// by the two routes a new prompt takes: POST /v1/narration/cut (a narrating
// project) and POST /v1/focus (the others); the time is from the request's
// first byte to the answer's end on a kept-alive connection, and the focus is
// checked applied in that answer. The baseline, in the same run, is GET
// /v1/health on the same connection. Reports medians and p95 over BENCH_RUNS
// trials (default 200) and the ratios; never fails on a duration. Needs
// `npm run build` first.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { Recall } from '../packages/voxd/dist/dispatch/recall.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { NullSink } from '../packages/voxd/dist/sinks/null.js';
import { median, percentile, report, round } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const HELD = 1000;
const BUDGET_MS = 50;
const TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-focus-'));
const path = join(dir, 'recall.jsonl');
writeFileSync(
  path,
  Array.from({ length: HELD }, (_, i) =>
    JSON.stringify({
      t: 'u',
      n: i + 1,
      id: `h${String(i).padStart(7, '0')}`,
      session: `s${i % 8}#${String(i % 8).repeat(6)}`,
      priority: 'text',
      outcome: 'held',
      text: `Session ${i % 8} finished step ${i} of the long migration.`,
      at: Date.now(), // the digest is due 30 s later, after the run
      missed: true,
    }),
  ).join('\n') + '\n',
);
const recall = new Recall(path);
const engine = new EspeakEngine();
const { app } = await buildServer({
  token: TOKEN,
  synthesizer: singleEngine(engine),
  sink: new NullSink(),
  recall,
  attention: { mode: 'focus', digestMs: 3_600_000 },
});
try {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = app.server.address().port;
  const times = { cut: [], focus: [], health: [] };
  for (let i = 0; i < RUNS + 10; i++) {
    const session = `p${i % 2}#${String(i % 2).repeat(6)}`;
    const cut = await send(port, 'POST', '/v1/narration/cut', { session });
    const after = (await send(port, 'GET', '/v1/focus')).body;
    if (cut.status !== 200 || after.focus !== session)
      throw new Error(`the cut did not move the focus: ${JSON.stringify(after)}`);
    const other = `q${i % 2}#${String(i % 2).repeat(6)}`;
    const focus = await send(port, 'POST', '/v1/focus', { session: other, reason: 'prompt' });
    if (focus.body.focus !== other || focus.body.held.length !== 8)
      throw new Error(`focus answered ${JSON.stringify(focus.body)}`);
    const health = await send(port, 'GET', '/v1/health');
    if (i >= 10) {
      times.cut.push(cut.ms);
      times.focus.push(focus.ms);
      times.health.push(health.ms);
    }
  }
  const base = median(times.health);
  report({
    bench: 'focus',
    held: HELD,
    cutMedianMs: round(median(times.cut)),
    cutP95Ms: round(percentile(times.cut, 95)),
    focusMedianMs: round(median(times.focus)),
    focusP95Ms: round(percentile(times.focus, 95)),
    healthMedianMs: round(base),
    cutRatio: round(median(times.cut) / base),
    focusRatio: round(median(times.focus) / base),
    budgetMs: BUDGET_MS,
    withinBudget: Math.max(percentile(times.cut, 95), percentile(times.focus, 95)) <= BUDGET_MS,
    runs: RUNS,
  });
} finally {
  await app.close();
  await engine.close();
  recall.close();
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}
