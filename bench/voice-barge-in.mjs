#!/usr/bin/env node
// Barge-in by voice (issue 20 item 4, listen.bargeIn: voice). Figures:
// - the cut to silence: the monitor's dispatcher.cut() call (its VAD has heard
//   the user start) to the end of the utterance's audio at the sink, <= 100 ms;
//   baseline in the same run, interleaved: POST /v1/stop {current} to silence;
// - the user's first word at the microphone to silence at the sink (the VAD's
//   onset, 60 ms of voiced frames for energy, plus the recorder's 20 ms
//   blocks, plus the cut), reported beside it; with Silero too when its model
//   is at BENCH_SILERO_MODEL (default the CI cache's);
// - voxd's idle RSS: listen.bargeIn off vs voice (nobody speaking yet) vs
//   voice after an utterance cut by voice and 1.5 s idle, fresh voxds, and
//   BENCH_VOXD_BASELINE (another build's packages/voxd/dist/main.js, e.g.
//   main's) when given: off must be unchanged.
// In-process for the cut (as bench/barge-in.mjs: buildServer(), espeak, a
// real-time FileSink wrapped to note when play() returns) with the recorder
// shim test/fixtures/listen/arecord, which writes "PID START_EPOCH_MS" to its
// pidfile; sentence.wav's speech starts 300 ms into it, after leadMs of
// silence. Never fails on a duration. Needs `npm run build`.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { cleanEnv, median, percentile, report, ROOT, round, rssMb, startVoxd, TimedSink } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const SHIM = join(ROOT, 'test/fixtures/listen/arecord');
const FIXTURE_LEAD_MS = 300;
const SILERO = process.env.BENCH_SILERO_MODEL ?? '/var/cache/vox-ci/silero-vad/1.0.3/silero_vad.onnx';
const LONG =
  'This announcement is long on purpose, so that the user can cut it while it plays. It goes on with a second sentence about nothing in particular.';
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function figures(bench, ms, extra = {}) {
  return {
    bench,
    runs: ms.length,
    medianMs: round(median(ms)),
    p95Ms: round(percentile(ms, 95)),
    maxMs: round(Math.max(...ms)),
    ...extra,
  };
}

