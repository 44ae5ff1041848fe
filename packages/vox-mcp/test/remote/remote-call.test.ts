/**
 * The remote link layer alone (remote/remote-call.ts), over real HTTP on a
 * unix socket as ssh forwards it: a host whose nothing says where a local
 * voxd is, or whose voxd.json names one that does not answer, calls through
 * the link; a voxd that went away mid-answer, or one named by VOXD_PORT, is
 * not replaced by the link; a link that is down spools speech.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError } from '../../src/errors.js';
import type { Endpoint, Reply } from '../../src/daemon/http.js';
import { NoAnswer } from '../../src/daemon/no-answer.js';
import type { CallRequest, Send } from '../../src/daemon/send.js';
import { removeLink, writeLink } from '../../src/remote/link.js';
import { remoteLink } from '../../src/remote/remote-call.js';
import { spoolDepth } from '../../src/remote/spool.js';
import { fakeVoxd, reply } from '../daemon/fake-voxd.js';

const home = mkdtempSync(join(tmpdir(), 'vox-remote-call-'));
after(() => rmSync(home, { recursive: true, force: true }));
const env = { VOX_HOME: home };
const socket = join(home, 'remote.sock');
let refuseToken = false;
const voxdOnA = await fakeVoxd(
  (req, res) => (refuseToken ? reply(res, 401, { code: 'VOX_ERR_UNAUTHORIZED' }) : reply(res, 200, { got: req.body })),
  socket,
);
after(() => voxdOnA.close());
const link = { host: 'hostA', socket, token: 'linktoken', version: '9.9.9', as: 'devbox' };

function callRequest(endpoint: Endpoint | undefined, body: unknown = { session: 'api#1', text: 'hi' }): CallRequest {
  return {
    env,
    method: 'POST',
    path: '/v1/speak',
    body,
    endpoint,
    timeoutMs: 5000,
    startTimeoutMs: 5000,
    deadline: Date.now() + 10_000,
  };
}

/** The layers below, as a test tells them to end; counts the calls that reached them. */
function below(outcome: () => Promise<Reply<unknown>>): Send & { calls: number } {
  const send = (async () => {
    send.calls++;
    return outcome();
  }) as unknown as Send & { calls: number };
  send.calls = 0;
  return send;
}

const voxdJson: Endpoint = { host: '127.0.0.1', port: 7, token: 't', source: 'voxd.json' };

test("no local voxd named, a link: the call goes through it, with the link's token and this host's name in the label", async () => {
  writeLink(env, link);
  const local = below(async () => assert.fail('no local call'));
  const before = voxdOnA.received.length;
  const r = await remoteLink(local)<{ got: unknown }>(callRequest(undefined));
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.got, { session: 'devbox/api#1', text: 'hi' });
  assert.equal(voxdOnA.received[before]!.authorization, 'Bearer linktoken');
  assert.equal(local.calls, 0);
});

test('voxd.json names a voxd that does not answer, a link: the link, after the local try', async () => {
  writeLink(env, link);
  const local = below(async () => {
    throw new NoAnswer(voxdJson, 'refused', false);
  });
  const r = await remoteLink(local)<{ got: unknown }>(callRequest(voxdJson));
  assert.equal(r.status, 200);
  assert.equal(local.calls, 1);
});

test('not the link: a voxd that went away mid-answer, one named by VOXD_PORT, another failure, or no link at all', async () => {
  writeLink(env, link);
  const cases: Error[] = [
    new NoAnswer(voxdJson, 'reset', true),
    new NoAnswer({ ...voxdJson, source: 'VOXD_PORT' }, 'refused', false),
    new ClientError('VOX_ERR_CLIENT_NOT_VOXD', 'not voxd'),
  ];
  for (const thrown of cases) {
    const send = remoteLink(
      below(async () => {
        throw thrown;
      }),
    );
    await assert.rejects(send(callRequest(voxdJson)), (err: unknown) => err === thrown);
  }
  removeLink(env);
  const none = new NoAnswer(undefined, 'refused', false);
  await assert.rejects(
    remoteLink(
      below(async () => {
        throw none;
      }),
    )(callRequest(undefined)),
    (err: unknown) => err === none,
  );
});

test("A refuses the link's token: VOX_ERR_CLIENT_REMOTE_TOKEN, with the fix", async () => {
  writeLink(env, link);
  refuseToken = true;
  try {
    await assert.rejects(
      remoteLink(below(async () => assert.fail('no local call')))(callRequest(undefined)),
      (err: unknown) =>
        err instanceof ClientError &&
        err.code === 'VOX_ERR_CLIENT_REMOTE_TOKEN' &&
        /vox remote connect hostA/.test(err.message),
    );
  } finally {
    refuseToken = false;
  }
});

test('the link is down: a speak request with an id is spooled and answered queued; another call is VOX_ERR_CLIENT_REMOTE_DOWN', async () => {
  writeLink(env, { ...link, socket: join(home, 'nothing.sock') });
  const send = remoteLink(below(async () => assert.fail('no local call')));
  const r = await send<{ id: string; status: string }>(
    callRequest(undefined, { session: 'api#1', text: 'later', requestId: 'r1' }),
  );
  assert.equal(r.status, 202);
  assert.deepEqual([r.body.id, r.body.status], ['r1', 'queued']);
  assert.equal(spoolDepth(env).entries, 1);
  await assert.rejects(
    send({ ...callRequest(undefined), method: 'GET', path: '/v1/status', body: undefined }),
    (err: unknown) => err instanceof ClientError && err.code === 'VOX_ERR_CLIENT_REMOTE_DOWN',
  );
});
