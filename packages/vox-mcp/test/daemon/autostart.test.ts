/**
 * The auto-start layer alone (daemon/autostart.ts): a call that voxd did not
 * answer starts the real voxd and is sent there; VOX_NO_AUTOSTART=1 and the
 * stop marker say no, each with its error; other failures pass through.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientError } from '../../src/errors.js';
import { autoStart } from '../../src/daemon/autostart.js';
import { localEndpoint, type Endpoint, type Reply } from '../../src/daemon/http.js';
import { NoAnswer, noAnswer } from '../../src/daemon/no-answer.js';
import { transport, type CallRequest, type Send } from '../../src/daemon/send.js';
import { writeStopMarker } from '../../src/daemon/stop-marker.js';
import { cleanEnv, removeDir, tempDir, waitFor, writeSettings } from '../../../../test/helpers/daemon.js';

function callRequest(env: NodeJS.ProcessEnv, endpoint?: Endpoint): CallRequest {
  return {
    env,
    method: 'GET',
    path: '/v1/health',
    endpoint,
    timeoutMs: 5000,
    startTimeoutMs: 20_000,
    deadline: Date.now() + 25_000,
  };
}

/** A layer below that never answers: how, as told. */
const fails =
  (err: Error): Send =>
  async () => {
    throw err;
  };

test('VOX_NO_AUTOSTART=1: no voxd started; the error says why nothing answered', async () => {
  const home = tempDir('vox-autostart-layer-');
  after(() => removeDir(home));
  const env = { VOX_HOME: home, VOX_NO_AUTOSTART: '1', VOXD_PORT: 'abc' };
  const at: Endpoint = { host: '127.0.0.1', port: 7, token: undefined, source: 'voxd.json' };
  const cases: [NoAnswer, string, RegExp][] = [
    [new NoAnswer(undefined, 'refused', false), 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE', /VOX_NO_AUTOSTART=1 is set/],
    [new NoAnswer(at, 'refused', false), 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE', /127\.0\.0\.1:7 .*connection refused/],
    [new NoAnswer(at, 'reset', true), 'VOX_ERR_CLIENT_DAEMON_UNREACHABLE', /the connection was reset/],
    [
      new NoAnswer({ ...at, port: NaN, source: 'VOXD_PORT' }, 'refused', false),
      'VOX_ERR_CLIENT_USAGE',
      /VOXD_PORT=abc is not a port/,
    ],
  ];
  for (const [noAnswerErr, code, message] of cases) {
    await assert.rejects(autoStart(fails(noAnswerErr))(callRequest(env)), (err: unknown) => {
      assert.ok(err instanceof ClientError, String(err));
      assert.equal(err.code, code);
      assert.match(err.message, message);
      return true;
    });
  }
  assert.equal(existsSync(join(home, 'voxd.json')), false);
});

test('any other failure goes up untouched', async () => {
  const own = new ClientError('VOX_ERR_CLIENT_NOT_VOXD', 'not voxd');
  await assert.rejects(autoStart(fails(own))(callRequest({})), (err: unknown) => err === own);
});

test('voxd stopped by request while the call waited: told, and no voxd started', async () => {
  const home = tempDir('vox-autostart-layer-');
  after(() => removeDir(home));
  const env = cleanEnv(home, { VOXD_PORT: '0' });
  writeStopMarker(env, 'stop');
  await assert.rejects(
    autoStart(fails(new NoAnswer(undefined, 'reset', true)))(callRequest(env)),
    (err: unknown) => err instanceof ClientError && err.code === 'VOX_ERR_CLIENT_DAEMON_STOPPED',
  );
  assert.equal(existsSync(join(home, 'voxd.json')), false);
});

test('nothing answers: the real voxd is started, and the call sent there once more, marked started', async () => {
  const home = tempDir('vox-autostart-layer-');
  const env = cleanEnv(home, { VOXD_PORT: '0' });
  writeSettings(env, { audio: 'null' });
  after(async () => {
    const state = join(home, 'voxd.json');
    if (existsSync(state)) {
      process.kill(JSON.parse(readFileSync(state, 'utf8')).pid, 'SIGTERM');
      await waitFor(() => !existsSync(state), 15_000, 'voxd to exit');
    }
    removeDir(home);
  });
  const sent: CallRequest[] = [];
  const below: Send = <T>(req: CallRequest): Promise<Reply<T>> => {
    sent.push(req);
    return noAnswer(transport)<T>(req);
  };
  const reply = await autoStart(below)<{ ok: boolean }>(callRequest(env, localEndpoint(env)));
  assert.equal(reply.status, 200);
  assert.equal(reply.body.ok, true);
  assert.deepEqual(
    sent.map((r) => [r.endpoint?.source, r.started]),
    [
      [undefined, undefined],
      ['voxd.json', true],
    ],
  );
  assert.equal(sent[1]!.endpoint!.port, localEndpoint(env)!.port);
});
