#!/usr/bin/env node
// The audioio sink (issue 9) against its budgets, into ALSA's file device (no
// sound card; libasound.so.2 only). Budgets: stop to silence at the device
// <= 100 ms; first sample written <= 20 ms after the first PCM chunk; voxd
// idle RSS with audio-io <= 5 MB over the previous default (speaker sink),
// both measured in this run.
//
// The file device's null slave does not pace: the sink's own figures (first
// chunk -> first sample copied to the device; stop -> last sample copied)
// come from voxd's debug log ("audioio timing"); the device then holds at most
// two 20 ms buffers, so stop-to-silence is reported as stopMs + 40 ms, and
// end to end from this script sending POST /v1/stop to voxd's last sample
// copied (lastSampleAt; both sides read performance.timeOrigin + now()) + 40 ms.
// Also measures where the addon could run: voxd's main thread (the callback
// cannot wait there: callbacks per second and padded silence on an unpaced
// device), a worker thread (what voxd does) and a child process (RSS and time
// to the first device callback). Prints JSON lines; never fails on a duration.
// Needs `npm run build` first. BENCH_RUNS stops to time (default 10);
// BENCH_RSS_ROUNDS interleaved speaker/audio-io voxd pairs for RSS (default 3);
// BENCH_AUDIOIO_TIMINGS=1 skips the RSS runs; BENCH_DEBUG=1 prints each outcome.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, percentile, report, round, rssMb, startVoxd, ROOT, cleanEnv } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const RSS_ROUNDS = Math.max(1, Number(process.env.BENCH_RSS_ROUNDS ?? 3) || 3);
const ONLY_TIMINGS = process.env.BENCH_AUDIOIO_TIMINGS === '1';
const dir = mkdtempSync(join(tmpdir(), 'vox-bench-alsa-'));
const conf = join(dir, 'asound.conf');
writeFileSync(
  conf,
  `pcm.!default {\n type file\n slave { pcm { type null } }\n file { @func getenv vars [ VOX_TEST_ALSA_FILE ] default "${join(dir, 'capture.raw')}" }\n format "raw"\n}\n`,
);
const alsaEnv = { ALSA_CONFIG_PATH: conf, VOX_TEST_ALSA_FILE: join(dir, 'capture.raw'), VOXD_LOG_LEVEL: 'debug' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const LONG =
  'This announcement is long on purpose, so that there is time to stop it while it plays. It goes on with a second sentence.';

async function idleRss(audio) {
  const d = await startVoxd({ audio, env: alsaEnv });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Warm up.', wait: true });
    if (r.body?.status !== 'played') throw new Error(`${audio}: ${JSON.stringify(r.body)}`);
    await sleep(1500);
    const afterPlay = rssMb(d.pid);
    const sink = (await d.api('GET', '/v1/status')).body.sink.name;
    // The audioio worker is let go after 10 s without playback.
    await sleep(11_000);
    return { sink, afterPlay, idle: rssMb(d.pid) };
  } finally {
    await d.stop();
  }
}

function timings(home) {
  const lines = readFileSync(join(home, 'logs', 'voxd.log'), 'utf8')
    .split('\n')
    .filter(Boolean);
  return lines.map((l) => JSON.parse(l)).filter((o) => o.msg === 'audioio timing');
}

/** When each stop request was sent, in order (one per run). */
const stopSentAt = [];

