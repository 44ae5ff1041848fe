/**
 * What no answer means (daemon/no-answer.ts), alone, over real HTTP: each way
 * voxd fails to answer is a NoAnswer saying how, for the layers above; any
 * other failure is the caller's error.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientError } from '../../src/errors.js';
import type { Endpoint } from '../../src/daemon/http.js';
import { NoAnswer, noAnswer } from '../../src/daemon/no-answer.js';
import { transport, type CallRequest } from '../../src/daemon/send.js';
import { closedPort, fakeVoxd, reply } from './fake-voxd.js';

const send = noAnswer(transport);
const shutting = await fakeVoxd((_req, res) => reply(res, 503, { code: 'VOX_ERR_SHUTTING_DOWN', message: 'bye' }));
const hangsUp = await fakeVoxd((_req, _res, raw) => raw.socket.destroy());
const foreign = await fakeVoxd((_req, res) => reply(res, 200, { hello: 'world' }, false));
const fine = await fakeVoxd((_req, res) => reply(res, 200, { ok: true }));
after(() => Promise.all([shutting, hangsUp, foreign, fine].map((s) => s.close())));

function callRequest(endpoint: Endpoint | undefined, extra: Partial<CallRequest> = {}): CallRequest {
  return {
    env: {},
    method: 'GET',
    path: '/v1/health',
    endpoint,
    timeoutMs: 5000,
    startTimeoutMs: 5000,
    deadline: Date.now() + 10_000,
    ...extra,
  };
}

async function noAnswerOf(req: CallRequest): Promise<NoAnswer> {
  const err = await send(req).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof NoAnswer, `expected a NoAnswer, got ${String(err)}`);
  return err;
}

test('an answer passes through', async () => {
  assert.deepEqual((await send(callRequest(fine.endpoint()))).body, { ok: true });
});

test('nothing says where voxd is, or the port is not one: no answer, refused, nothing sent', async () => {
  const none = await noAnswerOf(callRequest(undefined));
  assert.deepEqual([none.endpoint, none.failure, none.wentAway], [undefined, 'refused', false]);
  const bad = fine.endpoint({ port: 99999 });
  const got = await noAnswerOf(callRequest(bad));
  assert.deepEqual([got.endpoint, got.failure, got.wentAway], [bad, 'refused', false]);
});

test('nothing listens: refused; voxd hangs up on the request: reset, it went away', async () => {
  const refused = await noAnswerOf(callRequest(fine.endpoint({ port: await closedPort() })));
  assert.deepEqual([refused.failure, refused.wentAway], ['refused', false]);
  const reset = await noAnswerOf(callRequest(hangsUp.endpoint()));
  assert.deepEqual([reset.failure, reset.wentAway], ['reset', true]);
});

test("voxd says it is stopping: it went away; with VOX_NO_AUTOSTART=1 that answer is the caller's", async () => {
  const gone = await noAnswerOf(callRequest(shutting.endpoint()));
  assert.equal(gone.wentAway, true);
  const r = await send(callRequest(shutting.endpoint(), { env: { VOX_NO_AUTOSTART: '1' } }));
  assert.equal(r.status, 503);
});

test('what answers is not voxd: a stale voxd.json is no answer; named by VOXD_PORT, or with VOX_NO_AUTOSTART=1, the error', async () => {
  const stale = await noAnswerOf(callRequest(foreign.endpoint({ source: 'voxd.json' })));
  assert.deepEqual([stale.failure, stale.wentAway], ['refused', false]);
  for (const req of [
    callRequest(foreign.endpoint({ source: 'VOXD_PORT' })),
    callRequest(foreign.endpoint({ source: 'voxd.json' }), { env: { VOX_NO_AUTOSTART: '1' } }),
  ]) {
    await assert.rejects(
      send(req),
      (err: unknown) => err instanceof ClientError && err.code === 'VOX_ERR_CLIENT_NOT_VOXD',
    );
  }
});

test('a stall is not a missing voxd: VOX_ERR_CLIENT_DAEMON_UNREACHABLE with the timeout', async () => {
  const stalls = await fakeVoxd(() => {});
  after(() => stalls.close());
  await assert.rejects(send(callRequest(stalls.endpoint(), { timeoutMs: 200 })), (err: unknown) => {
    assert.ok(err instanceof ClientError, String(err));
    assert.equal(err.code, 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE');
    return true;
  });
});

test('after auto-start, the answer or the failure goes up as it is', async () => {
  const r = await send(callRequest(shutting.endpoint(), { started: true }));
  assert.equal(r.status, 503);
  await assert.rejects(
    send(callRequest(fine.endpoint({ port: await closedPort() }), { started: true })),
    (err: unknown) => !(err instanceof NoAnswer) && (err as NodeJS.ErrnoException).code === 'ECONNREFUSED',
  );
});
