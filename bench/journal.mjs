#!/usr/bin/env node
// The journal's cost per accepted request (budget: <= 1 ms median on this disk).
// Figures, all measured in this run:
// - accept over HTTP: POST /v1/speak answered `queued`, to a voxd with the
//   journal against the same voxd without one (the baseline), interleaved in
//   rounds; the difference of the medians is the journal's cost per accept.
//   The utterance playing meanwhile goes to a real-time file sink on tmpfs
//   (/dev/shm when there is one): a sound card does not write to the disk.
//   The same figure with the file sink on the journal's disk is reported
//   too (`sameDisk*`): ext4 (data=ordered) makes each fdatasync flush the
//   WAV data written meanwhile, so it costs more there;
// - Journal.accept() alone (write + fdatasync, group commit) against a bare
//   FileHandle.appendFile + sync() of the same bytes (the baseline);
// - the journal's size after all of it was stopped (it compacts), and a stop
//   of everything queued with the journal: from POST /v1/stop to the end of
//   the audio at the sink;
// - the same with 10,000 queued (issue 11's budget for a deep queue, which
//   bench/deep-queue.mjs measures without a journal: <= 100 ms), and the
//   journal's size with 10,000 queued and after they were all stopped.
// In-process: buildServer() with the real embedded espeak engine and a
// real-time FileSink, on 127.0.0.1:0. Needs `npm run build` first.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, singleEngine } from '../packages/voxd/dist/server.js';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { FileSink } from '../packages/voxd/dist/sinks/file.js';
import { Journal } from '../packages/voxd/dist/dispatch/journal.js';
import { median, percentile, report, round, TimedSink } from './lib.mjs';

const ROUNDS = 10;
const PER_ROUND = 50;
const DEEP = 10_000;
const TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

