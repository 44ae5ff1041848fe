/**
 * Narration's bounds in-process (the real espeak engine, a null sink): a
 * message whose next batch never comes ends `expired` instead of waiting
 * forever, later batches of it say why, and the number of messages narrated
 * at once is capped with a clear refusal.
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

test('a message whose next batch never comes ends expired, and says so to a late batch', async () => {
  const d = new Dispatcher({ synthesizer: singleEngine(engine), sink: new NullSink(), narration: { idleMs: 300 } });
  try {
    const r = await d.narrate(batch('api#1', 'm1', 0, 'Half of a first sentence'));
    assert.equal(r.status, 'queued');
    const h = await new Promise<{ outcome: string; reason?: string }>((resolve) => {
      const poll = setInterval(() => {
        const e = d.history().find((x) => x.id === r.id);
        if (e && e.outcome !== 'queued' && e.outcome !== 'playing') {
          clearInterval(poll);
          resolve(e);
        }
      }, 20);
    });
    assert.equal(h.outcome, 'expired');
    assert.match(h.reason ?? '', /no batch for 0 s: the message ended unfinished/);
    const late = await d.narrate(batch('api#1', 'm1', 1, ' and its end.\n', true));
    assert.equal(late.status, 'dropped');
    assert.match(late.reason ?? '', /ended unfinished/);
  } finally {
    await d.close(0);
  }
});

test('past the cap of messages narrated at once, a new one is refused with a clear error; the ones taken go on', async () => {
  const d = new Dispatcher({ synthesizer: singleEngine(engine), sink: new NullSink(), narration: { maxLive: 3 } });
  try {
    for (let i = 0; i < 3; i++)
      assert.equal((await d.narrate(batch(`s#${i}`, 'm', 0, 'Not yet a whole sentence'))).status, 'queued');
    await assert.rejects(
      d.narrate(batch('s#9', 'm', 0, 'One more.\n')),
      (err: Error & { code?: string }) => err.code === 'VOX_ERR_QUEUE_FULL' && /narrated messages/.test(err.message),
    );
    const more = await d.narrate(batch('s#0', 'm', 1, ' and now it ends.\n', true));
    assert.deepEqual({ status: more.status, sentences: more.sentences }, { status: 'queued', sentences: 1 });
  } finally {
    await d.close(0);
  }
});
