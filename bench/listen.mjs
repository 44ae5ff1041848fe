// Budgets (issue 13, voice input):
// - from the end of the user's speech to the transcript returned: at most
//   silenceMs + the transcriber's own time + 50 ms;
// - idle voxd RSS unchanged while nobody listens (capture, VAD and the
//   transcriber load on the first listen only);
// - no recorder binary: the clear error within 1 s.
//
// The microphone is test/fixtures/listen/arecord playing sentence.wav at real
// time: it notes when it starts, and the speech ends SPEECH_END_MS later. The
// transcriber is an OpenAI-style server on 127.0.0.1 in this process that
// answers after a set delay and times itself (first byte of the request to
// the answer sent). Latency: the listen's answer received, less that end.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, report, ROOT, round, rssMb, startVoxd } from './lib.mjs';

const SHIM = join(ROOT, 'test/fixtures/listen/arecord');
const SPEECH_END_MS = 300 + 1740; // scripts/make-listen-fixture.mjs prints it
const RUNS = Number(process.env.BENCH_LISTEN_RUNS ?? 5);
const SILENCE_MS = 700;

let delayMs = 0;
const served = [];
const server = createServer((req, res) => {
  const t0 = performance.now();
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ text: 'Please turn on the lights in the kitchen.' }));
      served.push(performance.now() - t0);
    }, delayMs),
  );
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/v1`;
const scratch = mkdtempSync(join(tmpdir(), 'vox-bench-listen-'));
const pidfile = join(scratch, 'mic.pid');
const env = { VOXD_RECORDER: SHIM, VOXD_TRANSCRIBER_URL: url, VOX_TEST_MIC_PIDFILE: pidfile };
const settle = () => new Promise((r) => setTimeout(r, 1500));

try {
  // Idle RSS: three fresh voxds (median), then each once a listen has loaded the listener;
  // with BENCH_VOXD_BASELINE (another build's packages/voxd/dist/main.js, e.g. one from
  // before voice input), as many of those, interleaved.
  const baseline = process.env.BENCH_VOXD_BASELINE;
  const idle = [];
  const afterListen = [];
  const baseIdle = [];
  for (let i = 0; i < 3; i++) {
    if (baseline) {
      const b = await startVoxd({ env, voxd: baseline });
      try {
        await b.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
        await settle();
        baseIdle.push(rssMb(b.pid));
      } finally {
        await b.stop();
      }
    }
    const d = await startVoxd({ env });
    try {
      await d.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
      await settle();
      idle.push(rssMb(d.pid));
      const r = await d.api('POST', '/v1/listen', { silenceMs: SILENCE_MS, prompt: false });
      if (r.status !== 200) throw new Error(`listen failed: ${JSON.stringify(r.body)}`);
      await settle();
      afterListen.push(rssMb(d.pid));
    } finally {
      await d.stop();
    }
  }
  report({
    bench: 'listen-idle-rss',
    idleMb: round(median(idle), 1),
    afterFirstListenMb: round(median(afterListen), 1),
    idleToAfterRatio: round(median(idle) / median(afterListen), 3),
    ...(baseline
      ? { baselineIdleMb: round(median(baseIdle), 1), idleToBaselineRatio: round(median(idle) / median(baseIdle), 3) }
      : {}),
    note: 'idle: nobody has listened yet (listener, capture, VAD, transcriber unloaded); after: the same voxd once one listen loaded them',
  });

  const d = await startVoxd({ env });
  try {
    for (const delay of [0, 300]) {
      delayMs = delay;
      const latency = [];
      const budget = [];
      const overhead = [];
      for (let i = 0; i < RUNS; i++) {
        rmSync(pidfile, { force: true });
        served.length = 0;
        const r = await d.api('POST', '/v1/listen', { silenceMs: SILENCE_MS, prompt: false });
        const answered = Date.now();
        if (r.status !== 200 || r.body.endedBy !== 'silence')
          throw new Error(`listen failed: ${JSON.stringify(r.body)}`);
        const micStart = Number(readFileSync(pidfile, 'utf8').trim().split(' ')[1]);
        const ms = answered - (micStart + SPEECH_END_MS);
        latency.push(ms);
        budget.push(SILENCE_MS + served[0] + 50);
        overhead.push(ms - SILENCE_MS - served[0]);
      }
      report({
        bench: 'listen-end-of-speech-to-transcript',
        transcriberDelayMs: delay,
        silenceMs: SILENCE_MS,
        runs: RUNS,
        medianMs: round(median(latency), 1),
        maxMs: round(Math.max(...latency), 1),
        medianBudgetMs: round(median(budget), 1),
        medianOverheadMs: round(median(overhead), 1),
        ratioToBudget: round(median(latency) / median(budget), 3),
        runsWithinBudget: `${latency.filter((ms, i) => ms <= budget[i]).length}/${RUNS}`,
        withinBudget: median(latency) <= median(budget),
      });
    }
  } finally {
    await d.stop();
  }

  // No recorder on PATH: the error's latency.
  const none = await startVoxd({ env: { PATH: join(scratch, 'empty') } });
  try {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = await none.api('POST', '/v1/listen', {});
      times.push(performance.now() - t0);
      if (r.body.code !== 'VOX_ERR_RECORDER_MISSING') throw new Error(JSON.stringify(r.body));
    }
    report({
      bench: 'listen-no-recorder-error',
      medianMs: round(median(times), 1),
      maxMs: round(Math.max(...times), 1),
      budgetMs: 1000,
      withinBudget: Math.max(...times) <= 1000,
    });
  } finally {
    await none.stop();
  }
} finally {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
