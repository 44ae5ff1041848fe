/**
 * The token repair layer alone (daemon/token-repair.ts), over real HTTP to a
 * stand-in voxd that takes one token: a refused call whose token file was
 * spoiled is sent again once the file is whole, and named when it stays spoiled.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError } from '../../src/errors.js';
import { localEndpoint } from '../../src/daemon/http.js';
import { transport, type CallRequest } from '../../src/daemon/send.js';
import { tokenRepair } from '../../src/daemon/token-repair.js';
import { fakeVoxd, reply } from './fake-voxd.js';

const home = mkdtempSync(join(tmpdir(), 'vox-token-repair-'));
after(() => rmSync(home, { recursive: true, force: true }));
const voxd = await fakeVoxd((req, res) =>
  req.authorization === 'Bearer good'
    ? reply(res, 200, { ok: true })
    : reply(res, 401, { code: 'VOX_ERR_UNAUTHORIZED' }),
);
after(() => voxd.close());
const send = tokenRepair(transport);

function callRequest(env: NodeJS.ProcessEnv): CallRequest {
  return {
    env,
    method: 'GET',
    path: '/v1/status',
    endpoint: localEndpoint(env),
    timeoutMs: 5000,
    startTimeoutMs: 5000,
    deadline: Date.now() + 20_000,
  };
}

test("a whole token that voxd refuses is voxd's answer: no second send", async () => {
  const env = { VOX_HOME: home, VOXD_PORT: String(voxd.port), VOXD_TOKEN: 'stale' };
  const before = voxd.received.length;
  const r = await send(callRequest(env));
  assert.equal(r.status, 401);
  assert.equal(voxd.received.length, before + 1);
});

test('a spoiled token file, refused: read again until voxd rewrote it, then sent once more with the new token', async () => {
  writeFileSync(join(home, 'token'), 'not a token!\n');
  const env = { VOX_HOME: home, VOXD_PORT: String(voxd.port) };
  const req = callRequest(env);
  assert.match(req.endpoint!.tokenProblem ?? '', /does not hold a token voxd wrote/);
  const before = voxd.received.length;
  const pending = send(req);
  // voxd writes the token again once it saw the refused call (as its keeper does on a change).
  const seen = setInterval(() => {
    if (voxd.received.length > before) {
      clearInterval(seen);
      writeFileSync(join(home, 'token'), 'good\n');
    }
  }, 10);
  const r = await pending.finally(() => clearInterval(seen));
  assert.equal(r.status, 200);
  assert.deepEqual(
    voxd.received.slice(before).map((q) => q.authorization),
    [undefined, 'Bearer good'],
  );
});

test('a token file that stays spoiled: VOX_ERR_CLIENT_STATE_FILE naming the file and the fix', async () => {
  writeFileSync(join(home, 'token'), 'still not a token!\n');
  const env = { VOX_HOME: home, VOXD_PORT: String(voxd.port) };
  await assert.rejects(send(callRequest(env)), (err: unknown) => {
    assert.ok(err instanceof ClientError);
    assert.equal(err.code, 'VOX_ERR_CLIENT_STATE_FILE');
    assert.match(err.message, /VOX_HOME\/token does not hold a token voxd wrote/);
    assert.match(err.message, /vox daemon restart/);
    return true;
  });
});
