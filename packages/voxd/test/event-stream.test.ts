/**
 * EventStream: numbered events to every subscriber, each with a bounded
 * buffer; a subscriber that falls behind is cut off, and when it reconnects
 * with Last-Event-ID it gets what it missed, or a `gap` event saying how much
 * it lost. The last suite runs it behind the real fastify app on a real
 * socket whose reader has stopped reading.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';

import type { VoxEvent } from '@vox/protocol';

import { EventStream, type EventSink } from '../src/event-stream.js';
import { buildServer, singleEngine } from '../src/server.js';
import { NullSink } from '../src/sinks/null.js';
import { SineEngine } from './fixtures/sine-engine.js';

const event = (i: number): VoxEvent => ({
  type: 'queued',
  id: `id${i}`,
  priority: 'message',
  at: new Date(0).toISOString(),
});

/** A sink that records frames; `stalled` ones never drain, so everything written stays buffered. */
class FakeSink implements EventSink {
  frames: string[] = [];
  ended = false;
  destroyed = false;
  constructor(readonly stalled = false) {}
  get writableLength(): number {
    return this.stalled ? this.frames.reduce((n, f) => n + f.length, 0) : 0;
  }
  write(chunk: string | Uint8Array): boolean {
    this.frames.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return !this.stalled;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  ids(): number[] {
    return this.frames.flatMap((f) => (/^id: (\d+)/.exec(f) ? [Number(/^id: (\d+)/.exec(f)![1])] : []));
  }
}

describe('EventStream', () => {
  it('numbers events and sends each to every subscriber', () => {
    const s = new EventStream();
    const a = new FakeSink();
    const b = new FakeSink();
    s.subscribe(a);
    s.subscribe(b);
    for (let i = 1; i <= 3; i++) s.publish(event(i));
    assert.deepEqual(a.ids(), [1, 2, 3]);
    assert.deepEqual(b.ids(), [1, 2, 3]);
    assert.equal(a.frames[0], ': connected\n\n');
    assert.match(a.frames[1]!, /^id: 1\nevent: queued\ndata: \{"type":"queued","id":"id1"/);
  });

  it('cuts off a subscriber that stops reading, and only that one', () => {
    let drops = 0;
    const s = new EventStream({ maxBufferBytes: 4096, onDrop: () => drops++ });
    const slow = new FakeSink(true);
    const fast = new FakeSink();
    s.subscribe(slow);
    s.subscribe(fast);
    for (let i = 1; i <= 200; i++) s.publish(event(i));
    assert.equal(slow.destroyed, true);
    assert.ok(slow.writableLength <= 4096, `held ${slow.writableLength} bytes`);
    assert.equal(fast.ids().length, 200);
    assert.equal(s.size, 1);
    assert.equal(s.dropped, 1);
    assert.equal(drops, 1);
  });

  it('replays what a reconnecting client missed while the ring still holds it', () => {
    const s = new EventStream({ ringSize: 100 });
    for (let i = 1; i <= 50; i++) s.publish(event(i));
    const back = new FakeSink();
    s.subscribe(back, '42');
    assert.deepEqual(back.ids(), [43, 44, 45, 46, 47, 48, 49, 50]);
    assert.ok(!back.frames.some((f) => f.includes('event: gap')));
  });

  it('tells a reconnecting client how many events it lost when the ring no longer holds them', () => {
    const s = new EventStream({ ringSize: 10 });
    for (let i = 1; i <= 50; i++) s.publish(event(i));
    const back = new FakeSink();
    s.subscribe(back, '5');
    const gap = back.frames.find((f) => f.startsWith('event: gap'));
    assert.ok(gap, 'a gap event');
    const data = JSON.parse(gap!.split('data: ')[1]!);
    assert.deepEqual([data.type, data.missed, data.after, data.resumedAt], ['gap', 35, 5, 41]);
    assert.deepEqual(back.ids(), [41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
  });

  it('ignores a Last-Event-ID that is not one of its numbers', () => {
    const s = new EventStream();
    s.publish(event(1));
    for (const bad of ['abc', '-1', '1.5', '99']) {
      const sink = new FakeSink();
      s.subscribe(sink, bad);
      assert.deepEqual(sink.frames, [': connected\n\n'], bad);
    }
  });

  it('ends every stream on close', () => {
    const s = new EventStream();
    const a = new FakeSink();
    s.subscribe(a);
    s.close();
    s.publish(event(1));
    assert.equal(a.ended, true);
    assert.deepEqual(a.ids(), []);
  });
});

describe('GET /v1/events with clients that stop reading', () => {
  it('cuts off stalled sockets while a reading client gets every event, and the stalled one is told on reconnect', async (t) => {
    const token = 't'.repeat(43);
    const { app, dispatcher, events } = await buildServer({
      token,
      synthesizer: singleEngine(new SineEngine()),
      sink: new NullSink(),
      events: { maxBufferBytes: 64 * 1024, ringSize: 64 },
    });
    t.after(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const open = (headers = ''): Socket => {
      const socket = connect(port, '127.0.0.1');
      socket.write(
        `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n${headers}\r\n`,
      );
      return socket;
    };
    const stalled = Array.from({ length: 5 }, () => {
      const s = open();
      s.pause(); // reads nothing from now on: the kernel buffers fill, then node's
      return s;
    });
    t.after(() => stalled.forEach((s) => s.destroy()));
    let reading = '';
    const reader = open();
    reader.setEncoding('utf8').on('data', (d: string) => (reading += d));
    t.after(() => reader.destroy());
    await new Promise((r) => setTimeout(r, 200));
    const big = 'x'.repeat(180);
    let n = 0;
    // Small bursts, yielding between them so the reading client (in this process) reads while the stalled ones fill up.
    for (let round = 0; round < 20_000 && events.dropped < stalled.length; round++) {
      for (let i = 0; i < 10; i++)
        dispatcher.emit('event', { type: 'queued', id: `e${++n}`, priority: 'message', at: big });
      await new Promise((r) => setImmediate(r));
    }
    // A paused socket only sees its end when it reads again.
    const closed = stalled.map((s) => new Promise<void>((r) => s.once('close', () => r())));
    for (const s of stalled) s.on('error', () => {}).resume();
    await Promise.all(closed);
    assert.equal(
      events.size,
      1,
      `the reading client is still subscribed (${events.dropped} cut off after ${n} events)`,
    );
    assert.equal(events.dropped, stalled.length, 'every stalled client was cut off');
    // The reading client got every event, in order.
    await new Promise<void>((resolve) => {
      const check = () => (reading.includes(`"id":"e${n}"`) ? resolve() : setTimeout(check, 20));
      check();
    });
    const ids = [...reading.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.equal(ids.length, n);
    assert.ok(ids.every((id, i) => id === i + 1));
    // A stalled client that reconnects from where it was is told what it lost.
    let back = '';
    const again = open('Last-Event-ID: 3\r\n');
    t.after(() => again.destroy());
    again.setEncoding('utf8').on('data', (d: string) => (back += d));
    await new Promise<void>((resolve) => {
      const check = () => (back.includes('event: gap') ? resolve() : setTimeout(check, 20));
      check();
    });
    const gap = JSON.parse(/event: gap\ndata: (.*)\n/.exec(back)![1]!);
    assert.equal(gap.missed, n - 64 - 3);
  });

  it('serves many clients with one dispatcher listener (no MaxListenersExceededWarning)', async (t) => {
    const token = 't'.repeat(43);
    const { app, dispatcher } = await buildServer({
      token,
      synthesizer: singleEngine(new SineEngine()),
      sink: new NullSink(),
    });
    t.after(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    t.after(() => process.off('warning', onWarning));
    const listenersBefore = dispatcher.listenerCount('event');
    const sockets = Array.from({ length: 15 }, () => {
      const s = connect(port, '127.0.0.1');
      s.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      return s;
    });
    t.after(() => sockets.forEach((s) => s.destroy()));
    await Promise.all(sockets.map((s) => new Promise((r) => s.once('data', r))));
    await new Promise((r) => setImmediate(r));
    assert.equal(dispatcher.listenerCount('event'), listenersBefore);
    assert.deepEqual(
      warnings.filter((w) => w === 'MaxListenersExceededWarning'),
      [],
    );
  });
});
