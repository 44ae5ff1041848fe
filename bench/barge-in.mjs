#!/usr/bin/env node
// Barge-in and the microphone's floor (issue 20). Budgets:
// - barge-in to silence: POST /v1/listen {bargeIn} while an utterance plays,
//   to the end of its audio at the sink, <= 100 ms;
// - floor hand-off <= 50 ms: POST /v1/listen/release of a kept floor to the
//   listen queued behind it holding the microphone, and a recording's end to
//   the next listen holding it.
// In-process, as bench/stop.mjs: buildServer() with the real espeak engine, a
// real-time FileSink wrapped to note when play() returns, and the recorder
// shim test/fixtures/listen/arecord (its environment without NODE_OPTIONS and
// NODE_EXTRA_CA_CERTS: bench/lib.mjs cleanEnv). Baselines in the same run:
// POST /v1/stop {current} to silence (the cut barge-in builds on), and an
// HTTP round trip of POST /v1/listen/release that hands nothing on. Who holds
// the floor is read from the listener's status every event-loop turn. The
// release comes 100 ms after the next listen queued (a person's turn comes
// later still): the queued listen forks its recorder meanwhile (capture.ts,
// park). A recording's end is its recorder's SIGKILL (process.kill is noted
// here): the kill's sweep of /proc is synchronous, so the status would show
// it late. Prints one JSON line per figure; never fails on a duration.
// Needs `npm run build`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import {
  cleanEnv,
  median,
  percentile,
  report,
  ROOT,
  round,
  TimedSink,
  BENCH_TOKEN as TOKEN,
  postJson as post,
} from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const LONG =
  'This announcement is long on purpose, so that there is time to cut it while it plays. It goes on with a second sentence about nothing in particular.';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// When the last recorder's group got its SIGKILL (ProcessTree.killNow's first act).
let killedAt = 0;
const kill = process.kill;
process.kill = (pid, signal) => {
  if (pid < 0 && signal === 'SIGKILL' && !killedAt) killedAt = performance.now();
  return kill.call(process, pid, signal);
};
const turn = () => new Promise((r) => setImmediate(r));

const out = mkdtempSync(join(tmpdir(), 'vox-bench-barge-'));
const control = join(out, 'mic.json');
// A microphone that stays quiet: each listen ends by its start timeout (or a stop).
writeFileSync(control, JSON.stringify({ leadMs: 60_000 }));
const engine = new EspeakEngine();
await engine.start();
const sink = new TimedSink(new FileSink(out));
const { app, dispatcher, listener } = await buildServer({
  token: TOKEN,
  synthesizer: singleEngine(engine),
  sink,
  listen: {
    home: out,
    recorder: join(ROOT, 'test/fixtures/listen/arecord'),
    transcriber: { url: '', model: 'whisper-1', timeoutMs: 30_000 },
    env: cleanEnv({ VOX_TEST_MIC_CONTROL: control }),
  },
});
const quiet = { prompt: false, startTimeoutMs: 500 };

async function until(fn) {
  for (;;) {
    const v = fn();
    if (v) return v;
    await turn();
  }
}

function figures(bench, ms, budgetMs, baseline) {
  report({
    bench,
    runs: ms.length,
    medianMs: round(median(ms)),
    p95Ms: round(percentile(ms, 95)),
    maxMs: round(Math.max(...ms)),
    ...(baseline
      ? { baselineMedianMs: round(median(baseline)), ratioToBaseline: round(median(ms) / median(baseline)) }
      : {}),
    budgetMs,
    withinBudget: percentile(ms, 95) <= budgetMs,
  });
}