async function sinkTimings() {
  const d = await startVoxd({ audio: 'audioio', env: alsaEnv });
  const home = d.home;
  if (process.env.BENCH_DEBUG)
    process.stderr.write(
      readFileSync(`/proc/${d.pid}/environ`, 'utf8')
        .split('\0')
        .filter((l) => /VOX|ALSA/.test(l))
        .join(' ') + '\n',
    );
  try {
    for (let i = 0; i < RUNS; i++) {
      const p = d.api('POST', '/v1/speak', { text: `${LONG} Run ${i}.`, wait: true });
      for (let k = 0; k < 200 && !(await d.api('GET', '/v1/status')).body.playing; k++) await sleep(20);
      await sleep(1200 + ((i * 97) % 600));
      // Wall-clock ms, comparable with voxd's lastSampleAt (performance.timeOrigin + now() in both processes).
      stopSentAt.push(performance.timeOrigin + performance.now());
      await d.api('POST', '/v1/stop', { scope: 'all' });
      const r = await p;
      if (process.env.BENCH_DEBUG) process.stderr.write(JSON.stringify(r.body) + '\n');
    }
    await sleep(500);
    const t = timings(home);
    if (t.length === 0) process.stderr.write(readFileSync(join(home, 'logs', 'voxd.log'), 'utf8').slice(-3000));
    return t;
  } finally {
    // stop() removes the home; read the log first.
    await d.stop();
  }
}

/** A node process that loads audio-io somewhere and reports on stdout. */
function probeProcess(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(ROOT, 'packages/voxd'),
      env: cleanEnv(alsaEnv),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out.trim().split('\n').pop())));
  });
}

const rssOf = `() => Number(/VmRSS:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'))[1]) / 1024`;

// Main thread: the callback cannot wait, so on an unpaced device it runs back to back, padding silence.
const MAIN = `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
const rss = ${rssOf}; const before = rss();
const { createAudioOutput } = await import('@echogarden/audio-io');
let calls = 0, samples = 0;
const out = await createAudioOutput({ sampleRate: 22050, channelCount: 1, bufferDuration: 20 }, (b) => { calls++; samples += b.length; });
await new Promise((r) => setTimeout(r, 1000));
await out.dispose();
console.log(JSON.stringify({ rssDeltaMb: rss() - before, callbacksPerSecond: calls, paddedSecondsPerSecond: samples / 22050 }));`;

// Worker thread: RSS it adds to the process, with audio-io loaded and a device open.
const WORKER = `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
import { Worker } from 'node:worker_threads';
const rss = ${rssOf}; await new Promise((r) => setTimeout(r, 200)); const before = rss();
const t0 = performance.now();
const w = new Worker("const { parentPort } = require('node:worker_threads'); import('@echogarden/audio-io').then(async ({ createAudioOutput }) => { let first = true; const o = await createAudioOutput({ sampleRate: 22050, channelCount: 1, bufferDuration: 20 }, () => { if (first) { first = false; parentPort.postMessage('first'); } Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); }); parentPort.on('message', async () => { await o.dispose(); parentPort.postMessage('closed'); }); });", { eval: true, execArgv: [] });
await new Promise((r) => w.once('message', r));
const firstMs = performance.now() - t0;
await new Promise((r) => setTimeout(r, 500));
const during = rss();
w.postMessage('close'); await new Promise((r) => w.once('message', r)); await new Promise((r) => setTimeout(r, 600)); await w.terminate();
await new Promise((r) => setTimeout(r, 500));
console.log(JSON.stringify({ rssDeltaMb: during - before, rssAfterTerminateMb: rss() - before, startToFirstCallbackMs: firstMs }));`;

// Child process: its own RSS, and the time from spawn to the first device callback.
const CHILD_HOST = `import { spawn } from 'node:child_process';
const t0 = performance.now();
const c = spawn(process.execPath, ['--input-type=module', '-e', "const { createAudioOutput } = await import('@echogarden/audio-io'); let first = true; const o = await createAudioOutput({ sampleRate: 22050, channelCount: 1, bufferDuration: 20 }, () => { if (first) { first = false; process.stdout.write('first\\\\n'); } Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); }); setTimeout(() => {}, 60000);"], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((r) => c.stdout.once('data', r));
const firstMs = performance.now() - t0;
await new Promise((r) => setTimeout(r, 500));
const m = /VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/' + c.pid + '/status', 'utf8'));
c.kill('SIGKILL');
console.log(JSON.stringify({ childRssMb: Number(m[1]) / 1024, spawnToFirstCallbackMs: firstMs }));`;

