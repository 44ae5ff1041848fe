#!/usr/bin/env node
// The sherpa engine (issue 14), with the synthetic voice of scripts/synthetic-voice.mjs
// (no real model can be downloaded here), with BENCH_SHERPA_WORK dense layers (default 600)
// so that synthesis costs time in proportion to the text. Prints one JSON line per figure:
//   - sherpa-first-audio-200: through the real voxd (null sink), the first PCM of a
//     200-character, 3-sentence text (the history's firstAudioMs) against the
//     time the engine takes for the whole text (the quicker of one call and one
//     call per sentence), measured right before it in each run; the median of
//     the runs' ratios. Budget: <= 0.3.
//   - sherpa-rtf-200: real-time factor (synthesis time / audio duration) of that text.
//   - sherpa-idle-rss: voxd's RSS idle with the model loaded, against voxd with
//     no model in the same run, and the model host's own RSS.
//   - sherpa-host-worker-vs-child: the host (engines/sherpa-host.js) as a worker
//     thread and as a child process: added RSS, load time, first chunk of a sentence.
//   - sherpa-reload-after-unload: through a voxd with sherpa.idleUnloadMs set
//     (VOXD_SHERPA_IDLE_UNLOAD_MS, BENCH_SHERPA_IDLE_MS, default 1000), the first audio of
//     that text when the idle model was unloaded (its host exited: the request starts and
//     loads it again) against right after, with the model loaded; the median of the runs' ratios.
//   - sherpa-model (only with BENCH_SHERPA_MODELS=DIR, a models directory such as
//     VOX_HOME/models after `vox voices install NAME`): for each whole model in it,
//     through one voxd, its load time, first audio against the whole text, real-time
//     factor, its host's RSS, and voxd's RSS with every model so far loaded. The
//     directory is only read (voxd sees it through a symlink in its temp VOX_HOME).
// Never fails on a duration. Needs `npm run build` first.
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SherpaEngine, sherpaConfig } from '../packages/voxd/dist/engines/sherpa.js';
import { listModels } from '../packages/protocol/dist/models.js';
import { writeSyntheticVoice } from '../scripts/synthetic-voice.mjs';
import { median, report, round, rssMb, startVoxd, ROOT } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
// Dense layers in the synthetic model (scripts/synthetic-voice.mjs --work): its cost grows with the text,
// as a real model's does; 600 gives a real-time factor of the order of a small neural voice on this machine.
const WORK = Number(process.env.BENCH_SHERPA_WORK ?? 600);
const SHORT =
  'The build finished and all the tests passed on the main branch today. Three services went out to staging, and the smoke tests run right now. A reviewer asked for smaller functions in the parser codes.';
const SENTENCES = SHORT.match(/[^.]+\./g).map((s) => s.trim());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const home = mkdtempSync(join(tmpdir(), 'vox-bench-sherpa-'));
writeSyntheticVoice(join(home, 'models'), { installed: true, work: WORK });

