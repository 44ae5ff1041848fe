/**
 * LogStream alone, in front of a file stream that we hold up: what waits
 * stays under the limit, lines past it are dropped and counted, and one
 * "N lines dropped" line takes their place once the stream moves again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LogStream } from '../../src/log/log-stream.js';

/** A Writable whose writes complete only when release() is called: a blocked disk. */
class HeldStream extends Writable {
  written: string[] = [];
  private held: Array<() => void> = [];
  blocked = true;
  constructor() {
    super({ decodeStrings: false });
  }
  override _write(chunk: string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    const finish = () => {
      this.written.push(String(chunk));
      cb();
    };
    if (this.blocked) this.held.push(finish);
    else finish();
  }
  release(): void {
    this.blocked = false;
    for (const f of this.held.splice(0)) f();
  }
  lines(): string[] {
    return this.written.join('').split('\n').filter(Boolean);
  }
}

const line = (i: number) => `${JSON.stringify({ level: 30, time: 1, pid: 7, i, msg: 'speak' })}\n`;
/** Lets the stream's callbacks and the LogStream's next chunk run. */
const settle = () => new Promise((r) => setImmediate(r));

test('a blocked stream holds at most the limit in memory; the lines past it are dropped and one line says how many', async () => {
  const inner = new HeldStream();
  let clock = 1000;
  const log = new LogStream(inner, { limit: 4096, base: { pid: 7 }, now: () => clock++ });
  const total = 10_000;
  let maxBuffered = 0;
  for (let i = 0; i < total; i++) {
    log.write(line(i));
    maxBuffered = Math.max(maxBuffered, log.buffered);
  }
  // Bounded: what waits (plus the one chunk handed over) never passes the limit by more than a line.
  assert.ok(maxBuffered <= 4096 + line(0).length, `buffered ${maxBuffered} bytes`);
  assert.ok(inner.writableLength <= 4096 + line(0).length, `the file stream holds ${inner.writableLength} bytes`);
  assert.ok(log.droppedTotal > total / 2, `dropped ${log.droppedTotal}`);
  assert.equal(inner.written.length, 0);

  inner.release();
  await settle();
  await new Promise<void>((r) => log.flush(() => r()));
  const out = inner.lines().map((l) => JSON.parse(l));
  const kept = out.filter((o) => o.msg === 'speak');
  const dropped = out.filter((o) => o.dropped !== undefined);
  assert.equal(dropped.length, 1, 'one "dropped" line for one spell');
  assert.equal(dropped[0].dropped, log.droppedTotal);
  assert.equal(kept.length + dropped[0].dropped, total, 'every line is either written or counted');
  assert.equal(dropped[0].level, 40);
  assert.equal(dropped[0].pid, 7);
  assert.match(dropped[0].msg, new RegExp(`^${log.droppedTotal} log lines dropped`));
  assert.ok(dropped[0].droppedFrom <= dropped[0].droppedTo);
  // In place: after the last line kept before the drops, before nothing logged earlier.
  const at = out.indexOf(dropped[0]);
  assert.deepEqual(
    out.slice(0, at).map((o) => o.i),
    kept.slice(0, at).map((o) => o.i),
  );
  assert.equal(out[at - 1].i, kept.length - 1, 'the drops came after every kept line, in this run');
});

test('lines logged after the stream caught up are written again, after the "dropped" line', async () => {
  const inner = new HeldStream();
  const log = new LogStream(inner, { limit: 1024 });
  for (let i = 0; i < 100; i++) log.write(line(i));
  const dropped = log.droppedTotal;
  assert.ok(dropped > 0);
  inner.release();
  await settle();
  log.write(line(1000));
  await new Promise<void>((r) => log.flush(() => r()));
  const out = inner.lines().map((l) => JSON.parse(l));
  assert.equal(out.filter((o) => o.dropped !== undefined).length, 1);
  assert.equal(out.at(-1).i, 1000);
  assert.equal(log.droppedTotal, dropped, 'nothing dropped once the stream keeps up');
});

test('with a stream that keeps up, nothing is dropped and the lines are written in order, many to a chunk', async () => {
  const inner = new HeldStream();
  inner.blocked = false;
  let chunks = 0;
  const write = inner.write.bind(inner);
  inner.write = ((chunk: any, cb: any) => {
    chunks += 1;
    return write(chunk, cb);
  }) as typeof inner.write;
  const log = new LogStream(inner, { limit: 1024 * 1024 });
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 100; i++) log.write(line(round * 100 + i));
    await settle();
  }
  await new Promise<void>((r) => log.flush(() => r()));
  const out = inner.lines().map((l) => JSON.parse(l));
  assert.deepEqual(
    out.map((o) => o.i),
    Array.from({ length: 1000 }, (_, i) => i),
  );
  assert.equal(log.droppedTotal, 0);
  assert.ok(chunks < 100, `${chunks} writes for 1000 lines`);
});

test('a failing stream (a full disk) counts the lost lines and never throws', async () => {
  const inner = new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    },
  });
  const log = new LogStream(inner, { limit: 1024 });
  for (let i = 0; i < 50; i++) assert.doesNotThrow(() => log.write(line(i)));
  await new Promise<void>((r) => log.flush(() => r()));
  assert.equal(log.droppedTotal, 50);
  assert.match(String(log.lastError?.message), /no space left|destroyed|write after/);
});

test('flush with nothing waiting calls back', async () => {
  const inner = new HeldStream();
  const log = new LogStream(inner);
  let calledBack = false;
  const done = new Promise<Error | null | undefined>((r) =>
    log.flush((err) => {
      calledBack = true;
      r(err);
    }),
  );
  // Outside the executor: a throw there after r() would be swallowed.
  assert.equal(calledBack, false, 'flush calls back on a later tick, not inside flush()');
  assert.equal(await done, undefined, 'with no error');
  assert.equal(log.buffered, 0);
  assert.deepEqual(inner.written, [], 'the held stream was not written to: the callback did not wait for it');
});
