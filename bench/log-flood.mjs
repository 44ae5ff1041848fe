#!/usr/bin/env node
// A flood: N identical POST /v1/speak (32 keep-alive connections, all but the
// first joined by the duplicate filter, null sink) to a real voxd, which logs
// one info line per request. Figures, per log level (info: one line a request;
// warn: none, the baseline in the same run):
// - voxd's RSS idle (after one request) and at its peak during the flood, as
//   a ratio to idle;
// - its RSS at the half of the flood and at the end: a ratio near 1 means
//   memory stopped growing (bounded), a log that queued without limit kept
//   growing (before the fix: 126 -> 203 MB over 60,000 requests);
// - requests a second, and the "N log lines dropped" lines the log has.
//
//   BENCH_FLOOD_REQUESTS=N (default 60000); BENCH_VOXD=PATH another build's
//   packages/voxd/dist/main.js to compare with (default this tree's).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { report, round, rssMb, startVoxd, VOXD } from './lib.mjs';

const N = Number(process.env.BENCH_FLOOD_REQUESTS) || 60_000;
const CONNECTIONS = 32;
const voxd = process.env.BENCH_VOXD || VOXD;

async function flood(level) {
  const d = await startVoxd({ audio: 'null', voxd, env: { VOXD_LOG_LEVEL: level } });
  const payload = JSON.stringify({ text: 'The build is green again.', once: 3600, session: 'flood' });
  const flooder = d.flooder(CONNECTIONS);
  const speak = () => flooder.speak(payload);
  try {
    await speak();
    await d.idle();
    await new Promise((r) => setTimeout(r, 500));
    const idle = rssMb(d.pid);
    let peak = idle;
    let half = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(d.pid))), 200);
    let sent = 0;
    let answered = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < N) {
          sent += 1;
          const code = await speak();
          if (code === 200 || code === 202) answered += 1;
          if (sent === N / 2) half = rssMb(d.pid);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const end = rssMb(d.pid);
    peak = Math.max(peak, end);
    flooder.close();
    await new Promise((r) => setTimeout(r, 1000));
    // voxd.log and the files it rotated into (5 MB each).
    const logs = join(d.home, 'logs');
    const files = readdirSync(logs).filter((f) => f.endsWith('voxd.log'));
    const lines = files.flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n').filter(Boolean));
    const droppedLines = lines.filter((l) => l.includes('"dropped":')).map((l) => JSON.parse(l).dropped);
    return {
      idle,
      peak,
      half,
      end,
      seconds,
      answered,
      speakLines: lines.filter((l) => l.includes('"msg":"speak"')).length,
      dropped: droppedLines.reduce((a, b) => a + b, 0),
    };
  } finally {
    await d.stop();
  }
}

const figures = {};
for (const level of ['info', 'warn']) figures[level] = await flood(level);
for (const [level, f] of Object.entries(figures)) {
  report({
    bench: `log flood: ${N} deduplicated speaks, log level ${level}`,
    voxd: voxd === VOXD ? 'this tree' : voxd,
    requestsPerSecond: Math.round(N / f.seconds),
    answered: f.answered,
    idleRssMb: round(f.idle, 1),
    peakRssMb: round(f.peak, 1),
    peakRatioToIdle: round(f.peak / f.idle),
    endRatioToHalf: round(f.end / f.half),
    peakRatioToWarnPeak: round(f.peak / figures.warn.peak),
    speakLinesWritten: f.speakLines,
    linesDropped: f.dropped,
    // Bounded: memory stopped growing by the half of the flood (5% for noise).
    budgetEndRatioToHalf: 1.05,
    withinBudget: f.end / f.half <= 1.05,
  });
}