function api(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { authorization: `Bearer ${TOKEN}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-journal-'));
const engine = new EspeakEngine();
await engine.start();

const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/vox-bench-journal-') : undefined;

async function server(withJournal, sinkDir) {
  const out = join(sinkDir, withJournal ? 'out-journal' : 'out-bare');
  const sink = new TimedSink(new FileSink(out, { realtime: true }));
  const journal = withJournal ? Journal.open(join(dir, `journal-${++servers}.jsonl`)) : undefined;
  const { app, dispatcher } = await buildServer({
    token: TOKEN,
    synthesizer: singleEngine(engine),
    sink,
    ...(journal ? { journal } : {}),
  });
  if (journal) dispatcher.restore(journal.replay);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = app.server.address().port;
  // One long utterance plays, so that everything measured stays queued.
  await api(port, 'POST', '/v1/speak', {
    text: 'This long announcement plays while the others wait behind it. '.repeat(30),
  });
  return { app, port, sink, journal, times: [] };
}

let servers = 0;
const text = (i) =>
  `Queued announcement number ${i}, with a sentence or two of ordinary length behind it. And a second sentence.`;
let n = 0;
async function accepts(pair) {
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [pair[1], pair[0]] : pair) {
      for (let i = 0; i < PER_ROUND; i++) {
        const body = { text: text(n++), session: `s${i % 8}`, requestId: `bench-${n}` };
        const t0 = performance.now();
        const res = await api(s.port, 'POST', '/v1/speak', body);
        s.times.push(performance.now() - t0);
        if (res.status !== 202) throw new Error(`speak answered ${res.status}: ${res.text}`);
      }
    }
  }
}
const started = [];
async function pairOn(sinkDir) {
  const pair = [await server(false, sinkDir), await server(true, sinkDir)];
  started.push(...pair);
  return pair;
}
try {
  const [sameBare, sameJournaled] = await pairOn(dir);
  await accepts([sameBare, sameJournaled]);
  for (const s of [sameBare, sameJournaled]) await api(s.port, 'POST', '/v1/stop', { scope: 'all' });
  const [bare, journaled] = await pairOn(shm ?? dir);
  await accepts([bare, journaled]);

  // Journal.accept() alone against a bare append + sync of the same bytes.
  const alone = Journal.open(join(dir, 'alone.jsonl'));
  const fh = await open(join(dir, 'bare.jsonl'), 'a', 0o600);
  const own = [];
  const base = [];
  for (let i = 0; i < ROUNDS * PER_ROUND; i++) {
    const entry = {
      id: `id${i}`,
      kind: 'speech',
      priority: 'message',
      session: 's1',
      text: text(i),
      sentences: [text(i)],
      dedupKey: `k${i}`,
      windowMs: 5000,
      acceptedAt: Date.now(),
      requestId: `r${i}`,
    };
    const line = `${JSON.stringify({ t: 'a', ...entry })}\n`;
    const order = i % 2 ? ['own', 'base'] : ['base', 'own'];
    for (const which of order) {
      const t0 = performance.now();
      if (which === 'own') await alone.accept(entry);
      else {
        await fh.appendFile(line);
        await fh.sync();
      }
      (which === 'own' ? own : base).push(performance.now() - t0);
    }
  }
  await fh.close();
  await alone.close();

  const ended = journaled.sink.nextEnd();
  const t0 = performance.now();
  const stop = await api(journaled.port, 'POST', '/v1/stop', { scope: 'all' });
  const end = await ended;
  // Let the batched settles land, then read the compacted size.
  await new Promise((r) => setTimeout(r, 200));
  const journalBytes = statSync(journaled.journal.path).size;

  // A deep queue with the journal: 10,000 accepted in-process, then stop all.
  const deepSink = new TimedSink(new FileSink(join(shm ?? dir, 'out-deep'), { realtime: true }));
  const deepJournal = Journal.open(join(dir, 'journal-deep.jsonl'));
  const deep = await buildServer({
    token: TOKEN,
    synthesizer: singleEngine(engine),
    sink: deepSink,
    journal: deepJournal,
    maxQueue: DEEP,
  });
  deep.dispatcher.restore(deepJournal.replay);
  await deep.app.listen({ port: 0, host: '127.0.0.1' });
  started.push({ app: deep.app, port: deep.app.server.address().port, journal: deepJournal });
  const deepSettled = [
    (
      await deep.dispatcher.speak({
        text: 'This long announcement plays while ten thousand others wait behind it. '.repeat(30),
      })
    ).settled,
  ];
  for (let i = 1; i < DEEP; i++)
    deepSettled.push(
      (await deep.dispatcher.speak({ text: `Deep queued announcement number ${i}`, session: `s${i % 8}` })).settled,
    );
  const deepBytesQueued = statSync(deepJournal.path).size;
  const deepEnded = deepSink.nextEnd();
  const d0 = performance.now();
  await api(deep.app.server.address().port, 'POST', '/v1/stop', { scope: 'all' });
  const deepEnd = await deepEnded;
  const deepOutcomes = await Promise.all(deepSettled);
  const deepBytesAfter = statSync(deepJournal.path).size;

  const withMs = median(journaled.times);
  const withoutMs = median(bare.times);
  report({
    bench: 'journal: cost per accepted request',
    requests: journaled.times.length,
    acceptMedianMsWithJournal: round(withMs, 3),
    acceptMedianMsWithout: round(withoutMs, 3),
    acceptP95MsWithJournal: round(percentile(journaled.times, 95), 3),
    acceptP95MsWithout: round(percentile(bare.times, 95), 3),
    journalCostMedianMs: round(withMs - withoutMs, 3),
    acceptRatioVsNoJournal: round(withMs / withoutMs),
    sinkOn: shm ? 'tmpfs' : 'the same disk',
    sameDiskAcceptMedianMsWithJournal: round(median(sameJournaled.times), 3),
    sameDiskAcceptMedianMsWithout: round(median(sameBare.times), 3),
    sameDiskJournalCostMedianMs: round(median(sameJournaled.times) - median(sameBare.times), 3),
    journalAcceptAloneMedianMs: round(median(own), 3),
    bareAppendSyncMedianMs: round(median(base), 3),
    aloneRatioVsBareAppendSync: round(median(own) / median(base)),
    stopStatus: stop.status,
    stopToEndOfAudioMsWithJournal: round(end - t0),
    journalBytesAfterStop: journalBytes,
    deepStopToEndOfAudioMsWithJournal: round(deepEnd - d0),
    deepStopped: deepOutcomes.filter((o) => o.status === 'stopped').length,
    deepJournalBytesQueued: deepBytesQueued,
    deepJournalBytesAfterStop: deepBytesAfter,
    budgetMs: 1,
    withinBudget: withMs - withoutMs <= 1,
  });
} finally {
  for (const s of started) {
    await api(s.port, 'POST', '/v1/stop', { scope: 'all' }).catch(() => {});
    await s.app.close();
    await s.journal?.close();
  }
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  if (shm) rmSync(shm, { recursive: true, force: true });
}
