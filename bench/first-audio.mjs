#!/usr/bin/env node
// First audio (issue "Shared voice etiquette", and issue 2): from acceptance to
// the first PCM at the sink, against the time the embedded engine needs to
// synthesize the whole text, both measured in this run.
//   - 2,000-character text: first PCM <= 0.1 x whole synthesis.
//   - 200-character, 3-sentence text: first PCM <= 0.5 x whole synthesis.
// In-process: a Dispatcher with the real embedded espeak engine (no cache, so
// every trial synthesizes), voxd's text cleanup and the real-time FileSink. The figure is the history entry's
// `firstAudioMs`; each trial is stopped once audio flows. The baseline is the
// whole text synthesized by EspeakEngine directly, as one call and sentence by
// sentence (the ratio uses the faster of the two). Prints one JSON line per
// figure; never fails on a duration. Needs `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '../packages/voxd/dist/dispatch/dispatcher.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { singleEngine } from '../packages/voxd/dist/server.js';
import { splitSentences } from '../packages/voxd/dist/text/sentences.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { prepareInline, prepareText } from '../packages/voxd/dist/text/preparer.js';
import { median, report, round } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const POOL = [
  'The build finished on the main branch and every one of the integration suites passed without a retry.',
  'Three services were deployed to the staging cluster, and the smoke tests are running against them now.',
  'A reviewer asked for smaller functions in the parser module, so the change was split into two commits.',
  'The database migration added an index on the sessions table, which made the slow report four times faster.',
  'Memory use of the worker stayed flat during the soak test, at about one hundred and twenty megabytes.',
  'Two flaky tests were quarantined, and an issue was filed for each with the logs of the failing runs.',
];

/** Sentences from the pool up to `chars` characters, cut at a word and closed with a period. */
function longText(chars) {
  let text = '';
  for (let i = 0; text.length < chars; i++) text += `${POOL[i % POOL.length]} `;
  text = text.slice(0, chars - 1);
  return `${text.slice(0, text.lastIndexOf(' ')).replace(/[,.]$/, '')}.`;
}

/** Exactly 200 characters in three sentences. */
const SHORT =
  'The build finished and all the tests passed on the main branch today. Three services went out to staging, and the smoke tests run right now. A reviewer asked for smaller functions in the parser codes.';

async function synthMs(engine, texts) {
  const t0 = performance.now();
  for (const text of texts) {
    const s = await engine.synthesize({ text });
    for await (const _ of s.chunks);
  }
  return performance.now() - t0;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The file sink, tapped to say when the first PCM of an utterance was handed to it. */
class TappedSink {
  constructor(inner) {
    this.inner = inner;
    this.name = inner.name;
    this.onAudio = undefined;
  }
  state() {
    return this.inner.state();
  }
  check() {
    return this.inner.check();
  }
  play(format, chunks, signal, meta) {
    const self = this;
    async function* tap() {
      for await (const c of chunks) {
        yield c;
        // After the yield: the sink has taken the chunk and written its first slice.
        self.onAudio?.();
        self.onAudio = undefined;
      }
    }
    return this.inner.play(format, tap(), signal, meta);
  }
  close() {
    return this.inner.close();
  }
}

const out = mkdtempSync(join(tmpdir(), 'vox-bench-first-audio-'));
const engine = new EspeakEngine();
await engine.start();
const sink = new TappedSink(new FileSink(out));
const dispatcher = new Dispatcher({ synthesizer: singleEngine(engine), sink, prepare: prepareInline });
try {
  const cases = [
    { bench: 'first-audio-2000', text: longText(2000), budgetRatio: 0.1 },
    { bench: 'first-audio-200-3-sentences', text: SHORT, budgetRatio: 0.5 },
  ];
  for (const c of cases) {
    const sentences = splitSentences(c.text);
    const first = [];
    const whole = [];
    const bySentence = [];
    for (let i = 0; i < RUNS + 1; i++) {
      // Baselines first, with the dispatcher idle: the engine has one worker.
      const w = await synthMs(engine, [c.text]);
      const s = await synthMs(engine, sentences);
      const heard = new Promise((r) => (sink.onAudio = r));
      const { response, settled } = await dispatcher.speak({ text: c.text, once: 1 });
      if (response.status !== 'queued') throw new Error(`speak answered ${response.status}`);
      await heard;
      await dispatcher.stop('current');
      if ((await settled).status !== 'stopped') throw new Error('expected the trial to be stopped');
      await dispatcher.idle();
      // The stopped original would dedup a repeat for `once` seconds.
      await sleep(1100);
      const h = dispatcher.history().find((e) => e.id === response.id);
      if (h?.firstAudioMs === undefined) throw new Error(`no firstAudioMs: ${JSON.stringify(h)}`);
      if (i === 0) continue; // warm-up
      first.push(h.firstAudioMs);
      whole.push(w);
      bySentence.push(s);
    }
    // Acceptance comes after the text cleanup; time that too, so nothing before first audio is hidden.
    const cleanups = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      prepareText(c.text, { keepTags: false });
      cleanups.push(performance.now() - t0);
    }
    const cleanupMs = median(cleanups.slice(10));
    const firstMs = median(first);
    const baseline = Math.min(median(whole), median(bySentence));
    const ratio = firstMs / baseline;
    report({
      bench: c.bench,
      chars: c.text.length,
      sentences: sentences.length,
      runs: first.length,
      firstAudioMedianMs: round(firstMs),
      firstAudioMaxMs: round(Math.max(...first)),
      wholeSynthesisOneCallMs: round(median(whole)),
      wholeSynthesisBySentenceMs: round(median(bySentence)),
      ratio: round(ratio, 4),
      cleanupMs: round(cleanupMs),
      ratioWithCleanup: round((firstMs + cleanupMs) / baseline, 4),
      budgetRatio: c.budgetRatio,
      withinBudget: ratio <= c.budgetRatio,
    });
  }
} finally {
  await dispatcher.close(0);
  await engine.close();
  rmSync(out, { recursive: true, force: true });
}
