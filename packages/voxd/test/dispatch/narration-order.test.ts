/**
 * Narration's window of order in-process (the real espeak engine, a null
 * sink): a batch that arrives ahead of a missing one is held, and the missing
 * one, once it comes, is spoken in its place; a missing one that never comes
 * is skipped after the window's time or its number of batches, the log says
 * which, and it is answered `dropped` with why when it comes after all. And a
 * session's own cap of messages narrated at once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Dispatcher } from '../../src/dispatch/dispatcher.js';
// The engine runs its worker from the built file (tsx cannot start a .ts worker): build first.
import { EspeakEngine } from '../../dist/engines/espeak.js';
import { singleEngine } from '../../src/server.js';
import { NullSink } from '../../src/sinks/null.js';

let engine: EspeakEngine;
before(async () => {
  engine = new EspeakEngine();
  await engine.start();
});
after(() => engine.close());

const batch = (session: string, message: string, index: number, delta: string, final = false) => ({
  session,
  message,
  index,
  delta,
  final,
});

function logged() {
  const lines: Array<{ obj: any; msg?: string }> = [];
  const log = {
    info: (obj: object, msg?: string) => void lines.push({ obj, msg }),
    warn: (obj: object, msg?: string) => void lines.push({ obj, msg }),
    error: (obj: object, msg?: string) => void lines.push({ obj, msg }),
    debug: () => {},
  };
  return { lines, log };
}

async function settled(d: Dispatcher, id: string): Promise<{ outcome: string; text: string; reason?: string }> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const e = d.history().find((x) => x.id === id);
      if (e && e.outcome !== 'queued' && e.outcome !== 'playing') {
        clearInterval(poll);
        resolve(e as never);
      }
    }, 10);
  });
}

test('a missing batch that never comes is skipped once the window has waited its time; the log says which', async () => {
  const { lines, log } = logged();
  const d = new Dispatcher({
    synthesizer: singleEngine(engine),
    sink: new NullSink(),
    log: log as never,
    narration: { holdMs: 200 },
  });
  try {
    const r = await d.narrate(batch('api#1', 'm1', 1, 'Batch one is here.\n'));
    assert.equal(r.status, 'queued');
    const end = await d.narrate(batch('api#1', 'm1', 2, 'Batch two ends it.\n', true));
    assert.equal(end.status, 'queued');
    const h = await settled(d, r.id!);
    assert.equal(h.outcome, 'played');
    assert.equal(h.text, 'Batch one is here. Batch two ends it.');
    const skip = lines.find((l) => /skipped/.test(l.msg ?? ''));
    assert.ok(skip, JSON.stringify(lines.map((l) => l.msg)));
    assert.deepEqual(skip.obj.skipped, [[0, 0]]);
    const late = await d.narrate(batch('api#1', 'm1', 0, 'Batch zero is too late.\n'));
    assert.equal(late.status, 'dropped');
    assert.match(late.reason ?? '', /skipped/);
  } finally {
    await d.close(0);
  }
});

test('past the number of batches the window holds, the missing ones are skipped at once, in order', async () => {
  const { lines, log } = logged();
  const d = new Dispatcher({
    synthesizer: singleEngine(engine),
    sink: new NullSink(),
    log: log as never,
    narration: { holdBatches: 2, holdMs: 600_000 },
  });
  try {
    const a = await d.narrate(batch('api#2', 'm1', 0, 'Zero.\n'));
    assert.equal(a.sentences, 1);
    assert.equal((await d.narrate(batch('api#2', 'm1', 3, 'Three.\n'))).sentences, 0);
    assert.equal((await d.narrate(batch('api#2', 'm1', 2, 'Two.\n'))).sentences, 0);
    // A re-send of a held batch changes nothing.
    assert.equal((await d.narrate(batch('api#2', 'm1', 3, 'Three.\n'))).status, 'repeated');
    // A third one held is one too many: 1 is skipped, 2, 3 and 4 are taken.
    const four = await d.narrate(batch('api#2', 'm1', 4, 'Four.\n', true));
    assert.equal(four.sentences, 3);
    const h = await settled(d, a.id!);
    assert.equal(h.text, 'Zero. Two. Three. Four.');
    assert.deepEqual(lines.find((l) => /skipped/.test(l.msg ?? ''))?.obj.skipped, [[1, 1]]);
    const late = await d.narrate(batch('api#2', 'm1', 1, 'One.\n'));
    assert.equal(late.status, 'dropped');
  } finally {
    await d.close(0);
  }
});

test('a session past its own cap is refused with a clear error; another session is taken', async () => {
  const d = new Dispatcher({
    synthesizer: singleEngine(engine),
    sink: new NullSink(),
    narration: { maxPerSession: 2 },
  });
  try {
    for (let i = 0; i < 2; i++)
      assert.equal((await d.narrate(batch('hog#1', `m${i}`, 0, 'Not yet a whole sentence'))).status, 'queued');
    await assert.rejects(
      d.narrate(batch('hog#1', 'm9', 0, 'One more.\n')),
      (err: Error & { code?: string; statusCode?: number }) =>
        err.code === 'VOX_ERR_NARRATION_SESSION_FULL' && err.statusCode === 429 && /hog#1/.test(err.message),
    );
    assert.equal((await d.narrate(batch('calm#2', 'm0', 0, 'Still heard.\n', true))).status, 'queued');
    // Once one of its messages ends, the session is taken again.
    const end = await d.narrate(batch('hog#1', 'm0', 1, ' and it ends.\n', true));
    assert.equal(end.status, 'queued');
    assert.equal((await settled(d, end.id!)).outcome, 'played');
    const again = (await d.narrate(batch('hog#1', 'm10', 0, 'A new message.\n', true))).status;
    assert.equal(again, 'queued');
  } finally {
    await d.close(0);
  }
});
