/**
 * voxd's connections are bounded (real voxd, real sockets, the real `vox`):
 * an idle keep-alive and a connection that sends nothing are closed, a body
 * that never ends gets its 408 at the documented deadline, and a flood of
 * idle sockets against a voxd under `ulimit -n 256` neither takes it down
 * nor keeps `vox say` out. Durations are measured and reported
 * (t.diagnostic), never asserted: each wait has a generous hang guard.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { removeDir, startDaemon, vox, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';

/** Sockets voxd holds (Linux: /proc/PID/fd), its listening one included. */
function sockets(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

/** Resolves with the ms until `s` is closed by the other side, or rejects after `guardMs`. */
function closedWithin(s: Socket, guardMs: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the connection was still open after ${guardMs} ms`)), guardMs);
    s.on('error', () => {});
    s.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - t0);
    });
  });
}

test('an idle keep-alive connection and one that sends nothing are closed by voxd', async (t) => {
  const d = await startDaemon({ realtime: false });
  try {
    // A keep-alive connection after one request.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const socket = await new Promise<Socket>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: d.port, path: '/v1/health', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket as Socket));
      });
      req.on('error', reject);
      req.end();
    });
    socket.resume();
    const silent = connect(d.port, '127.0.0.1');
    silent.resume();
    const [keptMs, silentMs] = await Promise.all([closedWithin(socket, 40_000), closedWithin(silent, 40_000)]);
    agent.destroy();
    t.diagnostic(
      `idle keep-alive closed after ${Math.round(keptMs)} ms; a connection that sent nothing after ${Math.round(silentMs)} ms`,
    );
  } finally {
    await d.stop();
    removeDir(d.home);
  }
});

test("a request whose body never ends gets 408 VOX_ERR_REQUEST_TIMEOUT at the documented deadline, not Node's 60 s headers timeout", async (t) => {
  const d = await startDaemon({ realtime: false });
  try {
    const t0 = performance.now();
    const r = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const s = connect(d.port, '127.0.0.1');
      let text = '';
      s.setEncoding('utf8').on('data', (c: string) => (text += c));
      s.on('error', reject);
      s.on('close', () =>
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
          body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4) || 'null'),
        }),
      );
      s.write(
        `POST /v1/speak HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"h`,
      );
      // The hang guard: well past 30 s, short of Node's 60 s.
      setTimeout(() => s.destroy(), 50_000);
    });
    const ms = performance.now() - t0;
    t.diagnostic(`408 after ${Math.round(ms)} ms`);
    assert.equal(r.status, 408, 'answered before the 50 s guard');
    assert.equal(r.body.code, 'VOX_ERR_REQUEST_TIMEOUT');
    assert.match(r.body.message, /within 30 seconds/);
  } finally {
    await d.stop();
    removeDir(d.home);
  }
});

test(
  '300 idle sockets against a voxd under ulimit -n 256: vox say still gets in, health answers, and the idle ones are closed',
  { skip: needTool('prlimit') },
  async (t) => {
    const d = await startDaemon({ realtime: false, wrap: ['prlimit', '--nofile=256:256', '--'] });
    const flood: Socket[] = [];
    try {
      const baseline = sockets(d.pid);
      let opened = 0;
      const closed = new Set<Socket>();
      for (let i = 0; i < 300; i++) {
        const s = connect(d.port, '127.0.0.1');
        s.on('error', () => {});
        s.on('connect', () => opened++);
        s.on('close', () => closed.add(s));
        // Half of them never read, so never see voxd's answer nor close their end.
        if (i % 2 === 0) s.resume();
        flood.push(s);
      }
      await waitFor(() => opened + closed.size >= 300 || undefined, 30_000, 'the flood to connect');
      const health = await d.api('GET', '/v1/health');
      assert.equal(health.status, 200);
      const said = await vox(['say', 'Still heard through the flood.'], { env: d.env });
      assert.equal(said.code, 0, `vox say: ${said.stderr}`);
      const idle = await d.idle();
      assert.equal(idle.history.at(-1)?.outcome, 'played');
      t.diagnostic(`flood of 300 idle sockets: ${closed.size} closed by voxd by the time vox say had played`);
      // Every idle socket is closed by voxd, shed over the limit or timed out, and its descriptor freed,
      // also for those that never read (they are not told, so only voxd's side can be counted).
      await waitFor(
        () => flood.every((s, i) => i % 2 === 1 || closed.has(s)) || undefined,
        40_000,
        'voxd to close the reading half of the idle flood',
      );
      await waitFor(
        () => sockets(d.pid) <= baseline + 2 || undefined,
        40_000,
        `voxd to free the flood's descriptors (${sockets(d.pid)} sockets open, ${baseline} before)`,
      );
      t.diagnostic(`voxd's sockets: ${baseline} before the flood, ${sockets(d.pid)} after it was closed`);
    } finally {
      for (const s of flood) s.destroy();
      await d.stop();
      removeDir(d.home);
    }
  },
);

test(
  'a request on a connection refused at the cap (every connection busy) gets its 503 and is never handled',
  { skip: needTool('prlimit') },
  async () => {
    // Under a descriptor limit of 256, voxd holds at most 128 connections.
    const d = await startDaemon({ realtime: false, wrap: ['prlimit', '--nofile=256:256', '--'] });
    const busy: Socket[] = [];
    try {
      const before = (await d.api('GET', '/v1/status')).body.counters.accepted;
      // Each holds a request in flight (an event stream), so none is idle and none can be shed.
      let streaming = 0;
      let closed = 0;
      for (let i = 0; i < 140; i++) {
        const s = connect(d.port, '127.0.0.1');
        s.on('error', () => {});
        s.on('close', () => closed++);
        s.setEncoding('utf8');
        let seen = false;
        s.on('data', (chunk: string) => {
          if (!seen && chunk.startsWith('HTTP/1.1 200')) {
            seen = true;
            streaming++;
          }
        });
        s.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.token}\r\n\r\n`);
        busy.push(s);
      }
      // Until every one has settled: a connection voxd took but has not read a request from yet is idle,
      // and would be shed to let the next one in. Over the cap, the idle ones were shed (closed).
      await waitFor(
        () => streaming + closed >= 140 || undefined,
        30_000,
        `the event streams to open or be shed (${streaming} open, ${closed} closed)`,
      );
      assert.ok(streaming >= 100, `only ${streaming} event streams opened`);
      // A new connection that sends at once: answered 503, and its speech is not taken behind its back.
      const text = 'Refused at the cap and never spoken.';
      const body = JSON.stringify({ text });
      const answer = await new Promise<string>((resolve) => {
        const s = connect(d.port, '127.0.0.1');
        let out = '';
        s.setEncoding('utf8');
        s.on('error', () => resolve(out));
        s.on('data', (c: string) => (out += c));
        s.on('close', () => resolve(out));
        s.write(
          `POST /v1/speak HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
      assert.match(answer, /^HTTP\/1\.1 503/);
      assert.match(answer, /VOX_ERR_TOO_MANY_CONNECTIONS/);
      for (const s of busy) s.destroy();
      await waitFor(
        async () => ((await d.api('GET', '/v1/health')).status === 200 ? true : undefined),
        20_000,
        'voxd to answer again',
      );
      const status = (await d.api('GET', '/v1/status')).body;
      assert.equal(
        status.history.some((h: { text: string }) => h.text === text),
        false,
        'the refused request was spoken',
      );
      assert.equal(status.counters.accepted, before, 'voxd accepted a request it had refused');
    } finally {
      for (const s of busy) s.destroy();
      await d.stop();
      removeDir(d.home);
    }
  },
);
