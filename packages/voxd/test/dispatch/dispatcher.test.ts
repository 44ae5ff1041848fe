/**
 * The dispatcher in-process, with the real embedded espeak engine and a
 * real-time FileSink: one stream per utterance, interruption with resume from
 * the cut sentence, stop racing an interruption, expiry, the notification
 * default maxAge and the event order of each outcome. Assertions are on
 * outcomes, order and audio lengths, never on durations.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOTIFICATION_MAX_AGE_MS, type VoxEvent } from '@vox/protocol';
import { Dispatcher, type SpeakInput } from '../../src/dispatch/dispatcher.js';
// The engine runs its worker from the built file (tsx cannot start a .ts worker): build first.
import { EspeakEngine } from '../../dist/engines/espeak.js';
import { singleEngine } from '../../src/server.js';
import { splitSentences } from '../../src/text/sentences.js';
import { FileSink } from '../../src/sinks/file.js';
import { NullSink } from '../../src/sinks/null.js';
import type { Sink } from '../../src/sinks/sink.js';

const BYTES_PER_SECOND = 22050 * 2;

/** Four sentences of clearly different lengths (so a resume point is recognisable). */
const FOUR = [
  'The first sentence of this announcement is fairly long, so that it keeps the speaker busy for a while.',
  'Second, a short one.',
  'The third sentence is of middling length and says nothing at all.',
  'Finally the fourth sentence closes the announcement.',
].join(' ');

let engine: EspeakEngine;
const dirs: string[] = [];

