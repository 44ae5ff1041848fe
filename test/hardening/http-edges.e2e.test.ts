/**
 * The real voxd at the edges of HTTP: Host values that only start like
 * loopback, bytes that are not HTTP, headers past Node's limit, and a request
 * whose body never finishes. Each gets an answer in voxd's error shape
 * `{code, message, statusCode}`, and voxd keeps serving.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';

import { http, removeDir, startDaemon, type Daemon } from '../helpers/daemon.js';

let d: Daemon;
before(async () => {
  d = await startDaemon({ realtime: false });
});
after(async () => {
  await d?.stop();
  if (d) removeDir(d.home);
});

/** Writes raw bytes and collects what voxd answers until it closes the connection. */
function raw(bytes: string): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(d.port, '127.0.0.1');
    let text = '';
    s.setEncoding('utf8').on('data', (c: string) => (text += c));
    s.on('error', reject);
    s.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: any = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // not JSON
      }
      resolve({ status, body, text });
    });
    s.end(bytes);
  });
}

async function stillServing(): Promise<void> {
  const h = await d.api('GET', '/v1/status');
  assert.equal(h.status, 200);
}

describe('voxd at the edges of HTTP', () => {
  for (const host of ['[::1].evil.com', '127.0.0.1:80@evil.com', '127.0.0.1.evil.com', 'localhost.evil.com:8421']) {
    test(`Host ${host} is refused with 403 VOX_ERR_HOST_FORBIDDEN`, async () => {
      const r = await http(d.port, 'POST', '/v1/speak', { body: { text: 'hello' }, token: d.token, headers: { host } });
      assert.equal(r.status, 403);
      assert.equal(r.body.code, 'VOX_ERR_HOST_FORBIDDEN');
      assert.equal(r.body.statusCode, 403);
    });
  }

  test('bytes that are not HTTP get a 400 in the error shape', async () => {
    const r = await raw('HELLO voxd\r\n\r\n');
    assert.equal(r.status, 400);
    assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'statusCode']);
    assert.equal(r.body.code, 'VOX_ERR_HTTP_MALFORMED');
    assert.match(r.text, /\r\nx-voxd-version: \S+\r\n/i, 'it says it is voxd, as every answer does');
    await stillServing();
  });

  test('headers past the limit get a 431 in the error shape', async () => {
    const r = await raw(`GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    assert.equal(r.status, 431);
    assert.equal(r.body.code, 'VOX_ERR_HEADERS_TOO_LARGE');
    assert.equal(r.body.statusCode, 431);
    await stillServing();
  });

  test('an authenticated request whose body never finishes is answered 408 and its connection closed', async () => {
    const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
      const s = connect(d.port, '127.0.0.1');
      let text = '';
      s.setEncoding('utf8').on('data', (c: string) => (text += c));
      s.on('error', reject);
      s.on('close', () => {
        const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
          body: bodyText ? JSON.parse(bodyText) : undefined,
        });
      });
      // Says 1,000 bytes are coming and sends ten.
      s.write(
        `POST /v1/speak HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${d.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"h`,
      );
    });
    const r = await answer;
    assert.equal(r.status, 408);
    assert.equal(r.body.code, 'VOX_ERR_REQUEST_TIMEOUT');
    await stillServing();
  });
});
