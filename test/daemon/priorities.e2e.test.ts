/**
 * The priority rules (docs/priorities.md), end to end: the real voxd with the
 * real-time file sink, real HTTP. A long `message` keeps the daemon busy while
 * other requests arrive; the tests check outcomes (the `wait: true` answers
 * and the status history), the order of the played WAVs (`NNNN-<id>.wav`) and
 * their lengths read from the WAVs. Nothing here asserts on a duration.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { removeDir, startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

/** Four sentences of clearly different lengths, about ten seconds at 175 wpm. */
const LONG = [
  'The first sentence of this announcement is fairly long, so that it keeps the speaker busy for a while.',
  'Second, a short one.',
  'The third sentence is of middling length and says nothing in particular.',
  'Finally the fourth sentence closes the long announcement.',
].join(' ');
const SENTENCES = LONG.split(/(?<=\.)\s+/);

let d: Daemon;
let n = 0;

before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d.stop();
  removeDir(d.home);
});

/** POST /v1/speak; with `wait` the promise resolves with the final outcome. */
async function speak(body: Record<string, unknown>): Promise<any> {
  const r = await d.api('POST', '/v1/speak', body);
  assert.ok(r.status === 200 || r.status === 202, `speak answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Start a request that waits for its outcome; resolves with its id as soon as it is accepted. */
async function speakWaiting(body: Record<string, unknown>): Promise<{ id: string; done: Promise<any> }> {
  // The id is only in the answer, which a waiting request gives at the end: find it in the history by its text.
  const text = body.text as string;
  const done = d.api('POST', '/v1/speak', { ...body, wait: true }).then((r) => r.body);
  const id = await waitFor(
    async () => (await history()).find((h) => h.text === text)?.id,
    20_000,
    `"${text}" to be accepted`,
  );
  return { id, done };
}

async function history(): Promise<any[]> {
  return (await d.api('GET', '/v1/status')).body.history;
}

async function outcomes(ids: string[]): Promise<string[]> {
  const h = await history();
  return ids.map((id) => h.find((e) => e.id === id)?.outcome ?? 'missing');
}

/** The utterance ids of the WAVs written since `from`, in play order. */
function playedSince(from: number): string[] {
  return d
    .wavs()
    .slice(from)
    .map((f) => /^\d+-(.+)\.wav$/.exec(basename(f))![1]!);
}

/** Wait until `id` is audible: its WAV is growing with PCM, not merely created. */
async function heard(id: string): Promise<void> {
  await waitFor(
    () => d.wavs().some((f) => f.includes(`-${id}.wav`) && statSync(f).size > 44 + 22050) || undefined,
    20_000,
    `${id} to be heard`,
  );
}

/** Seconds of the WAV files of `id` (an interrupted utterance has one per part). */
function secondsOf(id: string): number[] {
  return d
    .wavs()
    .filter((f) => f.includes(`-${id}.wav`))
    .map((f) => wavStats(f).durationMs / 1000);
}

/** The uncut length of `text`, synthesized by the same daemon without playing it. */
async function uncut(text: string, rate?: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, ...(rate ? { rate } : {}) }),
  });
  assert.equal(res.status, 200);
  const file = join(d.home, `uncut-${++n}.wav`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return wavStats(file).durationMs / 1000;
}

/** espeak's length for a sentence varies by a few ms with what it said before. */
const near = (actual: number, expected: number, tolerance = 0.15) => Math.abs(actual - expected) <= tolerance;

describe('important', () => {
  test('plays next, interrupts a message that resumes from the cut sentence, and is never interrupted', async () => {
    await d.idle();
    const from = d.wavs().length;
    const m = await speakWaiting({ text: LONG, session: 'a' });
    await heard(m.id);
    // Into the second sentence or later, so the resume point is not the start.
    const firstSentence = await uncut(SENTENCES[0]!);
    await waitFor(
      () =>
        (statSync(d.wavs().find((f) => f.includes(`-${m.id}.wav`))!).size - 44) / 44100 > firstSentence + 0.3 ||
        undefined,
      30_000,
      'the second sentence',
    );
    const queuedMessage = await speak({ text: 'A message queued before the important one.', session: 'b', rate: 400 });
    const important = await speakWaiting({
      text: 'Important: the release is blocked. Every session stop and read this.',
      priority: 'important',
      session: 'c',
    });
    await heard(important.id);
    // Neither a second important nor a message interrupts the one playing.
    const important2 = await speak({ text: 'A second important one.', priority: 'important', session: 'd', rate: 400 });
    const lateMessage = await speak({ text: 'A message sent during the important one.', session: 'e', rate: 400 });
    assert.equal(important2.status, 'queued');
    assert.equal(lateMessage.status, 'queued');

    assert.equal((await important.done).status, 'played');
    assert.equal((await m.done).status, 'played', 'the interrupted message resumes and ends played');
    await d.idle();
    assert.deepEqual(playedSince(from), [m.id, important.id, important2.id, m.id, queuedMessage.id, lateMessage.id]);
    assert.deepEqual(await outcomes([important2.id, queuedMessage.id, lateMessage.id]), ['played', 'played', 'played']);

    // The important one was never cut.
    const [importantSeconds] = secondsOf(important.id);
    assert.ok(
      near(importantSeconds!, await uncut('Important: the release is blocked. Every session stop and read this.')),
      `important ${importantSeconds}s`,
    );
    // The message resumed from the sentence that was cut: the second part is a
    // whole suffix of the sentences, not the whole text, and the parts cover it all.
    const [part1, part2] = secondsOf(m.id) as [number, number];
    const whole = await uncut(LONG);
    const suffixes = await Promise.all([1, 2, 3].map((k) => uncut(SENTENCES.slice(k).join(' '))));
    assert.ok(
      suffixes.some((s) => near(part2, s)),
      `resumed part ${part2}s is none of the suffixes ${suffixes.join(', ')}`,
    );
    assert.ok(part1 + part2 >= whole - 0.15, `parts ${part1}s + ${part2}s cover the ${whole}s text`);
    assert.ok(part1 < whole && part2 < whole);
  });

  test('an interrupted text resumes and ends played; an interrupted notification ends interrupted', async () => {
    await d.idle();
    const from = d.wavs().length;
    const t = await speakWaiting({ text: `${LONG} As a text.`, priority: 'text', session: 'a', rate: 300 });
    await heard(t.id);
    const i1 = await speakWaiting({ text: 'Urgent, number one.', priority: 'important', rate: 400 });
    assert.equal((await t.done).status, 'played');
    assert.equal((await i1.done).status, 'played');

    const note = await speakWaiting({ text: `${LONG} As a notification.`, priority: 'notification', rate: 300 });
    await heard(note.id);
    const i2 = await speakWaiting({ text: 'Urgent, number two.', priority: 'important', rate: 400 });
    const noteDone = await note.done;
    assert.equal(noteDone.status, 'interrupted');
    assert.match(noteDone.reason, /important/);
    assert.equal((await i2.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [t.id, i1.id, t.id, note.id, i2.id]);
    assert.ok(
      secondsOf(note.id)[0]! < (await uncut(`${LONG} As a notification.`, 300)) / 2,
      'the notification was cut',
    );
  });
});

describe('message', () => {
  test('cuts a playing text (interrupted) and cancels queued text', async () => {
    await d.idle();
    const from = d.wavs().length;
    const t1 = await speakWaiting({ text: `${LONG} Text one.`, priority: 'text', session: 'a', rate: 300 });
    await heard(t1.id);
    const t2 = await speakWaiting({ text: 'Text two, queued.', priority: 'text', session: 'b' });
    const m = await speakWaiting({ text: 'A message cuts the text.', rate: 400 });
    const [r1, r2, rm] = await Promise.all([t1.done, t2.done, m.done]);
    assert.equal(r1.status, 'interrupted');
    assert.equal(r2.status, 'dropped');
    assert.match(r2.reason, /cancelled by a message/);
    assert.equal(rm.status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [t1.id, m.id]);
    assert.ok(secondsOf(t1.id)[0]! < (await uncut(`${LONG} Text one.`, 300)) / 2, 'the text was cut');
  });

  test('cuts a playing notification', async () => {
    await d.idle();
    const note = await speakWaiting({ text: `${LONG} A notification.`, priority: 'notification', rate: 300 });
    await heard(note.id);
    const m = await speakWaiting({ text: 'A message cuts the notification.', rate: 400 });
    assert.equal((await note.done).status, 'interrupted');
    assert.equal((await m.done).status, 'played');
  });

  test('cuts a playing progress and cancels queued progress, but not a final one', async () => {
    await d.idle();
    const from = d.wavs().length;
    const p = await speakWaiting({ text: `${LONG} Progress.`, priority: 'progress', session: 'build', rate: 300 });
    await heard(p.id);
    const other = await speakWaiting({ text: 'Deploy progress, queued.', priority: 'progress', session: 'deploy' });
    const fin = await speakWaiting({
      text: 'Release finished.',
      priority: 'progress',
      session: 'release',
      final: true,
      rate: 400,
    });
    const m = await speakWaiting({ text: 'A message cuts the progress.', rate: 400 });
    assert.equal((await p.done).status, 'interrupted');
    assert.equal((await other.done).status, 'dropped');
    assert.equal((await m.done).status, 'played');
    assert.equal((await fin.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [p.id, m.id, fin.id]);
  });

  test('waits for a playing message: sentences of one utterance are never interleaved with another', async () => {
    await d.idle();
    const from = d.wavs().length;
    const first = await uncut(SENTENCES[0]!);
    const text = `${LONG} Not interleaved.`;
    const m1 = await speakWaiting({ text });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'The second message, sent during the first sentence.', rate: 400 });
    const bytesSoFar = statSync(d.wavs().find((f) => f.includes(`-${m1.id}.wav`))!).size - 44;
    assert.ok(bytesSoFar / 44100 < first, 'the second message arrived during the first sentence');
    assert.equal((await m1.done).status, 'played');
    assert.equal((await m2.done).status, 'played');
    assert.deepEqual(playedSince(from), [m1.id, m2.id]);
    const [whole] = secondsOf(m1.id);
    assert.ok(near(whole!, await uncut(text)), `the first WAV (${whole}s) is the whole utterance`);
  });
});

describe('text', () => {
  test("replaces its own session's older queued text; other sessions' text stays", async () => {
    await d.idle();
    const from = d.wavs().length;
    const blocker = await speakWaiting({ text: `${LONG} Blocking.`, session: 'x' });
    await heard(blocker.id);
    const a1 = await speakWaiting({ text: 'Text a one.', priority: 'text', session: 'a', rate: 400 });
    const b1 = await speakWaiting({ text: 'Text b one.', priority: 'text', session: 'b', rate: 400 });
    const a2 = await speakWaiting({ text: 'Text a two.', priority: 'text', session: 'a', rate: 400 });
    const r1 = await a1.done;
    assert.equal(r1.status, 'replaced');
    assert.match(r1.reason, /same session/);
    // The blocker has done its job.
    await d.api('POST', '/v1/stop', { scope: 'id', id: blocker.id });
    assert.equal((await blocker.done).status, 'stopped');
    assert.equal((await b1.done).status, 'played');
    assert.equal((await a2.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [blocker.id, b1.id, a2.id]);
  });
});

describe('notification', () => {
  test('is dropped when anything else is playing or queued, and plays when voxd is idle', async () => {
    await d.idle();
    const from = d.wavs().length;
    const blocker = await speakWaiting({ text: `${LONG} Blocking notifications.`, session: 'x' });
    await heard(blocker.id);
    const whilePlaying = await speak({ text: 'Idle ping while busy.', priority: 'notification' });
    assert.equal(whilePlaying.status, 'dropped');
    assert.match(whilePlaying.reason, /notification dropped/);
    await speak({ text: 'Something queued.', session: 'y', rate: 400 });
    const whileQueued = await speak({ text: 'Idle ping while queued.', priority: 'notification' });
    assert.equal(whileQueued.status, 'dropped');
    await d.api('POST', '/v1/stop', { scope: 'id', id: blocker.id });
    await d.idle();
    const idle = await d.api('POST', '/v1/speak', {
      text: 'Idle ping when idle.',
      priority: 'notification',
      rate: 400,
      wait: true,
    });
    assert.equal(idle.body.status, 'played');
    const ids = playedSince(from);
    assert.equal(ids.length, 3);
    assert.equal(ids[2], idle.body.id);
    const h = await history();
    assert.equal(h.find((e) => e.id === whilePlaying.id).outcome, 'dropped');
  });
});

describe('progress', () => {
  test('keeps only the latest per session; the final one is always spoken', async () => {
    await d.idle();
    const from = d.wavs().length;
    const p0 = await speakWaiting({
      text: `${LONG} Build progress zero.`,
      priority: 'progress',
      session: 'build',
      rate: 300,
    });
    await heard(p0.id);
    const p1 = await speakWaiting({ text: 'Build twenty percent.', priority: 'progress', session: 'build', rate: 400 });
    const q1 = await speakWaiting({ text: 'Deploy ten percent.', priority: 'progress', session: 'deploy', rate: 400 });
    const p2 = await speakWaiting({ text: 'Build sixty percent.', priority: 'progress', session: 'build', rate: 400 });
    const pFinal = await speakWaiting({
      text: 'Build finished.',
      priority: 'progress',
      session: 'build',
      final: true,
      rate: 400,
    });
    const p3 = await speakWaiting({ text: 'Build started again.', priority: 'progress', session: 'build', rate: 400 });
    assert.equal((await p1.done).status, 'replaced');
    assert.equal((await p2.done).status, 'replaced');
    for (const x of [p0, q1, pFinal, p3]) assert.equal((await x.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [p0.id, q1.id, pFinal.id, p3.id]);
  });

  test('non-final progress yields to other speech; a final one waits and is not cancelled by a message', async () => {
    await d.idle();
    const from = d.wavs().length;
    const blocker = await speakWaiting({ text: `${LONG} Blocking progress.`, session: 'x', rate: 300 });
    await heard(blocker.id);
    const dropped = await speak({ text: 'Tests forty percent.', priority: 'progress', session: 'tests' });
    assert.equal(dropped.status, 'dropped');
    assert.match(dropped.reason, /progress dropped/);
    const fin = await speakWaiting({
      text: 'Tests finished.',
      priority: 'progress',
      session: 'tests',
      final: true,
      rate: 400,
    });
    const m = await speakWaiting({ text: 'A message after the final progress.', rate: 400 });
    for (const x of [blocker, m, fin]) assert.equal((await x.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [blocker.id, m.id, fin.id]);
  });
});

describe('expiry', () => {
  test('a request with maxAgeMs behind a long utterance is reported expired and never played', async () => {
    await d.idle();
    const from = d.wavs().length;
    const blocker = await speakWaiting({ text: `${LONG} Blocking expiry.`, session: 'x' });
    await heard(blocker.id);
    const late = await d.api('POST', '/v1/speak', { text: 'Only worth saying soon.', maxAgeMs: 300, wait: true });
    assert.equal(late.body.status, 'expired');
    assert.match(late.body.reason, /maxAgeMs/);
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await d.idle();
    assert.deepEqual(playedSince(from), [blocker.id]);
    assert.equal((await outcomes([late.body.id]))[0], 'expired');
    const s = await d.api('GET', '/v1/status');
    assert.ok(s.body.counters.expired >= 1);
  });
});
