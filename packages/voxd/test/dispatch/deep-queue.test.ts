/**
 * A queue of 10,000 behind the real app on a real socket: status stays a
 * bounded page, one stop settles every request as stopped (none lost, none
 * played), the playing one is cut, and voxd speaks the next request. Work per
 * item is O(1); how fast the stop is, is measured by bench/deep-queue.mjs.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';

import { buildServer, singleEngine } from '../../src/server.js';
import type { AudioFormat } from '../../src/audio/pcm.js';
import type { PlayResult, Sink, SinkState } from '../../src/sinks/sink.js';
import { SineEngine } from '../fixtures/sine-engine.js';

const TOKEN = 'd'.repeat(43);

/**
 * Holds its first utterance until it is stopped, so nothing moves while the test looks; plays the rest at once.
 */
class HoldSink implements Sink {
  readonly name = 'hold';
  plays: Array<{ aborted: boolean }> = [];
  state(): SinkState {
    return { name: this.name, ok: true };
  }
  async check(): Promise<SinkState> {
    return this.state();
  }
  async play(_f: AudioFormat, chunks: AsyncIterable<Buffer>, signal: AbortSignal): Promise<PlayResult> {
    let bytes = 0;
    const hold = this.plays.length === 0;
    for await (const c of chunks) {
      bytes += c.length;
      if (signal.aborted) break;
    }
    // All the audio was taken (about 30 s of it, so the playback watchdog allows that long); now it "plays" until stopped.
    if (hold && !signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    this.plays.push({ aborted: signal.aborted });
    return { aborted: signal.aborted, bytes };
  }
  async close(): Promise<void> {}
}

function api(
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; bytes: number }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { authorization: `Bearer ${TOKEN}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), bytes: Buffer.byteLength(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('a queue of 10,000', () => {
  it('pages status, stops everything in one call with every request accounted for, and keeps speaking', async (t) => {
    const sink = new HoldSink();
    const { app, dispatcher } = await buildServer({
      token: TOKEN,
      synthesizer: singleEngine(new SineEngine()),
      sink,
      maxQueue: 10_000,
    });
    t.after(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;

    const first = await dispatcher.speak({
      text: 'The first announcement, which plays while the rest wait. '.repeat(50),
      priority: 'message',
    });
    const settled: Array<Promise<{ status: string }>> = [first.settled];
    for (let i = 0; i < 9_999; i++) {
      const r = await dispatcher.speak({
        text: `Queued announcement number ${i}`,
        priority: 'message',
        session: `s${i % 8}`,
      });
      assert.equal(r.response.status, 'queued');
      settled.push(r.settled);
    }
    assert.equal(dispatcher.queueLength + (dispatcher.playing ? 1 : 0), 10_000);

    const status = await api(port, 'GET', '/v1/status');
    assert.equal(status.status, 200);
    assert.equal(status.body.queue.length, 9_999);
    assert.equal(status.body.queue.items.length, 20);
    assert.equal(status.body.queue.byPriority.message, 9_999);
    assert.ok(status.bytes < 200_000, `status is ${status.bytes} bytes`);
    const page = await api(port, 'GET', '/v1/status?offset=100&limit=200');
    assert.equal(page.body.queue.items.length, 200);
    assert.equal(page.body.queue.items[0].text, 'Queued announcement number 100');
    assert.equal((await api(port, 'GET', '/v1/status?limit=abc')).status, 400);

    const stop = await api(port, 'POST', '/v1/stop', { scope: 'all' });
    assert.equal(stop.status, 200);
    assert.equal(stop.body.stopped.length, 10_000);
    const outcomes = await Promise.all(settled);
    const counts = outcomes.reduce<Record<string, number>>(
      (m, o) => ({ ...m, [o.status]: (m[o.status] ?? 0) + 1 }),
      {},
    );
    assert.deepEqual(counts, { stopped: 10_000 });

    const after = await dispatcher.speak({ text: 'Speech after the stop.' });
    assert.equal((await after.settled).status, 'played');
    // Two plays: the first announcement, cut, and the one after the stop; nothing that was queued played.
    assert.deepEqual(sink.plays, [{ aborted: true }, { aborted: false }]);
  });
});