async function cutBench(vad) {
  const home = mkdtempSync(join(tmpdir(), 'vox-bench-voice-barge-'));
  const control = join(home, 'mic.json');
  const pidfile = join(home, 'mic.pid');
  if (vad === 'silero') {
    mkdirSync(join(home, 'vad'));
    copyFileSync(SILERO, join(home, 'vad', 'silero_vad.onnx'));
  }
  const engine = new EspeakEngine();
  await engine.start();
  const sink = new TimedSink(new FileSink(join(home, 'out')));
  const { app, dispatcher } = await buildServer({
    token: 'bench-token-0123456789abcdef0123456789abcdef',
    synthesizer: singleEngine(engine),
    sink,
    listen: {
      home,
      recorder: SHIM,
      vad,
      bargeIn: 'voice',
      transcriber: { url: '', model: 'whisper-1', timeoutMs: 30_000 },
      env: cleanEnv({ VOX_TEST_MIC_CONTROL: control, VOX_TEST_MIC_PIDFILE: pidfile }),
    },
  });
  // The monitor calls dispatcher.cut() when its VAD hears the user: note when.
  let cutAt = 0;
  const cut = dispatcher.cut.bind(dispatcher);
  dispatcher.cut = (detail) => ((cutAt = performance.now()), cut(detail));
  const voice = { cut: [], onset: [] };
  const stop = [];
  try {
    for (let i = 0; i < RUNS + 2; i++) {
      for (const via of ['voice', 'stop']) {
        const leadMs = via === 'voice' ? 300 + ((i * 97) % 700) : 60_000;
        writeFileSync(control, JSON.stringify({ leadMs }));
        rmSync(pidfile, { force: true });
        cutAt = 0;
        const { settled } = await dispatcher.speak({ text: `Trial ${i} ${via}. ${LONG}` });
        const end = sink.nextEnd();
        let t0 = 0;
        if (via === 'stop') {
          while (!sink.firstAudio) await sleep(2);
          await sleep(300 + ((i * 97) % 700));
          t0 = performance.now();
          await dispatcher.stop('current');
        }
        const ended = await end;
        const endEpoch = Date.now() - (performance.now() - ended);
        const outcome = (await settled).status;
        if (outcome !== (via === 'voice' ? 'interrupted' : 'stopped'))
          throw new Error(`${vad} ${via} trial ${i} ended ${outcome}`);
        await dispatcher.idle();
        // The next trial gets a recorder of its own (back-to-back speech would keep this one).
        const pid = existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8').split(' ')[0]) : 0;
        while (pid && alive(pid)) await sleep(5);
        if (i < 2) continue;
        if (via === 'stop') stop.push(ended - t0);
        else {
          const micStart = Number(readFileSync(pidfile, 'utf8').trim().split(' ')[1]);
          voice.cut.push(ended - cutAt);
          voice.onset.push(endEpoch - (micStart + leadMs + FIXTURE_LEAD_MS));
        }
      }
    }
    report(
      figures(`voice-barge-in-cut-to-silence (${vad})`, voice.cut, {
        baselineStopMedianMs: round(median(stop)),
        ratioToStop: round(median(voice.cut) / median(stop)),
        budgetMs: 100,
        withinBudget: percentile(voice.cut, 95) <= 100,
      }),
    );
    report(
      figures(`voice-barge-in-first-word-to-silence (${vad})`, voice.onset, {
        note: "VAD onset + recorder blocks + the cut; speech start taken from the shim's start epoch (ms resolution)",
      }),
    );
  } finally {
    await app.close();
    await engine.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function idleRss() {
  const baseline = process.env.BENCH_VOXD_BASELINE;
  const settle = () => sleep(1500);
  const rss = { off: [], voice: [], voiceAfterCut: [], baseline: [] };
  const home = mkdtempSync(join(tmpdir(), 'vox-bench-voice-rss-'));
  const control = join(home, 'mic.json');
  const env = { VOXD_RECORDER: SHIM, VOX_TEST_MIC_CONTROL: control };
  try {
    for (let i = 0; i < 3; i++) {
      for (const side of ['baseline', 'off', 'voice']) {
        if (side === 'baseline' && !baseline) continue;
        writeFileSync(control, JSON.stringify({ leadMs: 60_000 }));
        rmSync(join(home, 'out'), { recursive: true, force: true });
        const d = await startVoxd({
          audio: `file:${join(home, 'out')}`,
          env: { ...env, ...(side === 'voice' ? { VOXD_BARGE_IN: 'voice' } : {}) },
          ...(side === 'baseline' ? { voxd: baseline } : {}),
        });
        try {
          await d.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
          await settle();
          rss[side].push(rssMb(d.pid));
          if (side !== 'voice') continue;
          writeFileSync(control, JSON.stringify({ leadMs: 300 }));
          const r = await d.api('POST', '/v1/speak', { text: LONG, wait: true });
          if (r.body.status !== 'interrupted') throw new Error(`voice RSS run: ${JSON.stringify(r.body)}`);
          await settle();
          rss.voiceAfterCut.push(rssMb(d.pid));
        } finally {
          await d.stop();
        }
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const m = (xs) => round(median(xs), 1);
  report({
    bench: 'voice-barge-in-idle-rss',
    offMb: m(rss.off),
    voiceBeforeSpeechMb: m(rss.voice),
    voiceAfterCutMb: m(rss.voiceAfterCut),
    ...(baseline
      ? { baselineMb: m(rss.baseline), offToBaselineRatio: round(median(rss.off) / median(rss.baseline), 3) }
      : {}),
    note: 'median of 3 fresh voxds each (engine espeak, the real-time file sink), 1.5 s after a warm-up utterance; off loads nothing of barge-in',
  });
}

await cutBench('energy');
if (existsSync(SILERO)) await cutBench('silero');
else process.stderr.write(`# no Silero model at ${SILERO}: energy only\n`);
await idleRss();
