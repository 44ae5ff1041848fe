/**
 * Narration end to end (real voxd, real HTTP, the real-time file sink):
 * batches of a message become one growing utterance whose sentences are
 * spoken as they complete, code and tables as a phrase; a re-sent batch
 * changes nothing; a cut ends it and its later batches are refused with
 * why; two sessions narrating share the voice in turns while an `important`
 * from a third cuts in; and a `kill -9` between batches loses nothing and
 * repeats nothing. What was spoken is checked from the WAVs: their length
 * against the same sentences rendered by /v1/synthesize.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FIXTURES, startDaemon, stopDaemonsUnder, tempDir, vox, waitFor, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, 'hooks', name), 'utf8'));

function batch(d: Daemon, session: string, message: string, index: number, delta: string, final = false) {
  return d.api('POST', '/v1/narration', { session, message, index, final, delta });
}

/** The WAVs of utterance `id`, in the order written. */
function wavsOf(d: Daemon, id: string): string[] {
  return d.wavs().filter((f) => basename(f).endsWith(`-${id}.wav`));
}

function playedMs(files: string[]): number {
  return files.reduce((n, f) => n + wavStats(f).durationMs, 0);
}

async function synthesizedMs(d: Daemon, text: string, voice?: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, ...(voice ? { voice } : {}) }),
  });
  assert.equal(res.status, 200);
  return wavStats(Buffer.from(await res.arrayBuffer())).durationMs;
}

async function settled(d: Daemon, id: string): Promise<any> {
  return waitFor(
    async () => {
      const h = (await d.api('GET', '/v1/status')).body.history.find((e: any) => e.id === id);
      return h && !['queued', 'playing'].includes(h.outcome) ? h : undefined;
    },
    60_000,
    `utterance ${id} to settle`,
  );
}