try {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = app.server.address().port;
  await post(port, '/v1/listen', quiet); // loads the listener

  // Barge-in vs POST /v1/stop, interleaved.
  const cut = { bargeIn: [], stop: [] };
  for (let i = 0; i < RUNS + 2; i++) {
    for (const via of ['bargeIn', 'stop']) {
      const { response, settled } = await dispatcher.speak({ text: `Trial ${i} ${via}. ${LONG}` });
      while (!(dispatcher.playing?.id === response.id && sink.firstAudio)) await sleep(2);
      await sleep(150 + ((i * 97) % 900));
      const end = sink.nextEnd();
      const t0 = performance.now();
      const listened =
        via === 'bargeIn'
          ? post(port, '/v1/listen', { ...quiet, bargeIn: true })
          : post(port, '/v1/stop', { scope: 'current' });
      const ended = await end;
      const outcome = (await settled).status;
      const expect = via === 'bargeIn' ? 'interrupted' : 'stopped';
      if (outcome !== expect) throw new Error(`${via} trial ${i} ended ${outcome}`);
      await listened;
      await dispatcher.idle();
      if (i >= 2) cut[via].push(ended - t0);
    }
  }
  figures('barge-in-to-silence', cut.bargeIn, 100, cut.stop);

  // Hand-off of a kept floor by release, and on a recording's end.
  const l = listener.loaded();
  const released = [];
  const roundTrip = [];
  const onEnd = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const a = await post(port, '/v1/listen', { ...quiet, keepFloor: true, floorIdleMs: 60_000 });
    const token = a.body.floor.token;
    const b = post(port, '/v1/listen', quiet);
    await until(() => l.status?.queued === 1);
    await sleep(100);
    const heldBy = l.status.id;
    const t0 = performance.now();
    const r = post(port, '/v1/listen/release', { token });
    await until(() => l.status && l.status.id !== heldBy);
    const t1 = performance.now();
    if (!(await r).body.released) throw new Error('release refused');
    // b records now; c queues behind it and gets the floor when b's recording ends.
    await until(() => l.status?.open);
    const c = post(port, '/v1/listen', quiet);
    await until(() => l.status?.queued === 1);
    const bId = l.status.id;
    killedAt = 0;
    await until(() => !(l.status?.id === bId && l.status.open));
    const t2 = killedAt || performance.now();
    await until(() => l.status && l.status.id !== bId);
    const t3 = performance.now();
    await Promise.all([b, c]);
    const t4 = performance.now();
    await post(port, '/v1/listen/release', { token });
    const t5 = performance.now();
    if (i < 2) continue;
    released.push(t1 - t0);
    onEnd.push(t3 - t2);
    roundTrip.push(t5 - t4);
  }
  // Beside them: the recorder's spawn() (synchronous: fork and exec; the queued listen pays it while it
  // waits, capture.ts park) and the last one's exit after SIGKILL, which a recording's end must wait for
  // (the device must be free before the next opens it).
  const spawns = [];
  const exits = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    const child = spawn(
      join(ROOT, 'test/fixtures/listen/arecord'),
      ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', '16000', '-c', '1', '-'],
      { env: cleanEnv({ VOX_TEST_MIC_CONTROL: control }), stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const t1 = performance.now();
    await new Promise((r) => child.stdout.once('data', r));
    const gone = new Promise((r) => child.once('exit', r));
    const t2 = performance.now();
    child.kill('SIGTERM');
    await gone;
    const t3 = performance.now();
    if (i < 2) continue;
    spawns.push(t1 - t0);
    exits.push(t3 - t2);
  }
  figures('floor-handoff-release', released, 50, roundTrip);
  report({
    bench: 'recorder-spawn-call',
    runs: spawns.length,
    medianMs: round(median(spawns)),
    p95Ms: round(percentile(spawns, 95)),
  });
  figures('floor-handoff-recording-end', onEnd, 50);
  report({
    bench: 'recorder-kill-to-exit',
    runs: exits.length,
    medianMs: round(median(exits)),
    p95Ms: round(percentile(exits, 95)),
  });
} finally {
  await app.close();
  await engine.close();
  rmSync(out, { recursive: true, force: true });
}
