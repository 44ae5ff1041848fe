/**
 * TextPreparer: long texts are prepared in a worker thread, in order, with the
 * same result as on the calling thread. The worker is the built one (dist/),
 * as voxd runs it; under tsx there is no built worker script.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { INLINE_CHARS, prepareText, TextPreparer } from '../../dist/text/preparer.js';
import { TextPreparer as UnthreadedPreparer } from '../../src/text/preparer.js';
import { buildServer, singleEngine } from '../../src/server.js';
import { NullSink } from '../../src/sinks/null.js';
import { SineEngine } from '../fixtures/sine-engine.js';

const TOKEN = 'p'.repeat(43);

/** A text at the inline limit, of a shape that costs cleanup the most per character. */
const atLimit = (i: number) => `Mr. **x** [a](b) ${i}! `.repeat(200).slice(0, INLINE_CHARS);

/** How many of `promises` have settled when the event loop next reaches its check phase. */
async function settledByNextTurn(promises: Array<Promise<unknown>>): Promise<number> {
  let settled = 0;
  for (const p of promises)
    void p.then(
      () => settled++,
      () => settled++,
    );
  return new Promise((resolve) => setImmediate(() => resolve(settled)));
}

const long = (i: number) =>
  `Request ${i}: ` + 'The build finished and **every** test passed, see `src/a/b/c.ts:12`. '.repeat(60);

async function waitUntil(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ok(), 'the idle worker did not end within 5 s');
}

describe('TextPreparer', () => {
  it('prepares long texts off the event loop with the same result as inline', async (t) => {
    const p = new TextPreparer();
    t.after(() => p.close());
    assert.equal(p.threaded, true);
    const text = long(1);
    assert.ok(text.length > INLINE_CHARS);
    const options = { keepTags: false, maxChars: 20_000 };
    assert.deepEqual(await p.prepare(text, options), prepareText(text, options));
  });

  it('answers concurrent texts each with its own result', async (t) => {
    const p = new TextPreparer();
    t.after(() => p.close());
    const texts = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `Short ${i}.` : long(i)));
    const results = await Promise.all(texts.map((x) => p.prepare(x, { keepTags: false, maxChars: 20_000 })));
    results.forEach((r, i) =>
      assert.ok(r.text.startsWith(i % 3 === 0 ? `Short ${i}.` : `Request ${i}:`), r.text.slice(0, 40)),
    );
    assert.ok(results.every((r) => r.sentences.length > 0));
  });

  // Before: every text at or under INLINE_CHARS was prepared on the calling thread at once,
  // so 50 of them settled within the turn that received them (200 kept /v1/health waiting 2.1 s).
  it('a burst of texts at the inline limit leaves the turn that received it: past the budget they go to the worker', async (t) => {
    const p = new TextPreparer({ inlineBudgetMs: 1 });
    t.after(() => p.close());
    const texts = Array.from({ length: 50 }, (_, i) => atLimit(i));
    assert.ok(texts.every((x) => x.length === INLINE_CHARS));
    const options = { keepTags: false, maxChars: 20_000 };
    const burst = texts.map((x) => p.prepare(x, options));
    const settled = await settledByNextTurn(burst);
    assert.ok(settled < texts.length, `${settled} of ${texts.length} settled in the turn that received them`);
    assert.equal(p.workerRunning, true, 'the texts past the budget went to the worker');
    assert.deepEqual(
      await Promise.all(burst),
      texts.map((x) => prepareText(x, options)),
      'the same result as inline, each its own',
    );
  });

  it('without a worker script (tsx), a burst past the budget waits for later turns, in order', async (t) => {
    const p = new UnthreadedPreparer({ inlineBudgetMs: 1 });
    t.after(() => p.close());
    assert.equal(p.threaded, false);
    const texts = Array.from({ length: 50 }, (_, i) => atLimit(i));
    const options = { keepTags: false };
    const burst = texts.map((x) => p.prepare(x, options));
    const settled = await settledByNextTurn(burst);
    assert.ok(settled < texts.length, `${settled} of ${texts.length} settled in the turn that received them`);
    assert.deepEqual(
      await Promise.all(burst),
      texts.map((x) => prepareText(x, options)),
    );
  });

  it('the worker starts on the first long text and ends when idle; the next long text starts another', async (t) => {
    const p = new TextPreparer({ workerIdleMs: 50 });
    t.after(() => p.close());
    assert.equal(p.workerRunning, false, 'not started before it is needed');
    await p.prepare('Short.', { keepTags: false });
    assert.equal(p.workerRunning, false, 'a short text does not start it');
    const options = { keepTags: false, maxChars: 20_000 };
    assert.deepEqual(await p.prepare(long(4), options), prepareText(long(4), options));
    assert.equal(p.workerRunning, true);
    await waitUntil(() => !p.workerRunning);
    assert.deepEqual(await p.prepare(long(5), options), prepareText(long(5), options));
  });

  it('reports a bad option as an error, from the worker too', async (t) => {
    const p = new TextPreparer();
    t.after(() => p.close());
    await assert.rejects(p.prepare(long(2), { keepTags: false, maxChars: -1 }), /maxChars must be a positive number/);
    await assert.rejects(p.prepare('short', { keepTags: false, maxChars: -1 }), /maxChars must be a positive number/);
  });

  it('fails what it still holds on close, and refuses work after it; close twice is harmless', async () => {
    const p = new TextPreparer({ inlineChars: 0 });
    // Closed at a shutdown: VOX_ERR_SHUTTING_DOWN (before, a code-less error that answered 500 VOX_ERR_INTERNAL).
    const shuttingDown = { code: 'VOX_ERR_SHUTTING_DOWN', statusCode: 503, message: /voxd is shutting down/ };
    const failed = assert.rejects(p.prepare(long(3).repeat(5), { keepTags: false, maxChars: 20_000 }), shuttingDown);
    await p.close();
    await p.close();
    await failed;
    await assert.rejects(p.prepare('after', { keepTags: false }), shuttingDown);
  });

  it('a request that races the shutdown of text preparation is answered 503 VOX_ERR_SHUTTING_DOWN', async (t) => {
    const p = new TextPreparer();
    await p.close();
    const { app } = await buildServer({
      token: TOKEN,
      synthesizer: singleEngine(new SineEngine()),
      sink: new NullSink(),
      prepare: p.prepare,
    });
    t.after(() => app.close());
    for (const url of ['/v1/speak', '/v1/synthesize']) {
      const r = await app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1' },
        payload: { text: 'Too late.' },
      });
      assert.equal(r.statusCode, 503, url);
      assert.equal(r.json().code, 'VOX_ERR_SHUTTING_DOWN', url);
    }
  });
});