before(async () => {
  engine = new EspeakEngine();
  await engine.start();
});
after(async () => {
  await engine.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Rig {
  d: Dispatcher;
  dir: string;
  events: VoxEvent[];
  /** WAV files in play order, with their utterance id and length in seconds. */
  wavs(): Array<{ file: string; id: string; seconds: number }>;
  close(): Promise<void>;
}

function rig(options: { sink?: Sink; clock?: () => number } = {}): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'vox-dispatcher-'));
  dirs.push(dir);
  const sink = options.sink ?? new FileSink(dir);
  const d = new Dispatcher({
    synthesizer: singleEngine(engine),
    sink,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const events: VoxEvent[] = [];
  d.on('event', (e) => events.push(e));
  return {
    d,
    dir,
    events,
    wavs: () =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.wav'))
        .sort()
        .map((f) => ({
          file: f,
          id: /^\d+-(.+)\.wav$/.exec(f)![1]!,
          seconds: (statSync(join(dir, f)).size - 44) / BYTES_PER_SECOND,
        })),
    close: () => d.close(0),
  };
}

async function speak(r: Rig, input: SpeakInput) {
  const { response, settled } = await r.d.speak(input);
  return { id: response.id, response, settled };
}

async function waitFor<T>(fn: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

/** Seconds of audio espeak makes for each sentence of `text`, synthesized one by one like the dispatcher does. */
async function sentenceSeconds(text: string, rate?: number): Promise<number[]> {
  const out: number[] = [];
  for (const sentence of splitSentences(text)) {
    const s = await engine.synthesize({ text: sentence, ...(rate ? { rate } : {}) });
    let bytes = 0;
    for await (const c of s.chunks) bytes += c.length;
    out.push(bytes / BYTES_PER_SECOND);
  }
  return out;
}

/** Wait until `id`'s audio is reaching the sink (its WAV holds some PCM), not merely until it is the one playing. */
function audible(r: Rig, id: string): Promise<true> {
  return waitFor(
    () => r.d.playing?.id === id && r.wavs().some((w) => w.id === id && w.seconds > 0.05),
    `${id} to be heard`,
  );
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** espeak's length for a sentence varies by a few ms with what it said before; sentences last ≥ 0.5 s. */
const near = (actual: number, expected: number, tolerance = 0.1) => Math.abs(actual - expected) <= tolerance;
const typesOf = (events: VoxEvent[], id: string) => events.filter((e) => e.id === id).map((e) => e.type);

describe('one stream per utterance', () => {
  test('four sentences become one WAV as long as the four syntheses together', async () => {
    const r = rig();
    try {
      const parts = await sentenceSeconds(FOUR, 400);
      const m = await speak(r, { text: FOUR, rate: 400 });
      assert.equal((await m.settled).status, 'played');
      const wavs = r.wavs();
      assert.equal(wavs.length, 1);
      assert.ok(near(wavs[0]!.seconds, sum(parts)), `WAV ${wavs[0]!.seconds}s vs sentences ${sum(parts)}s`);
      assert.deepEqual(typesOf(r.events, m.id), ['queued', 'started', 'finished']);
    } finally {
      await r.close();
    }
  });

  test('a message arriving during the first sentence waits for the whole first message', async () => {
    const r = rig();
    try {
      const parts = await sentenceSeconds(FOUR, 400);
      const m1 = await speak(r, { text: FOUR, rate: 400 });
      await audible(r, m1.id);
      const m2 = await speak(r, { text: 'The second message.', rate: 400 });
      assert.equal(r.d.playing?.current, 0, 'still in the first sentence');
      assert.equal((await m1.settled).status, 'played');
      assert.equal((await m2.settled).status, 'played');
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [m1.id, m2.id],
      );
      assert.ok(near(r.wavs()[0]!.seconds, sum(parts)), `first WAV ${r.wavs()[0]!.seconds}s vs ${sum(parts)}s`);
    } finally {
      await r.close();
    }
  });
});

describe('interruption', () => {
  test('important interrupts a message, which resumes from the sentence that was cut and ends played', async () => {
    const r = rig();
    try {
      const parts = await sentenceSeconds(FOUR);
      const m = await speak(r, { text: FOUR, session: 'a' });
      // Interrupt inside the third sentence (index 2).
      await waitFor(() => r.d.playing?.id === m.id && r.d.playing.current === 2, 'the third sentence');
      const i = await speak(r, { text: 'Urgent.', priority: 'important', session: 'b' });
      assert.equal((await i.settled).status, 'played');
      const done = await m.settled;
      assert.equal(done.status, 'played');
      const wavs = r.wavs();
      assert.deepEqual(
        wavs.map((w) => w.id),
        [m.id, i.id, m.id],
      );
      // The first part holds sentences 1-2 and part of 3; the resumed part is sentences 3-4 whole.
      assert.ok(
        wavs[0]!.seconds > parts[0]! + parts[1]! - 0.05 && wavs[0]!.seconds < parts[0]! + parts[1]! + parts[2]!,
        `cut part ${wavs[0]!.seconds}s`,
      );
      assert.ok(
        near(wavs[2]!.seconds, parts[2]! + parts[3]!),
        `resumed part ${wavs[2]!.seconds}s vs ${parts[2]! + parts[3]!}s`,
      );
      assert.deepEqual(typesOf(r.events, m.id), ['queued', 'started', 'interrupted', 'started', 'finished']);
      const resumed = r.events.filter((e) => e.id === m.id && e.type === 'started')[1]!;
      assert.match(resumed.reason ?? '', /resumed from sentence 3 of 4/);
      const h = r.d.history().find((e) => e.id === m.id)!;
      assert.equal(h.outcome, 'played');
    } finally {
      await r.close();
    }
  });

  test('an interrupted text resumes; an interrupted notification does not', async () => {
    const r = rig();
    try {
      const t = await speak(r, { text: FOUR, priority: 'text', session: 'a', rate: 300 });
      await audible(r, t.id);
      const i1 = await speak(r, { text: 'Urgent one.', priority: 'important', rate: 300 });
      assert.equal((await t.settled).status, 'played');
      assert.equal((await i1.settled).status, 'played');
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [t.id, i1.id, t.id],
      );

      // Another text than the first: the same one would be deduped.
      const n = await speak(r, { text: `${FOUR} Once more.`, priority: 'notification', rate: 300 });
      await audible(r, n.id);
      const i2 = await speak(r, { text: 'Urgent two.', priority: 'important', rate: 300 });
      const nDone = await n.settled;
      assert.equal(nDone.status, 'interrupted');
      assert.equal((await i2.settled).status, 'played');
      assert.deepEqual(
        r
          .wavs()
          .map((w) => w.id)
          .slice(3),
        [n.id, i2.id],
      );
      assert.deepEqual(typesOf(r.events, n.id), ['queued', 'started', 'interrupted']);
    } finally {
      await r.close();
    }
  });

  test('an interrupted text is replaced, not resumed, when a newer text of its session is queued', async () => {
    const r = rig();
    try {
      const t1 = await speak(r, { text: FOUR, priority: 'text', session: 'a', rate: 300 });
      await audible(r, t1.id);
      const t2 = await speak(r, { text: 'Newer text from a.', priority: 'text', session: 'a', rate: 300 });
      const other = await speak(r, { text: 'Text from b.', priority: 'text', session: 'b', rate: 300 });
      const i = await speak(r, { text: 'Urgent.', priority: 'important', rate: 300 });
      const r1 = await t1.settled;
      assert.equal(r1.status, 'replaced');
      for (const x of [i, t2, other]) assert.equal((await x.settled).status, 'played');
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [t1.id, i.id, t2.id, other.id],
      );
    } finally {
      await r.close();
    }
  });

  test('a message interrupts a playing text (which ends interrupted) and cancels queued text', async () => {
    const r = rig();
    try {
      const t1 = await speak(r, { text: FOUR, priority: 'text', session: 'a', rate: 300 });
      await audible(r, t1.id);
      const t2 = await speak(r, { text: 'Queued text.', priority: 'text', session: 'b' });
      const m = await speak(r, { text: 'A message.', rate: 300 });
      assert.equal((await t1.settled).status, 'interrupted');
      assert.equal((await t2.settled).status, 'dropped');
      assert.equal((await m.settled).status, 'played');
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [t1.id, m.id],
      );
      assert.ok(r.wavs()[0]!.seconds < sum(await sentenceSeconds(FOUR, 300)) / 2, 'the text was cut');
    } finally {
      await r.close();
    }
  });
});