try {
  // One voxd's RSS swings by 10 MB and more from one start to the next on a shared machine (heap sizing, GC timing):
  // BENCH_RSS_ROUNDS interleaved pairs (speaker, then audio-io), and the medians of each side and of the per-pair deltas.
  const befores = [];
  const afters = [];
  for (let i = 0; !ONLY_TIMINGS && i < RSS_ROUNDS; i++) {
    befores.push(await idleRss('speaker'));
    afters.push(await idleRss('auto'));
  }
  if (!ONLY_TIMINGS) {
    for (const [key, metric, budget] of [
      ['afterPlay', 'voxd RSS 1.5 s after one utterance, worker warm (MB)', undefined],
      ['idle', 'voxd idle RSS, 12.5 s after one utterance (MB)', 5],
    ]) {
      const b = median(befores.map((x) => x[key]));
      const a = median(afters.map((x) => x[key]));
      const deltas = afters.map((x, i) => x[key] - befores[i][key]);
      report({
        bench: 'audio-io',
        metric,
        rounds: RSS_ROUNDS,
        baseline: befores[0].sink,
        baselineMb: round(b, 1),
        sink: afters[0].sink,
        mb: round(a, 1),
        ratio: round(a / b, 3),
        deltaMb: round(median(deltas), 1),
        deltasMb: deltas.map((d) => round(d, 1)),
        ...(budget ? { budgetDeltaMb: budget } : {}),
      });
    }
  }

  const t = await sinkTimings();
  const first = t.map((x) => x.firstSampleMs).filter((x) => typeof x === 'number');
  const stops = t.map((x) => x.stopMs).filter((x) => typeof x === 'number');
  report({
    bench: 'audio-io',
    metric: 'first PCM chunk -> first sample at the device (ms)',
    n: first.length,
    median: round(median(first)),
    p95: round(percentile(first, 95)),
    budgetMs: 20,
    ratioToBudget: round(median(first) / 20, 3),
  });
  // End to end: from the client sending POST /v1/stop to the last sample copied, plus the 2 buffers the device still holds.
  // A stop that found the device waiting for samples copied none after it: 0 + 40 ms.
  const stopped = t.filter((x) => typeof x.lastSampleAt === 'number');
  if (stopped.length !== stopSentAt.length)
    process.stderr.write(
      `# audio-io: ${stopped.length} stopped playbacks for ${stopSentAt.length} stops; the end-to-end stop figure pairs them in order\n`,
    );
  const e2e = stopped.slice(0, stopSentAt.length).map((x, i) => Math.max(0, x.lastSampleAt - stopSentAt[i]) + 40);
  report({
    bench: 'audio-io',
    metric: 'POST /v1/stop sent -> silence at the device (ms): HTTP, dispatcher, sink, + 2 device buffers (40 ms)',
    n: e2e.length,
    median: round(median(e2e)),
    p95: round(percentile(e2e, 95)),
    budgetMs: 100,
    ratioToBudget: round(median(e2e) / 100, 3),
  });
  report({
    bench: 'audio-io',
    metric: 'stop -> silence at the device (ms): last sample copied + 2 device buffers (40 ms)',
    n: stops.length,
    median: round(median(stops) + 40),
    p95: round(percentile(stops, 95) + 40),
    copyStopMedianMs: round(median(stops), 2),
    budgetMs: 100,
  });

  report({
    bench: 'audio-io',
    metric: 'addon in the main thread (unpaced device, 1 s starved)',
    ...(await probeProcess(MAIN)),
  });
  report({ bench: 'audio-io', metric: 'addon in a worker thread', ...(await probeProcess(WORKER)) });
  report({ bench: 'audio-io', metric: 'addon in a child process', ...(await probeProcess(CHILD_HOST)) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
