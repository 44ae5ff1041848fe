/**
 * The dispatcher's side of the journal, in-process with a real journal file:
 * what restore() makes of it (order, classes, the priority rules not applied
 * again, a started one first in its class and at its sentence, expiry from
 * the original accept), re-sends joined by request id, duplicates of what
 * played before the restart, and the hand-over at close().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher, handedOver } from '../../src/dispatch/dispatcher.js';
import type { AudioFormat } from '../../src/audio/pcm.js';
import { Journal, type JournalEntry } from '../../src/dispatch/journal.js';
import { singleEngine } from '../../src/server.js';
import type { PlayResult, Sink, SinkState } from '../../src/sinks/sink.js';
import { SineEngine } from '../fixtures/sine-engine.js';

/** Holds every play until it is cut (so the queue stays where the test put it); records what it was given. */
class HoldSink implements Sink {
  readonly name = 'hold';
  plays: string[] = [];
  state(): SinkState {
    return { name: this.name, ok: true };
  }
  async check(): Promise<SinkState> {
    return this.state();
  }
  async play(
    _f: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    meta: { id: string },
  ): Promise<PlayResult> {
    this.plays.push(meta.id);
    let bytes = 0;
    for await (const c of chunks) {
      bytes += c.length;
      if (signal.aborted) break;
    }
    if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    return { aborted: true, bytes };
  }
  async close(): Promise<void> {}
}

function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'vox-replay-'));
  test.after?.(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

const NOW = Date.now();
function entry(id: string, extra: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id,
    kind: 'speech',
    priority: 'message',
    text: `Say ${id}. Then more of ${id}.`,
    sentences: [`Say ${id}.`, `Then more of ${id}.`],
    dedupKey: `say ${id}`,
    windowMs: 5000,
    acceptedAt: NOW - 1000,
    ...extra,
  };
}

async function journalWith(
  path: string,
  entries: JournalEntry[],
  progress: Array<[string, number]> = [],
  settled: Array<Parameters<Journal['settle']>[0]> = [],
): Promise<void> {
  const j = Journal.open(path);
  for (const e of entries) await j.accept(e);
  for (const [id, n] of progress) j.progress(id, n);
  for (const s of settled) j.settle(s);
  await j.close();
}

function rig(path: string) {
  const journal = Journal.open(path);
  const sink = new HoldSink();
  const engine = new SineEngine();
  const d = new Dispatcher({ synthesizer: singleEngine(engine), sink, journal });
  return { d, sink, engine, journal };
}

test('restore: each class in its accept order, a started one first in its class and at its sentence; the rules are not applied again', async () => {
  const path = join(home(), 'journal.jsonl');
  await journalWith(
    path,
    [
      entry('t1', { priority: 'text', session: 'a' }),
      entry('m1'),
      // A notification that was playing when voxd died: admitted again, it would be dropped for the others.
      entry('n1', { priority: 'notification' }),
      entry('i1', { priority: 'important', session: 'b' }),
      entry('m2', { session: 'c' }),
      entry('t2', { priority: 'text', session: 'a' }),
    ],
    [['m2', 1]],
  );
  const { d, sink, engine, journal } = rig(path);
  const counts = d.restore(journal.replay);
  assert.deepEqual(counts, { replayed: 6, resumed: 1, expired: 0 });
  // i1 plays first (important); behind it, m2 (it had started) before m1, then both texts of session a, then n1.
  assert.equal(d.playing?.id, 'i1');
  assert.deepEqual(
    d.queuedPage(0, 10).map((u) => u.id),
    ['m2', 'm1', 't1', 't2', 'n1'],
  );
  assert.equal(d.queuedPage(0, 1)[0]!.session, 'c');
  await until(() => sink.plays.includes('i1'), 'i1 to reach the sink');
  await d.stop('current');
  await new Promise((r) => setImmediate(r));
  assert.equal(d.playing?.id, 'm2');
  // It resumes at its second sentence, not from the start.
  assert.equal(
    engine.requests.at(-1)?.text.startsWith('Then more of m2'),
    true,
    JSON.stringify(engine.requests.map((r) => r.text)),
  );
  assert.deepEqual(sink.plays, ['i1', 'm2']);
  await d.stop('all');
  await d.close();
  await journal.close();
});