describe('stop', () => {
  test('a stop racing an interruption wins: the paused message does not resume', async () => {
    const r = rig();
    try {
      const m = await speak(r, { text: FOUR, rate: 300 });
      await audible(r, m.id);
      // chime() admits as soon as the sink check resolves, so the stop below lands before
      // the player has requeued the message paused for the important chime.
      const i = await r.d.chime('attention', { priority: 'important' });
      const stopped = await r.d.stop('all');
      assert.deepEqual(stopped.sort(), [i.response.id, m.id].sort());
      assert.equal((await m.settled).status, 'stopped');
      assert.equal((await i.settled).status, 'stopped');
      await r.d.idle();
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [m.id],
      );
      assert.equal(r.d.queueLength, 0);
    } finally {
      await r.close();
    }
  });

  test('stop current during the pause cuts what is heard, not the paused one', async () => {
    const r = rig();
    try {
      const m = await speak(r, { text: FOUR, rate: 300 });
      await audible(r, m.id);
      const i = await r.d.chime('attention', { priority: 'important' });
      assert.deepEqual(await r.d.stop('current'), [m.id]);
      assert.equal((await m.settled).status, 'stopped');
      assert.equal((await i.settled).status, 'played', 'the important chime still plays');
      await r.d.idle();
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [m.id, i.response.id],
      );
    } finally {
      await r.close();
    }
  });

  test('stopping before any audio reached the sink leaves no empty WAV behind', async () => {
    const r = rig();
    try {
      const m = await speak(r, { text: FOUR });
      // Same tick as acceptance: the player has not handed anything to the sink yet.
      await r.d.stop('id', { id: m.id });
      assert.equal((await m.settled).status, 'stopped');
      await r.d.idle();
      for (const w of r.wavs()) assert.ok(w.seconds > 0, `${w.file} is empty`);
    } finally {
      await r.close();
    }
  });

  test('each outcome of stop is reported as an interrupted event with the scope', async () => {
    const r = rig();
    try {
      const m = await speak(r, { text: FOUR, session: 'a' });
      await audible(r, m.id);
      const q = await speak(r, { text: 'Queued behind.', session: 'b' });
      assert.deepEqual(await r.d.stop('session', { session: 'b' }), [q.id]);
      assert.equal((await q.settled).status, 'stopped');
      assert.equal(r.d.playing?.id, m.id, 'session b stopped; session a plays on');
      assert.deepEqual(await r.d.stop('session', { session: 'a' }), [m.id]);
      assert.equal((await m.settled).status, 'stopped');
      assert.equal(r.events.find((e) => e.id === q.id && e.type === 'interrupted')?.reason, 'stopped (session)');
    } finally {
      await r.close();
    }
  });
});

describe('expiry', () => {
  test('maxAgeMs behind a long utterance expires and never plays', async () => {
    const r = rig();
    try {
      const m = await speak(r, { text: FOUR });
      await audible(r, m.id);
      const x = await speak(r, { text: 'Too late.', maxAgeMs: 200 });
      const res = await x.settled;
      assert.equal(res.status, 'expired');
      assert.deepEqual(typesOf(r.events, x.id), ['queued', 'expired']);
      await r.d.stop('all');
      await r.d.idle();
      assert.ok(!r.wavs().some((w) => w.id === x.id));
    } finally {
      await r.close();
    }
  });

  test(`a notification carries a default maxAge of ${NOTIFICATION_MAX_AGE_MS} ms`, async () => {
    // A notification only enters an idle daemon, so it starts at once; to see the
    // default, the injected clock jumps past it between acceptance and start.
    let jump = 0;
    const r = rig({ sink: new NullSink(), clock: () => 1_000_000 + jump });
    try {
      r.d.on('event', (e) => {
        if (e.type === 'queued') jump = NOTIFICATION_MAX_AGE_MS + 1;
      });
      const late = await speak(r, { text: 'Idle ping.', priority: 'notification' });
      assert.equal((await late.settled).status, 'expired');
      jump = 0;
      const kept = await speak(r, {
        text: 'Idle ping with its own limit.',
        priority: 'notification',
        maxAgeMs: 10 * NOTIFICATION_MAX_AGE_MS,
      });
      assert.equal((await kept.settled).status, 'played');
      jump = 0;
      const message = await speak(r, { text: 'A message has no default limit.' });
      assert.equal((await message.settled).status, 'played');
    } finally {
      await r.close();
    }
  });
});

