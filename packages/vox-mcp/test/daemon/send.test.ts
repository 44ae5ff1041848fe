/** The contract of a call's layers (daemon/send.ts): composition order, the deadline, and the transport over real HTTP. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientError } from '../../src/errors.js';
import type { Reply } from '../../src/daemon/http.js';
import { compose, timeLeft, transport, type CallRequest, type Layer, type Send } from '../../src/daemon/send.js';
import { fakeVoxd, reply } from './fake-voxd.js';

function callRequest(extra: Partial<CallRequest> = {}): CallRequest {
  return {
    env: {},
    method: 'GET',
    path: '/v1/health',
    timeoutMs: 5000,
    startTimeoutMs: 5000,
    deadline: Date.now() + 10_000,
    ...extra,
  };
}

test('compose runs the first layer outermost, and each layer sees what the one above passed on', async () => {
  const seen: string[] = [];
  const tag =
    (name: string): Layer =>
    (next) =>
    <T>(req: CallRequest) => {
      seen.push(`${name} ${req.path}`);
      return next<T>({ ...req, path: `${req.path}/${name}` });
    };
  const inner: Send = async <T>(req: CallRequest) => ({ status: 200, body: req.path as T }) as Reply<T>;
  const reply = await compose([tag('a'), tag('b'), tag('c')], inner)<string>(callRequest({ path: '' }));
  assert.deepEqual(seen, ['a ', 'b /a', 'c /a/b']);
  assert.equal(reply.body, '/a/b/c');
});

test('timeLeft: the time asked for, or what is left of the deadline, never less than 1 ms', () => {
  assert.equal(timeLeft(callRequest({ deadline: Date.now() + 60_000 }), 500), 500);
  const near = timeLeft(callRequest({ deadline: Date.now() + 200 }), 5000);
  assert.ok(near <= 200 && near >= 1, String(near));
  assert.equal(timeLeft(callRequest({ deadline: Date.now() - 1000 }), 5000), 1);
});

test('transport: one request to the endpoint, with the token; voxd at its connection cap is a clear error', async () => {
  let cap = false;
  const voxd = await fakeVoxd((req, res) =>
    cap
      ? reply(res, 503, { code: 'VOX_ERR_TOO_MANY_CONNECTIONS', message: 'full' })
      : reply(res, 200, { echo: req.body }),
  );
  after(() => voxd.close());
  const endpoint = voxd.endpoint({ token: 'tok' });
  const r = await transport<{ echo: unknown }>(
    callRequest({ endpoint, method: 'POST', path: '/v1/x', body: { a: 1 } }),
  );
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { echo: { a: 1 } });
  assert.equal(r.daemonVersion, '9.9.9');
  assert.deepEqual(voxd.received[0], { method: 'POST', path: '/v1/x', authorization: 'Bearer tok', body: { a: 1 } });
  cap = true;
  await assert.rejects(transport(callRequest({ endpoint })), (err: unknown) => {
    assert.ok(err instanceof ClientError);
    assert.equal(err.code, 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE');
    assert.match(err.message, /too many connections \(VOX_ERR_TOO_MANY_CONNECTIONS\)/);
    return true;
  });
});
