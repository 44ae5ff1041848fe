/**
 * vox status --watch against a real HTTP server on 127.0.0.1 that speaks voxd's
 * event stream: Last-Event-ID goes back only to the voxd that numbered the
 * events, a `gap` event is reported, and aborting the signal (Ctrl-C) ends it with 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../../../src/cli/commands/status.js';
import type { CliContext } from '../../../src/cli/context.js';

const event = (type: string, id: string) => ({
  type,
  id,
  at: '2026-12-01T10:00:00.000Z',
  priority: 'message',
  session: 'shop#1',
});

test('the watch resumes with Last-Event-ID from the same voxd, not from a new one, and reports a gap', async () => {
  const home = mkdtempSync(join(tmpdir(), 'vox-watch-'));
  const seen: (string | undefined)[] = [];
  const pending: ServerResponse[] = [];
  let connection = 0;
  const server = createServer((req, res) => {
    if (req.url === '/v1/status') {
      // voxd's identity header: the client trusts nothing else (docs/cli.md, "Deadlines").
      res.writeHead(200, { 'content-type': 'application/json', 'x-voxd-version': '0.1.0' }).end('{}');
      return;
    }
    assert.equal(req.headers.authorization, 'Bearer secret');
    seen.push(req.headers['last-event-id'] as string | undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': connected\n\n');
    connection++;
    if (connection === 1) {
      res.write(`id: 7\nevent: queued\ndata: ${JSON.stringify(event('queued', 'aaaa1111'))}\n\n`);
      setTimeout(() => res.destroy(), 50); // cut off, as voxd does a client that falls behind
    } else if (connection === 2) {
      res.write(
        `event: gap\ndata: ${JSON.stringify({ type: 'gap', missed: 3, after: 7, resumedAt: 11, reason: '3 events were not kept; this client fell behind or was away' })}\n\n`,
      );
      res.write(`id: 11\nevent: finished\ndata: ${JSON.stringify(event('finished', 'bbbb2222'))}\n\n`);
      // A restart: a new voxd (new pid and start time) writes voxd.json, then this one goes.
      setTimeout(() => {
        state(5151, '2026-12-01T10:05:00.000Z');
        res.end();
      }, 50);
    } else {
      res.write(`id: 1\nevent: queued\ndata: ${JSON.stringify(event('queued', 'cccc3333'))}\n\n`);
      pending.push(res);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const state = (pid: number, startedAt: string) =>
    writeFileSync(
      join(home, 'voxd.json'),
      JSON.stringify({ pid, host: '127.0.0.1', port, version: '9.9.9', startedAt }),
    );
  state(4242, '2026-12-01T10:00:00.000Z');
  writeFileSync(join(home, 'token'), 'secret\n');

  const stdout = new PassThrough();
  let out = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const stderr = new PassThrough();
  let err = '';
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const ac = new AbortController();
  const ctx: CliContext = {
    argv: ['--watch'],
    env: { VOX_HOME: home, VOX_NO_AUTOSTART: '1' },
    cwd: home,
    stdin: new PassThrough(),
    stdout,
    stderr,
    takeSignals: () => ac.signal,
  };
  try {
    const done = run(ctx);
    const deadline = Date.now() + 20_000;
    while (!out.includes(' cccc3333 ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    assert.equal(await done, 0, err);
    assert.deepEqual(
      seen,
      [undefined, '7', undefined],
      'resumed from 7 with the same voxd; a new voxd gets no id of the old one',
    );
    assert.match(out, / queued aaaa1111 message shop#1\n/);
    assert.match(out, / missed 3 event\(s\): 3 events were not kept; this client fell behind or was away\n/);
    assert.match(out, / finished bbbb2222 /);
    assert.match(out, / voxd stopped \(the connection closed\); waiting for it to come back/);
    assert.match(out, / voxd 9\.9\.9 is back \(pid 5151, 127\.0\.0\.1:\d+\)\n.* queued cccc3333 /s);
    assert.equal(err, '');
  } finally {
    for (const r of pending) r.destroy();
    await new Promise((r) => server.close(r));
    rmSync(home, { recursive: true, force: true });
  }
});