function children(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function drain(engine, text, voice) {
  const t0 = performance.now();
  const s = await engine.synthesize({ text, voice });
  let first;
  let bytes = 0;
  for await (const c of s.chunks) {
    first ??= performance.now() - t0;
    bytes += c.length;
  }
  return { ms: performance.now() - t0, first, audioMs: (bytes / 2 / s.format.sampleRate) * 1000 };
}

try {
  // The engine alone, in this process (its host is a child): the baseline of the whole text.
  const engine = new SherpaEngine({ home });
  await engine.warm();
  await drain(engine, SHORT);
  const wholeOneCall = [];
  const wholeBySentence = [];
  const audio = [];
  const firsts = [];
  const pairRatios = [];
  let modelRss;
  let voxdRss;
  let hostPids = [];
  // Through voxd: accepted -> first PCM at the sink. Each run measures the baseline and voxd's
  // first audio back to back, so both see the same machine (it is shared and its load changes).
  const d = await startVoxd({ audio: 'null', env: { VOXD_ENGINE: 'auto' } });
  // Installed after voxd started: its first request (a warm-up, not counted) loads it.
  writeSyntheticVoice(join(d.home, 'models'), { installed: true, work: WORK });
  try {
    for (let i = 0; i < RUNS + 1; i++) {
      const w = await drain(engine, SHORT);
      let t = 0;
      for (const s of SENTENCES) t += (await drain(engine, s)).ms;
      const r = await d.api('POST', '/v1/speak', { text: SHORT.replace('today.', `today ${i}.`), wait: true });
      if (r.body.engine !== 'sherpa') throw new Error(`spoken by ${r.body.engine}: ${JSON.stringify(r.body)}`);
      const h = (await d.api('GET', '/v1/status')).body.history.find((e) => e.id === r.body.id);
      if (i === 0) continue;
      wholeOneCall.push(w.ms);
      audio.push(w.audioMs);
      wholeBySentence.push(t);
      firsts.push(h.firstAudioMs);
      pairRatios.push(h.firstAudioMs / Math.min(w.ms, t));
    }
    await sleep(2000);
    voxdRss = rssMb(d.pid);
    hostPids = children(d.pid).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sherpa-host'));
    modelRss = hostPids.reduce((a, p) => a + rssMb(p), 0);
  } finally {
    await d.stop();
    await engine.close();
  }
  // The same voxd with no model installed (eSpeak only).
  const b = await startVoxd({ audio: 'null', env: { VOXD_ENGINE: 'auto' } });
  let bareRss;
  try {
    await b.api('POST', '/v1/speak', { text: SHORT, wait: true });
    await sleep(2000);
    bareRss = rssMb(b.pid);
  } finally {
    await b.stop();
  }

  const ratio = median(pairRatios);
  report({
    bench: 'sherpa-first-audio-200',
    model: `synthetic, --work ${WORK} (scripts/synthetic-voice.mjs)`,
    chars: SHORT.length,
    sentences: SENTENCES.length,
    runs: firsts.length,
    firstAudioMedianMs: round(median(firsts)),
    firstAudioMaxMs: round(Math.max(...firsts)),
    wholeSynthesisOneCallMs: round(median(wholeOneCall)),
    wholeSynthesisBySentenceMs: round(median(wholeBySentence)),
    firstPhrase: 'The build finished',
    ratio: round(ratio, 4),
    ratioRange: [round(Math.min(...pairRatios), 4), round(Math.max(...pairRatios), 4)],
    budgetRatio: 0.3,
    withinBudget: ratio <= 0.3,
  });
  report({
    bench: 'sherpa-rtf-200',
    model: `synthetic, --work ${WORK}`,
    threads: new SherpaEngine({ home }).threads,
    audioMs: round(median(audio)),
    synthesisMs: round(median(wholeOneCall)),
    rtf: round(median(wholeOneCall) / median(audio), 4),
  });
  report({
    bench: 'sherpa-idle-rss',
    model: `synthetic, --work ${WORK}`,
    voxdWithModelMb: round(voxdRss, 1),
    voxdWithoutModelMb: round(bareRss, 1),
    voxdRatio: round(voxdRss / bareRss, 3),
    modelHostMb: round(modelRss, 1),
    hosts: hostPids.length,
    totalWithModelMb: round(voxdRss + modelRss, 1),
    totalRatio: round((voxdRss + modelRss) / bareRss, 3),
  });

  await reloadAfterUnload();

  // Worker thread vs child process for the host, measured the same way.
  const model = listModels(home).find((m) => m.ok);
  const load = { type: 'load', module: 'sherpa-onnx-node', config: sherpaConfig(model, 1) };
  const hostUrl = new URL('packages/voxd/dist/engines/sherpa-host.js', `file://${ROOT}/`);
  // Both hosts loaded (RSS read after each load), then their first chunks timed in alternation, so both see the same machine.
  async function startHost(kind) {
    const before = rssMb(process.pid);
    const t0 = performance.now();
    let port;
    let pid;
    if (kind === 'worker') {
      const w = new Worker(hostUrl);
      port = { send: (m) => w.postMessage(m), on: (f) => w.on('message', f), end: () => w.terminate() };
    } else {
      const c = fork(hostUrl, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      pid = c.pid;
      port = { send: (m) => c.send(m), on: (f) => c.on('message', f), end: () => c.kill() };
    }
    let waiter;
    port.on((m) => waiter?.(m));
    const next = (type) => new Promise((r) => (waiter = (m) => m.type === type && r(m)));
    const loaded = next('loaded');
    port.send(load);
    await loaded;
    const loadMs = performance.now() - t0;
    await sleep(500);
    const addedRssMb = kind === 'worker' ? rssMb(process.pid) - before : rssMb(pid);
    let job = 0;
    return {
      loadMs,
      addedRssMb,
      end: () => port.end(),
      async first(text) {
        const t = performance.now();
        const p = next('chunk');
        port.send({ type: 'synthesize', job: ++job, texts: [text], sid: 0, speed: 1 });
        await p;
        return performance.now() - t;
      },
    };
  }
  const child = await startHost('child');
  const worker = await startHost('worker');
  const times = { child: [], worker: [] };
  for (let i = 0; i < RUNS + 1; i++) {
    for (const kind of i % 2 ? ['worker', 'child'] : ['child', 'worker']) {
      const ms = await (kind === 'child' ? child : worker).first(SENTENCES[0]);
      await sleep(20);
      if (i > 0) times[kind].push(ms);
    }
  }
  const figures = (h, kind) => ({
    loadMs: round(h.loadMs),
    firstChunkMedianMs: round(median(times[kind]), 2),
    addedRssMb: round(h.addedRssMb, 1),
  });
  report({
    bench: 'sherpa-host-worker-vs-child',
    model: `synthetic, --work ${WORK}`,
    child: figures(child, 'child'),
    worker: figures(worker, 'worker'),
    firstChunkRatioChildToWorker: round(median(times.child) / median(times.worker), 3),
    note: 'child: its own RSS; worker: growth of this process. First chunk of the first sentence, alternating',
  });
  await child.end();
  await worker.end();

  if (process.env.BENCH_SHERPA_MODELS) await realModels(process.env.BENCH_SHERPA_MODELS);
} finally {
  rmSync(home, { recursive: true, force: true });
}

/**
 * The cost of an idle unload: first audio of the first request after the model's host
 * exited, against the next request with it loaded, alternating in one voxd.
 */
async function reloadAfterUnload() {
  const idleMs = Number(process.env.BENCH_SHERPA_IDLE_MS ?? 1000);
  const d = await startVoxd({
    audio: 'null',
    env: { VOXD_ENGINE: 'auto', VOXD_SHERPA_IDLE_UNLOAD_MS: String(idleMs) },
  });
  writeSyntheticVoice(join(d.home, 'models'), { installed: true, work: WORK });
  const hosts = () =>
    children(d.pid).filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sherpa-host');
      } catch {
        return false;
      }
    });
  const speak = async (text) => {
    const r = await d.api('POST', '/v1/speak', { text, wait: true });
    if (r.body.engine !== 'sherpa') throw new Error(`spoken by ${r.body.engine}: ${JSON.stringify(r.body)}`);
    return (await d.api('GET', '/v1/status')).body.history.find((e) => e.id === r.body.id).firstAudioMs;
  };
  const cold = [];
  const warm = [];
  const ratios = [];
  const hostMb = [];
  let voxdAfterUnloadMb;
  try {
    for (let i = 0; i < RUNS + 1; i++) {
      const deadline = performance.now() + idleMs + 30_000;
      while (hosts().length > 0) {
        if (performance.now() > deadline) throw new Error('the idle model host did not exit');
        await sleep(50);
      }
      const c = await speak(SHORT.replace('today.', `today after unload ${i}.`));
      const w = await speak(SHORT.replace('today.', `today while loaded ${i}.`));
      // Read before the idle time runs out: what an unload gives back.
      const loadedHostMb = hosts().reduce((n, p) => {
        try {
          return n + rssMb(p);
        } catch {
          return n; // unloaded meanwhile
        }
      }, 0);
      if (i === 0) continue;
      if (loadedHostMb > 0) hostMb.push(loadedHostMb);
      cold.push(c);
      warm.push(w);
      ratios.push(c / w);
    }
    while (hosts().length > 0) await sleep(50);
    voxdAfterUnloadMb = rssMb(d.pid);
  } finally {
    await d.stop();
  }
  report({
    bench: 'sherpa-reload-after-unload',
    model: `synthetic, --work ${WORK}`,
    idleUnloadMs: idleMs,
    runs: ratios.length,
    firstAudioAfterUnloadMedianMs: round(median(cold)),
    firstAudioLoadedMedianMs: round(median(warm)),
    reloadCostMedianMs: round(median(cold.map((c, i) => c - warm[i]))),
    ratio: round(median(ratios), 3),
    ratioRange: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)],
    hostRssWhileLoadedMb: hostMb.length ? round(median(hostMb), 1) : undefined,
    voxdRssAfterUnloadMb: round(voxdAfterUnloadMb, 1),
    note: 'first audio of the 200-character text: the first request after the idle model host exited, against the next one (model loaded), in the same voxd',
  });
}

