import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkChannel } from '../../src/engines/chunk-channel.js';

test('chunks pushed before and after the reader asks arrive in order; null ends the stream and runs done once', async () => {
  const c = new ChunkChannel();
  let done = 0;
  c.push(Buffer.from('a'));
  const read = (async () => {
    const out: string[] = [];
    for await (const b of c.read(() => done++)) out.push(b.toString());
    return out;
  })();
  await new Promise((r) => setImmediate(r));
  c.push(Buffer.from('b'));
  c.push(null);
  c.push(Buffer.from('after the end'));
  assert.deepEqual(await read, ['a', 'b']);
  assert.equal(done, 1);
});

test('an error ends the stream with that error, and done still runs', async () => {
  const c = new ChunkChannel();
  let done = 0;
  c.push(Buffer.from('a'));
  c.push(new Error('engine crashed'));
  const out: string[] = [];
  await assert.rejects(async () => {
    for await (const b of c.read(() => done++)) out.push(b.toString());
  }, /engine crashed/);
  assert.deepEqual(out, ['a']);
  assert.equal(done, 1);
});
