/**
 * The connection limit (connections.ts) behind the real fastify app on real
 * sockets, with a limit of 3: idle connections are shed oldest first so a
 * new client gets in, and only when every connection is busy is the new one
 * answered 503 VOX_ERR_TOO_MANY_CONNECTIONS and closed. fdLimit and
 * connectionCap on their own.
 */
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { connectionCap, fdLimit } from '../src/connections.js';
import { buildServer, singleEngine } from '../src/server.js';
import { NullSink } from '../src/sinks/null.js';
import { SineEngine } from './fixtures/sine-engine.js';

const TOKEN = 't'.repeat(32);
const { app, connections } = await buildServer({
  token: TOKEN,
  synthesizer: singleEngine(new SineEngine()),
  sink: new NullSink(),
  maxConnections: 3,
});
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;
const opened: Socket[] = [];
after(async () => {
  for (const s of opened) s.destroy();
  await app.close();
});

/** A connection; `closed` resolves with what voxd sent before it closed it. */
function open(send?: string): { socket: Socket; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  opened.push(socket);
  let text = '';
  socket.setEncoding('utf8').on('data', (c: string) => (text += c));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  if (send) socket.write(send);
  return { socket, closed };
}

const connected = (s: Socket) =>
  new Promise<void>((r) => (s.readyState === 'open' ? r() : s.once('connect', () => r())));
/** Wait until voxd counts `open` connections, `idle` of them idle (no sleeping on a guess). */
async function counted(open: number, idle: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (connections.size !== open || connections.idle !== idle) {
    if (Date.now() > deadline)
      throw new Error(`voxd counts ${connections.size} open, ${connections.idle} idle; expected ${open}, ${idle}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const health = 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
/** Headers in, body never finished: a request in flight until the 30 s request timeout. */
const busy = `POST /v1/speak HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`;

test('over the limit, the oldest idle connection is closed and the new client is served', async () => {
  const idle = [open(), open(), open()];
  for (const c of idle) await connected(c.socket);
  await counted(3, 3);
  const client = open(health);
  const answer = await client.closed;
  assert.match(answer, /^HTTP\/1\.1 200 /, 'the new client got in');
  // The first idle one was shed, without an answer; the others are still open.
  assert.equal(await idle[0]!.closed, '');
  assert.equal(idle[1]!.socket.destroyed, false);
  assert.equal(idle[2]!.socket.destroyed, false);
  for (const c of idle) c.socket.destroy();
  await counted(0, 0);
});

test('with every connection busy, a new one is answered 503 VOX_ERR_TOO_MANY_CONNECTIONS and closed; the busy ones are kept', async () => {
  const held = [open(busy), open(busy), open(busy)];
  for (const c of held) await connected(c.socket);
  await counted(3, 0);
  const text = await open(health).closed;
  assert.match(text, /^HTTP\/1\.1 503 /);
  assert.match(text, /\r\nRetry-After: 1\r\n/i);
  assert.match(text, /\r\nx-voxd-version: \S+\r\n/i);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  assert.equal(body.code, 'VOX_ERR_TOO_MANY_CONNECTIONS');
  assert.equal(body.statusCode, 503);
  assert.match(body.message, /3 connections open/);
  for (const c of held) assert.equal(c.socket.destroyed, false, 'a request in flight is never shed');
  for (const c of held) c.socket.destroy();
  await counted(0, 0);
  // Room again: served.
  assert.match(await open(health).closed, /^HTTP\/1\.1 200 /);
});

test('fdLimit reads the soft limit of /proc/self/limits; connectionCap takes half, 16 to 4096', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vox-limits-'));
  try {
    const file = join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            256                  4096                 files\n',
    );
    assert.equal(fdLimit(file), 256);
    writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
    assert.equal(fdLimit(file), Number.MAX_SAFE_INTEGER);
    assert.equal(fdLimit(join(dir, 'none')), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(connectionCap(256), 128);
  assert.equal(connectionCap(2048), 1024);
  assert.equal(connectionCap(10), 16);
  assert.equal(connectionCap(1_048_576), 4096);
  if (process.platform === 'linux') assert.ok((fdLimit() ?? 0) > 0);
});