/** The figures of each whole model in `dir`, each picked by its name as the voice. */
async function realModels(dir) {
  const view = mkdtempSync(join(tmpdir(), 'vox-bench-models-'));
  symlinkSync(dir, join(view, 'models'));
  const models = listModels(view).filter((m) => m.ok);
  for (const m of listModels(view).filter((x) => !x.ok))
    report({ bench: 'sherpa-model', model: m.name, skipped: m.reason });
  const engine = new SherpaEngine({ home: view });
  const d = await startVoxd({ audio: 'null', env: { VOXD_ENGINE: 'auto' } });
  const link = join(d.home, 'models');
  rmSync(link, { recursive: true, force: true });
  symlinkSync(dir, link);
  try {
    await d.api('POST', '/v1/speak', { text: 'Warm up.', engine: 'espeak', wait: true });
    await sleep(1000);
    const bare = rssMb(d.pid);
    let hosts = new Set(children(d.pid));
    for (const m of models) {
      const voice = m.manifest.name;
      const t0 = performance.now();
      const w0 = await d.api('POST', '/v1/speak', {
        text: `Loading model ${models.indexOf(m) + 1}.`,
        voice,
        wait: true,
      });
      const loadAndFirstMs = performance.now() - t0;
      if (w0.body.engine !== 'sherpa') {
        report({ bench: 'sherpa-model', model: voice, failed: JSON.stringify(w0.body) });
        continue;
      }
      await drain(engine, SHORT, voice);
      const ratios = [];
      const whole = [];
      const audio = [];
      const firsts = [];
      for (let i = 0; i < Math.min(RUNS, 5); i++) {
        const w = await drain(engine, SHORT, voice);
        const r = await d.api('POST', '/v1/speak', {
          text: SHORT.replace('today.', `today ${models.indexOf(m) + 1}${i}.`),
          voice,
          wait: true,
        });
        const h = (await d.api('GET', '/v1/status')).body.history.find((e) => e.id === r.body.id);
        whole.push(w.ms);
        audio.push(w.audioMs);
        firsts.push(h.firstAudioMs);
        ratios.push(h.firstAudioMs / w.ms);
      }
      await sleep(2000);
      const now = new Set(children(d.pid));
      const host = [...now].find((p) => !hosts.has(p));
      hosts = now;
      report({
        bench: 'sherpa-model',
        model: voice,
        type: m.manifest.type,
        loadAndFirstSpeechMs: round(loadAndFirstMs),
        firstAudioMedianMs: round(median(firsts)),
        wholeSynthesisMs: round(median(whole)),
        firstAudioRatio: round(median(ratios), 4),
        rtf: round(median(whole) / median(audio), 4),
        threads: engine.threads,
        hostRssMb: host ? round(rssMb(host), 1) : undefined,
        voxdRssMb: round(rssMb(d.pid), 1),
        voxdRssBeforeAnyModelMb: round(bare, 1),
      });
    }
  } finally {
    unlinkSync(link);
    await d.stop();
    await engine.close();
    unlinkSync(join(view, 'models'));
    rmSync(view, { recursive: true, force: true });
  }
}