test('the fixture message: its sentences in order, the code block as a phrase, one utterance', async (t) => {
  const d = await startDaemon();
  t.after(() => stopDaemonsUnder(d.home));
  const [b0, b1] = [fixture('message-display-0.json'), fixture('message-display-1-final.json')];
  const r0 = await batch(d, 'shop#3c07f0', b0.message_id, b0.index, b0.delta, b0.final);
  assert.equal(r0.status, 202);
  assert.deepEqual({ status: r0.body.status, sentences: r0.body.sentences }, { status: 'queued', sentences: 1 });
  const r1 = await batch(d, 'shop#3c07f0', b1.message_id, b1.index, b1.delta, b1.final);
  assert.deepEqual(
    { id: r1.body.id, status: r1.body.status, sentences: r1.body.sentences },
    { id: r0.body.id, status: 'queued', sentences: 3 },
  );
  const h = await settled(d, r0.body.id);
  assert.equal(h.outcome, 'played');
  const expected =
    'I split the checkout module into three files. Next I added tests for the refund path, and fixed the rounding bug. A code block of one line. All 47 tests pass.';
  assert.equal(h.text, expected);
  assert.doesNotMatch(h.text, /Math\.round|export|```/);
  // What was heard is those sentences in the session's voice: as long as they are when rendered alone.
  const heard = playedMs(wavsOf(d, r0.body.id));
  const want = await synthesizedMs(d, expected, h.voice);
  assert.ok(Math.abs(heard - want) < 0.15 * want, `heard ${heard} ms, the sentences take ${want} ms`);
});

test('a re-sent batch changes nothing; a cut ends the message and its later batches say why', async (t) => {
  const d = await startDaemon();
  t.after(() => stopDaemonsUnder(d.home));
  const first = await batch(
    d,
    'api#1',
    'm1',
    0,
    'The first sentence is here and it is complete.\nThe second one is still being written,',
  );
  assert.equal(first.body.sentences, 1);
  const again = await batch(
    d,
    'api#1',
    'm1',
    0,
    'The first sentence is here and it is complete.\nThe second one is still being written,',
  );
  assert.deepEqual(again.body, { id: first.body.id, status: 'repeated', sentences: 0 });
  const cut = await d.api('POST', '/v1/narration/cut', { session: 'api#1' });
  assert.deepEqual(cut.body, { cut: [first.body.id] });
  const h = await settled(d, first.body.id);
  assert.equal(h.outcome, 'stopped');
  const late = await batch(d, 'api#1', 'm1', 1, ' and now it ends.\n', true);
  assert.equal(late.status, 200);
  assert.equal(late.body.status, 'dropped');
  assert.match(late.body.reason, /cut: a new prompt/);
  // Another session's narration, and a new message of the same one, are not touched.
  const other = await batch(d, 'api#1', 'm2', 0, 'A new message starts after the prompt.\n', true);
  assert.equal(other.body.status, 'queued');
  assert.equal((await settled(d, other.body.id)).outcome, 'played');
});

test('a message that waits for its next batch is stopped by a stop of its session', async (t) => {
  const d = await startDaemon({ realtime: false });
  t.after(() => stopDaemonsUnder(d.home));
  const r = await batch(d, 'web#2', 'm1', 0, 'Only a part of a sentence so far,');
  assert.deepEqual({ status: r.body.status, sentences: r.body.sentences }, { status: 'queued', sentences: 0 });
  const stop = await d.api('POST', '/v1/stop', { scope: 'session', session: 'web#2' });
  assert.deepEqual(stop.body.stopped, [r.body.id]);
  assert.equal((await settled(d, r.body.id)).outcome, 'stopped');
  assert.equal(wavsOf(d, r.body.id).length, 0);
});

test('a message that spoke all it has is listed as narrating (status, vox status) until its last batch', async (t) => {
  const d = await startDaemon({ realtime: false });
  t.after(() => stopDaemonsUnder(d.home));
  const r = await batch(d, 'web#3', 'm1', 0, 'One whole sentence.\nAnd half of');
  assert.equal(r.body.sentences, 1);
  const waiting = await waitFor(
    async () => {
      const s = (await d.api('GET', '/v1/status')).body;
      return s.playing === null && s.narrating?.length === 1 ? s.narrating : undefined;
    },
    30_000,
    'the first sentence played and the message waiting',
  );
  assert.equal(waiting.items.length, 1);
  assert.deepEqual(
    { id: waiting.items[0].id, session: waiting.items[0].session, spoken: waiting.items[0].spoken },
    { id: r.body.id, session: 'web#3', spoken: 1 },
  );
  assert.equal(typeof waiting.items[0].waitingMs, 'number');
  // A counts-only status still counts it.
  assert.deepEqual((await d.api('GET', '/v1/status?limit=0')).body.narrating, { length: 1, items: [] });
  const text = await vox(['status'], { env: d.env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^narrating: 1 waiting for the model's next lines\n {2}web#3 +1 sentence spoken, waiting \d+ s$/m,
  );
  await batch(d, 'web#3', 'm1', 1, ' a second one.\n', true);
  assert.equal((await settled(d, r.body.id)).outcome, 'played');
  assert.deepEqual((await d.api('GET', '/v1/status')).body.narrating, { length: 0, items: [] });
  assert.doesNotMatch((await vox(['status'], { env: d.env })).stdout, /narrating/);
});

test('bad batches are refused with a clear error', async (t) => {
  const d = await startDaemon({ realtime: false });
  t.after(() => stopDaemonsUnder(d.home));
  const noSession = await d.api('POST', '/v1/narration', { message: 'm', index: 0, final: true, delta: 'x' });
  assert.equal(noSession.status, 400);
  assert.equal(noSession.body.code, 'VOX_ERR_BODY_INVALID');
  assert.match(noSession.body.message, /session/);
  const huge = await d.api('POST', '/v1/narration', {
    session: 's',
    message: 'm',
    index: 0,
    final: true,
    delta: 'x'.repeat(70_000),
  });
  assert.ok([400, 413].includes(huge.status), `status ${huge.status}`);
  const badId = await d.api('POST', '/v1/narration', {
    session: 's',
    message: 'a b',
    index: 0,
    final: true,
    delta: 'x',
  });
  assert.equal(badId.status, 400);
});

/** Sentences of a long reply: each about two seconds of speech. */
const LONG = Array.from(
  { length: 6 },
  (_, i) => `Sentence number ${i + 1} of this long reply goes on for a little while.`,
);

test('two sessions narrating share the voice in turns, and an important ask from a third cuts in', async (t) => {
  const d = await startDaemon();
  t.after(() => stopDaemonsUnder(d.home));
  const a = await batch(d, 'alpha#1', 'ma', 0, `${LONG.join('\n')}\n`, true);
  const b = await batch(d, 'beta#2', 'mb', 0, `${LONG.join('\n')}\n`, true);
  assert.equal(a.body.sentences, 6);
  assert.equal(b.body.sentences, 6);
  // Once beta has had a turn, a permission ask from a third session arrives.
  await waitFor(() => (wavsOf(d, b.body.id).length > 0 ? true : undefined), 60_000, 'beta to get a turn');
  const ask = await d.api('POST', '/v1/speak', {
    text: 'gamma needs your permission to use Bash.',
    priority: 'important',
    session: 'gamma#3',
  });
  assert.equal(ask.body.status, 'queued');
  for (const id of [a.body.id, b.body.id, ask.body.id]) assert.equal((await settled(d, id)).outcome, 'played');
  // Order of the WAVs: alpha's first turn, then beta before alpha had finished, and both in several turns.
  const order = d.wavs().map((f) => /^\d+-(.+)\.wav$/.exec(basename(f))![1]!);
  const firstB = order.indexOf(b.body.id);
  const lastA = order.lastIndexOf(a.body.id);
  assert.ok(firstB > 0 && firstB < lastA, `beta spoke before alpha was done: ${order.join(' ')}`);
  assert.ok(wavsOf(d, a.body.id).length >= 2 && wavsOf(d, b.body.id).length >= 2, `turns: ${order.join(' ')}`);
  // No turn was longer than its bound plus one sentence.
  const sentenceMs = await synthesizedMs(d, LONG[0]!);
  for (const f of [...wavsOf(d, a.body.id), ...wavsOf(d, b.body.id)]) {
    assert.ok(wavStats(f).durationMs < 6000 + 1.5 * sentenceMs, `${basename(f)}: ${wavStats(f).durationMs} ms`);
  }
  // The ask was not held behind the narrations: it cut into the turn playing when it came.
  const askAt = order.indexOf(ask.body.id);
  assert.ok(askAt > 0 && askAt < order.length - 1, `the ask played between turns: ${order.join(' ')}`);
  // Everything of both messages was heard once.
  const full = await synthesizedMs(d, LONG.join(' '));
  for (const id of [a.body.id, b.body.id]) {
    const heard = playedMs(wavsOf(d, id));
    assert.ok(heard > 0.85 * full && heard < 1.25 * full, `${id}: heard ${heard} ms of ${full} ms`);
  }
});

const SHORT = Array.from({ length: 14 }, (_, i) => `Part ${i + 1} is short.`);

/** Audio in a WAV being written, in ms (the file sink writes in real time; the header's size comes at the end). */
function writtenMs(file: string): number {
  const b = readFileSync(file);
  if (b.length < 44) return 0;
  return ((b.length - 44) / (b.readUInt32LE(24) * 2)) * 1000;
}

test('a narration paused for an ask continues its own turn when it resumes: the other session waits one turn, not two', async (t) => {
  const d = await startDaemon();
  t.after(() => stopDaemonsUnder(d.home));
  const a = await batch(d, 'alpha#1', 'ma', 0, `${SHORT.join('\n')}\n`, true);
  const b = await batch(d, 'beta#2', 'mb', 0, `${SHORT.join('\n')}\n`, true);
  assert.equal(a.body.sentences, SHORT.length);
  // Alpha holds the voice, beta waits; late in alpha's first turn a third session's ask cuts in.
  await waitFor(
    () => {
      const [first] = wavsOf(d, a.body.id);
      return first && writtenMs(first) >= 4000 ? true : undefined;
    },
    60_000,
    "alpha's first turn to be 4 s in",
  );
  const ask = await d.api('POST', '/v1/speak', {
    text: 'gamma needs your permission.',
    priority: 'important',
    session: 'gamma#3',
  });
  assert.equal(ask.body.status, 'queued');
  for (const id of [a.body.id, b.body.id, ask.body.id]) assert.equal((await settled(d, id)).outcome, 'played');
  const files = d.wavs();
  const order = files.map((f) => /^\d+-(.+)\.wav$/.exec(basename(f))![1]!);
  // The turn state: alpha, the ask, alpha again, and only then beta.
  const firstB = order.indexOf(b.body.id);
  assert.deepEqual(order.slice(0, 3), [a.body.id, ask.body.id, a.body.id], order.join(' '));
  assert.equal(firstB, 3, order.join(' '));
  // Alpha's turn around the ask is one turn: 6 s, plus the sentence it ended on, plus the one cut and said again.
  const sentenceMs = Math.max(...(await Promise.all(SHORT.slice(0, 2).map((s) => synthesizedMs(d, s)))));
  const turn = playedMs([files[0]!, files[2]!]);
  assert.ok(turn <= 6000 + 2 * sentenceMs + 250, `alpha's turn: ${turn} ms of audio (a sentence: ${sentenceMs} ms)`);
});

test('kill -9 between batches: the message carries on mid-paragraph, nothing lost, nothing twice', async (t) => {
  const home = tempDir();
  t.after(() => stopDaemonsUnder(home));
  const d1 = await startDaemon({ home });
  const r0 = await batch(
    d1,
    'shop#9',
    'mk',
    0,
    'The first sentence was written before the crash.\nThe second sentence starts before the crash',
  );
  assert.equal(r0.body.sentences, 1);
  await waitFor(
    async () =>
      (await d1.api('GET', '/v1/status')).body.playing === null && wavsOf(d1, r0.body.id).length > 0 ? true : undefined,
    30_000,
    'the first sentence to be played',
  );
  d1.proc.kill('SIGKILL');
  await new Promise((r) => d1.proc.once('exit', r));
  const d2 = await startDaemon({ home });
  const r1 = await batch(d2, 'shop#9', 'mk', 1, ' and ends after it.\nA third sentence closes the message.\n', true);
  assert.deepEqual(
    { id: r1.body.id, status: r1.body.status, sentences: r1.body.sentences },
    { id: r0.body.id, status: 'queued', sentences: 2 },
  );
  const again = await batch(d2, 'shop#9', 'mk', 0, 'The first sentence was written before the crash.\n');
  assert.equal(again.body.status, 'repeated');
  const h = await settled(d2, r0.body.id);
  assert.equal(h.outcome, 'played');
  const files = wavsOf(d2, r0.body.id);
  const before = await synthesizedMs(d2, 'The first sentence was written before the crash.', h.voice);
  const after = await synthesizedMs(
    d2,
    'The second sentence starts before the crash and ends after it. A third sentence closes the message.',
    h.voice,
  );
  assert.equal(files.length, 2, files.join(' '));
  assert.ok(Math.abs(wavStats(files[0]!).durationMs - before) < 0.15 * before);
  assert.ok(
    Math.abs(wavStats(files[1]!).durationMs - after) < 0.15 * after,
    `${wavStats(files[1]!).durationMs} vs ${after}`,
  );
});
