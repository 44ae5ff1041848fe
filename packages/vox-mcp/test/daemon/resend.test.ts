/**
 * The re-send layer alone (daemon/resend.ts): a speak request gets one id
 * above the layers that send it again, so voxd joins a second send to the
 * first; and the stop marker decides whether a waiter's call goes on.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError } from '../../src/errors.js';
import type { Reply } from '../../src/daemon/http.js';
import { afterGoingAway, resend } from '../../src/daemon/resend.js';
import type { CallRequest, Send } from '../../src/daemon/send.js';
import { clearStopMarker, writeStopMarker } from '../../src/daemon/stop-marker.js';

function callRequest(method: string, path: string, body?: unknown): CallRequest {
  return { env: {}, method, path, body, timeoutMs: 1000, startTimeoutMs: 1000, deadline: Date.now() + 5000 };
}

/** A layer below that sends twice (as auto-start does after voxd went away), keeping each body. */
function twice(bodies: unknown[]): Send {
  return async <T>(req: CallRequest) => {
    bodies.push(req.body);
    bodies.push(req.body);
    return { status: 202, body: req.body as T } as Reply<T>;
  };
}

test('a speak request gets an id, the same on every send below', async () => {
  const bodies: unknown[] = [];
  await resend(twice(bodies))(callRequest('POST', '/v1/speak', { text: 'hi' }));
  const [first, second] = bodies as { text: string; requestId: string }[];
  assert.equal(first!.text, 'hi');
  assert.match(first!.requestId, /^[0-9a-z]+-[0-9a-z]+-[0-9a-z]+$/);
  assert.equal(second!.requestId, first!.requestId);
});

test('an id the caller gave is kept; other routes get none', async () => {
  const bodies: unknown[] = [];
  const send = resend(twice(bodies));
  await send(callRequest('POST', '/v1/speak', { text: 'hi', requestId: 'mine' }));
  await send(callRequest('POST', '/v1/stop', { scope: 'all' }));
  await send(callRequest('GET', '/v1/health'));
  assert.deepEqual(bodies, [
    { text: 'hi', requestId: 'mine' },
    { text: 'hi', requestId: 'mine' },
    { scope: 'all' },
    { scope: 'all' },
    undefined,
    undefined,
  ]);
});

test('the stop marker: after "vox daemon stop" a waiter is told; during a restart it waits, spawning nothing', () => {
  const home = mkdtempSync(join(tmpdir(), 'vox-resend-'));
  after(() => rmSync(home, { recursive: true, force: true }));
  const env = { VOX_HOME: home };
  assert.deepEqual(afterGoingAway(env, true), { noSpawn: false });
  writeStopMarker(env, 'stop');
  assert.throws(
    () => afterGoingAway(env, true),
    (err: unknown) => err instanceof ClientError && err.code === 'VOX_ERR_CLIENT_DAEMON_STOPPED',
  );
  // A call that never reached the stopped voxd starts the next one, as any call does.
  assert.deepEqual(afterGoingAway(env, false), { noSpawn: false });
  writeStopMarker(env, 'restart');
  assert.deepEqual(afterGoingAway(env, true), { noSpawn: true });
  assert.deepEqual(afterGoingAway(env, false), { noSpawn: true });
  clearStopMarker(env);
  assert.deepEqual(afterGoingAway(env, true), { noSpawn: false });
});
