// Silero VAD against energy end-pointing, in one run (issue 20, item 5):
// - end of the user's speech to the listen's answer, each way (the budget:
//   silenceMs + the transcriber's time + 50 ms, as bench/listen.mjs);
// - voxd's RSS idle (nobody has listened), and after the first listen and
//   after RUNS listens (Silero loads the addon and one detector, kept).
// The microphone is the test shim playing sentence.wav (speech ends 2040 ms
// after it starts); the transcriber answers at once from 127.0.0.1. The model
// comes from scripts/ci/silero-vad.sh (the npm registry, checksums pinned).
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, report, ROOT, round, rssMb, startVoxd } from './lib.mjs';

const SHIM = join(ROOT, 'test/fixtures/listen/arecord');
const SPEECH_END_MS = 300 + 1740; // scripts/make-listen-fixture.mjs prints it
const RUNS = Number(process.env.BENCH_LISTEN_RUNS ?? 5);
const SILENCE_MS = 700;

const served = [];
const server = createServer((req, res) => {
  const t0 = performance.now();
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"ok"}');
    served.push(performance.now() - t0);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/v1`;
const scratch = mkdtempSync(join(tmpdir(), 'vox-bench-vad-'));
const pidfile = join(scratch, 'mic.pid');
const settle = () => new Promise((r) => setTimeout(r, 1500));

try {
  const figures = {};
  for (const vad of ['energy', 'silero']) {
    const d = await startVoxd({
      env: { VOXD_RECORDER: SHIM, VOXD_TRANSCRIBER_URL: url, VOX_TEST_MIC_PIDFILE: pidfile, VOXD_VAD: vad },
    });
    try {
      if (vad === 'silero')
        execFileSync(join(ROOT, 'scripts/ci/silero-vad.sh'), [join(d.home, 'vad')], { stdio: 'ignore' });
      await d.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
      await settle();
      const idle = rssMb(d.pid);
      const latency = [];
      const budget = [];
      const speech = [];
      let first;
      for (let i = 0; i < RUNS; i++) {
        rmSync(pidfile, { force: true });
        served.length = 0;
        const r = await d.api('POST', '/v1/listen', { silenceMs: SILENCE_MS, prompt: false });
        const answered = Date.now();
        if (r.status !== 200 || r.body.endedBy !== 'silence')
          throw new Error(`${vad}: listen failed: ${JSON.stringify(r.body)}`);
        const micStart = Number(readFileSync(pidfile, 'utf8').trim().split(' ')[1]);
        latency.push(answered - (micStart + SPEECH_END_MS));
        budget.push(SILENCE_MS + served[0] + 50);
        speech.push(r.body.speechMs);
        if (i === 0) {
          await settle();
          first = rssMb(d.pid);
        }
      }
      await settle();
      figures[vad] = { latency, budget, speech, idle, first, last: rssMb(d.pid) };
    } finally {
      await d.stop();
    }
  }
  for (const [vad, f] of Object.entries(figures)) {
    report({
      bench: 'listen-vad',
      vad,
      runs: RUNS,
      speechMs: `${Math.min(...f.speech)}-${Math.max(...f.speech)} (fixture: 1740)`,
      medianMs: round(median(f.latency), 1),
      medianBudgetMs: round(median(f.budget), 1),
      runsWithinBudget: `${f.latency.filter((ms, i) => ms <= f.budget[i]).length}/${RUNS}`,
      latencyRatioToEnergy: round(median(f.latency) / median(figures.energy.latency), 3),
      idleMb: round(f.idle, 1),
      afterFirstListenMb: round(f.first, 1),
      afterAllListensMb: round(f.last, 1),
    });
  }
} finally {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