describe('chimes', () => {
  test('a chime is one WAV; the same signal within 5 s is deduped, another signal plays', async () => {
    let now = 1_000_000;
    const r = rig({ clock: () => now });
    try {
      const a = await r.d.chime('done');
      assert.equal((await a.settled).status, 'played');
      now += 4_000;
      const b = await r.d.chime('done');
      assert.equal(b.response.status, 'deduped');
      assert.equal(b.response.originalId, a.response.id);
      const c = await r.d.chime('error');
      assert.equal((await c.settled).status, 'played');
      now += 1_001;
      const again = await r.d.chime('done');
      assert.equal((await again.settled).status, 'played');
      assert.deepEqual(
        r.wavs().map((w) => w.id),
        [a.response.id, c.response.id, again.response.id],
      );
      assert.deepEqual(typesOf(r.events, b.response.id), ['deduped']);
      assert.equal(r.events.find((e) => e.id === b.response.id)?.originalId, a.response.id);
      assert.equal(r.d.history().find((h) => h.id === a.response.id)?.kind, 'chime');
    } finally {
      await r.close();
    }
  });
});

describe('first audio', () => {
  test('the history records firstAudioMs for a played utterance', async () => {
    const r = rig({ sink: new NullSink() });
    try {
      const long = Array.from(
        { length: 12 },
        (_, k) => `Sentence number ${k + 1} of a long text that goes on for a while.`,
      ).join(' ');
      const m = await speak(r, { text: long });
      assert.equal((await m.settled).status, 'played');
      const h = r.d.history().find((e) => e.id === m.id)!;
      assert.equal(typeof h.firstAudioMs, 'number');
      assert.ok(h.firstAudioMs! >= 0);
    } finally {
      await r.close();
    }
  });
});

describe('hold (a listen holds the player)', () => {
  test('queued speech waits for the release, in priority order; an important one waits no longer than the limit', async () => {
    const r = rig({ sink: new NullSink() });
    try {
      const hold = r.d.hold({ limitMs: 60_000, reason: 'a test listen' });
      await hold.ready;
      const a = await speak(r, { text: 'Held message.', priority: 'message' });
      const b = await speak(r, { text: 'Held important.', priority: 'important' });
      // Nothing starts while held.
      await new Promise((res) => setTimeout(res, 200));
      assert.equal(r.events.filter((e) => e.type === 'started').length, 0);
      assert.equal(r.d.queueLength, 2);
      hold.release();
      assert.equal((await b.settled).status, 'played');
      assert.equal((await a.settled).status, 'played');
      assert.deepEqual(
        r.events.filter((e) => e.type === 'started').map((e) => e.id),
        [b.id, a.id],
      );

      const limited = r.d.hold({ limitMs: 300, reason: 'a test listen' });
      await limited.ready;
      const c = await speak(r, { text: 'Important, not held past the limit.', priority: 'important' });
      assert.equal((await c.settled).status, 'played', 'played although the hold was never released');
      limited.release(); // late and harmless
    } finally {
      await r.close();
    }
  });

  test('a hold waits for the utterance playing, or cuts it with interrupt', async () => {
    const r = rig();
    try {
      const a = await speak(r, { text: FOUR });
      await waitFor(() => r.events.some((e) => e.type === 'started' && e.id === a.id), 'a to start');
      const hold = r.d.hold({ limitMs: 60_000, reason: 'a test listen' });
      await hold.ready;
      assert.equal((await a.settled).status, 'played', 'waited for, not cut');
      hold.release();
      const b = await speak(r, { text: `${FOUR} Again.` });
      await waitFor(() => r.events.some((e) => e.type === 'started' && e.id === b.id), 'b to start');
      const cut = r.d.hold({ interrupt: true, limitMs: 60_000, reason: 'a listen (session s)' });
      await cut.ready;
      const settled = await b.settled;
      assert.equal(settled.status, 'interrupted');
      assert.match(settled.reason!, /cut by a listen \(session s\)/);
      cut.release();
    } finally {
      await r.close();
    }
  });
});
