#!/usr/bin/env node
// Media keys (issue 33, "Keys without a terminal"):
//   - MPRIS Stop and Next to silence at the sink: in process, buildServer()
//     with the embedded espeak engine and a real-time file sink (noting when
//     play() returns), on a dbus-daemon of its own; the keys are method calls
//     of a dbus-next client, timed from the call to the end of audio. The
//     baseline, interleaved in the same run, is POST /v1/stop {scope:
//     current}. Budget: p95 <= 100 ms.
//   - voxd's idle RSS: a voxd with no session bus and the microphone watch
//     off (the baseline) against one with no bus and the watch on (its pactl
//     child, no sound server reached) and one with both a bus (MPRIS served
//     after one utterance: dbus-next loaded) and the watch, BENCH_IDLE_MS
//     (default 10 s) after the last request, interleaved, BENCH_RSS_RUNS
//     rounds (default 3). With BENCH_BASE_VOXD (another build's
//     packages/voxd/dist/main.js), that build too. Budget: no bus and no
//     watch unchanged within noise against the base build; bus + watch <= +5 MB.
// NODE_OPTIONS and NODE_EXTRA_CA_CERTS are stripped (lib.mjs cleanEnv) for
// the voxd children. Needs dbus-daemon; never fails on a figure.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dbus from '@particle/dbus-next';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import {
  median,
  percentile,
  report,
  round,
  rssMb,
  startVoxd,
  TimedSink,
  VOXD,
  BENCH_TOKEN as TOKEN,
  postJson as post,
} from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const RSS_RUNS = Number(process.env.BENCH_RSS_RUNS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const BASE = process.env.BENCH_BASE_VOXD;
const LONG =
  'This announcement is long on purpose, so that there is time to skip it while it plays. ' +
  'It goes on with a second sentence about nothing in particular. ' +
  'A third sentence follows, and then a fourth one closes it.';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function sessionBus(dir) {
  const address = `unix:path=${join(dir, 'bus')}`;
  const proc = spawn('dbus-daemon', ['--session', '--nofork', `--address=${address}`, '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((r) => proc.stdout.once('data', r));
  return { address, close: () => new Promise((r) => (proc.once('exit', r), proc.kill())) };
}

async function latency(bus) {
  const out = mkdtempSync(join(tmpdir(), 'vox-bench-keys-'));
  const engine = new EspeakEngine();
  await engine.start();
  const sink = new TimedSink(new FileSink(out));
  const env = { DBUS_SESSION_BUS_ADDRESS: bus.address, PATH: process.env.PATH };
  const { app, dispatcher } = await buildServer({
    token: TOKEN,
    synthesizer: singleEngine(engine),
    sink,
    quiet: { hours: '', microphone: 'off', env },
  });
  const client = dbus.sessionBus({ busAddress: bus.address });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = app.server.address().port;
    const ways = {
      'http stop': () => post(port, '/v1/stop', { scope: 'current' }),
      'mpris Stop': () => player.Stop(),
      'mpris Next': () => player.Next(),
    };
    let player;
    const ms = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
    for (let i = 0; i < RUNS + 2; i++) {
      const order = Object.keys(ways);
      for (let j = 0; j < order.length; j++) {
        const way = order[(i + j) % order.length];
        const { response, settled } = await dispatcher.speak({ text: `Trial ${i}-${j}. ${LONG}` });
        while (!(dispatcher.playing?.id === response.id && sink.firstAudio)) await sleep(2);
        // The name is taken at the first speech, a moment after it starts.
        while (!player) {
          try {
            const proxy = await client.getProxyObject('org.mpris.MediaPlayer2.vox', '/org/mpris/MediaPlayer2');
            player = proxy.getInterface('org.mpris.MediaPlayer2.Player');
          } catch {
            await sleep(10);
          }
        }
        await sleep(150 + ((i * 97) % 900));
        const end = sink.nextEnd();
        const t0 = performance.now();
        await ways[way]();
        const ended = await end;
        const outcome = (await settled).status;
        if (outcome !== 'stopped') throw new Error(`${way}: the utterance ended ${outcome}`);
        await dispatcher.idle();
        if (i >= 2) ms[way].push(ended - t0);
      }
    }
    const base = median(ms['http stop']);
    for (const [way, xs] of Object.entries(ms))
      report({
        bench: `media keys: ${way} to silence at the sink`,
        runs: xs.length,
        medianMs: round(median(xs)),
        p95Ms: round(percentile(xs, 95)),
        ratioToHttpStop: round(median(xs) / base),
        budgetMs: 100,
        withinBudget: percentile(xs, 95) <= 100,
      });
  } finally {
    client.disconnect();
    await app.close();
    await engine.close();
    rmSync(out, { recursive: true, force: true });
  }
}

async function idleRss(variant, bus) {
  const env = {
    none: { DBUS_SESSION_BUS_ADDRESS: '', VOXD_QUIET_MICROPHONE: 'off' },
    base: { DBUS_SESSION_BUS_ADDRESS: '' },
    watch: { DBUS_SESSION_BUS_ADDRESS: '', VOXD_QUIET_MICROPHONE: 'auto' },
    'bus+watch': { DBUS_SESSION_BUS_ADDRESS: bus.address, VOXD_QUIET_MICROPHONE: 'auto' },
  }[variant];
  const d = await startVoxd({ audio: 'null', env, voxd: variant === 'base' ? BASE : VOXD });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'One utterance, so that MPRIS is served.', wait: true });
    if (r.body?.status !== 'played') throw new Error(`${variant}: ${JSON.stringify(r.body)}`);
    const s = await d.api('GET', '/v1/status');
    if (variant === 'bus+watch' && !s.body.quiet?.mpris?.served) throw new Error('MPRIS not served');
    await sleep(IDLE_MS);
    return rssMb(d.pid);
  } finally {
    await d.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-bus-'));
const bus = await sessionBus(dir);
try {
  await latency(bus);
  const variants = ['none', 'watch', 'bus+watch', ...(BASE ? ['base'] : [])];
  const rss = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < RSS_RUNS; i++)
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(i + j) % variants.length];
      rss[v].push(await idleRss(v, bus));
    }
  const none = median(rss.none);
  report({
    bench: 'media keys: voxd idle RSS, no bus and no microphone watch against the others',
    idleMs: IDLE_MS,
    runs: RSS_RUNS,
    noneMb: round(none, 1),
    watchMb: round(median(rss.watch), 1),
    busAndWatchMb: round(median(rss['bus+watch']), 1),
    busAndWatchDeltaMb: round(median(rss['bus+watch']) - none, 1),
    ...(BASE ? { baseBuildMb: round(median(rss.base), 1), noneVsBaseMb: round(none - median(rss.base), 1) } : {}),
    budgetDeltaMb: 5,
    withinBudget: median(rss['bus+watch']) - none <= 5,
  });
} finally {
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
}