test('restore: expiry counts from the original accept; one accepted too long ago is expired too; both are settled in the journal', async () => {
  const path = join(home(), 'journal.jsonl');
  await journalWith(path, [
    entry('late', { expiresAt: NOW - 10 }),
    entry('old', { acceptedAt: NOW - 11 * 60_000 }),
    entry('fine', { expiresAt: NOW + 60_000 }),
  ]);
  const { d, journal } = rig(path);
  assert.deepEqual(d.restore(journal.replay), { replayed: 1, resumed: 0, expired: 2 });
  const h = d.history();
  assert.equal(h.find((e) => e.id === 'late')?.outcome, 'expired');
  assert.match(h.find((e) => e.id === 'late')!.reason!, /maxAgeMs/);
  assert.equal(h.find((e) => e.id === 'old')?.outcome, 'expired');
  assert.match(h.find((e) => e.id === 'old')!.reason!, /too old/);
  assert.equal(d.playing?.id, 'fine');
  await d.stop('all');
  await d.close();
  await journal.close();
  const again = Journal.open(path);
  assert.deepEqual(
    again.replay.pending.map((p) => p.id),
    [],
    'every one is settled now',
  );
  assert.deepEqual(again.replay.settled.map((s) => [s.id, s.outcome]).sort(), [
    ['fine', 'stopped'],
    ['late', 'expired'],
    ['old', 'expired'],
  ]);
  await again.close();
});

test('a re-send with the request id is joined to the replayed request; one that settled before the restart gets its outcome; a played one still suppresses its duplicates', async () => {
  const path = join(home(), 'journal.jsonl');
  await journalWith(
    path,
    [
      entry('live', {
        requestId: 'r-live',
        text: 'Still to come.',
        sentences: ['Still to come.'],
        dedupKey: 'still to come',
      }),
      entry('done', { requestId: 'r-done' }),
    ],
    [],
    [{ id: 'done', requestId: 'r-done', dedupKey: 'say done', windowMs: 60_000, outcome: 'played' }],
  );
  const { d, journal } = rig(path);
  d.restore(journal.replay);
  const joined = await d.speak({ text: 'Still to come.', requestId: 'r-live' });
  assert.deepEqual([joined.response.id, joined.response.status], ['live', 'queued']);
  const told = await d.speak({ text: 'Say done', requestId: 'r-done' });
  assert.deepEqual([told.response.id, told.response.status], ['done', 'played']);
  // Without the id, the text that played before the restart is a duplicate within its window.
  const dup = await d.speak({ text: 'Say done.' });
  assert.equal(dup.response.status, 'deduped');
  assert.equal(dup.response.originalId, 'done');
  // The same id with another text is another request.
  const other = await d.speak({ text: 'Something else entirely.', requestId: 'r-live' });
  assert.notEqual(other.response.id, 'live');
  assert.equal(d.counters.accepted, 2, 'one replayed, one new');
  await d.stop('all');
  await d.close();
  await journal.close();
});

test('close() with a journal hands what is queued and playing over to the next voxd; waiting callers are told so', async () => {
  const path = join(home(), 'journal.jsonl');
  const { d, journal } = rig(path);
  d.restore(journal.replay);
  const first = await d.speak({ text: 'Playing when voxd stops. And a second sentence.' });
  const second = await d.speak({ text: 'Queued when voxd stops.', priority: 'text', session: 's' });
  await close(d, 50);
  assert.equal(handedOver(await first.settled), true);
  assert.equal(handedOver(await second.settled), true);
  await journal.close();
  const next = Journal.open(path);
  assert.deepEqual(
    next.replay.pending.map((p) => [p.id, p.priority, p.session]),
    [
      [first.response.id, 'message', undefined],
      [second.response.id, 'text', 's'],
    ],
  );
  assert.notEqual(
    next.replay.pending[0]!.sentence,
    undefined,
    'the one playing had started: it resumes at its sentence',
  );
  assert.equal(next.replay.pending[1]!.sentence, undefined);
  await next.close();
});

async function close(d: Dispatcher, graceMs: number): Promise<void> {
  await d.close(graceMs);
}

/** A bounded wait for a condition. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
