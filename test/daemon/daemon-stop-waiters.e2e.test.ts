// "The file decides" (issue 19, item 12): a deliberate `vox daemon stop` is
// not undone by a `vox say --wait` caller's re-send, and `vox daemon restart`
// with callers waiting neither fails on the port nor loses them. The real voxd,
// the real `vox`; the waiters' outcome is what they print and exit with.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, sep } from 'node:path';
import { describe, test } from 'node:test';
import { startDaemon, tempDir, vox, waitFor } from '../helpers/daemon.js';

const GUARD_MS = 90_000;
const LONG = `${'This sentence keeps voxd busy for a while. '.repeat(12)}`;

/** Pids of the processes whose VOX_HOME is `home` (the voxd that runs there, if any). */
function voxdsIn(home: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const h = env.find((kv) => kv.startsWith('VOX_HOME='))?.slice('VOX_HOME='.length);
      if (h && (h === home || h.startsWith(home + sep)) && /voxd/.test(cmd)) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function playing(d: Awaited<ReturnType<typeof startDaemon>>): Promise<void> {
  await waitFor(
    async () => ((await d.api('GET', '/v1/status')).body.playing ? true : undefined),
    30_000,
    'speech playing',
  );
}

describe('vox daemon stop and restart with callers waiting', () => {
  test('stop: the waiter is told its speech was stopped, and no voxd starts again', async () => {
    const d = await startDaemon({ home: tempDir('vox-stopw-') });
    try {
      const waiter = vox(['say', '--wait', LONG], { env: d.env, timeoutMs: GUARD_MS });
      await playing(d);
      const stop = await vox(['daemon', 'stop'], { env: d.env, timeoutMs: GUARD_MS });
      assert.equal(stop.code, 0, stop.stderr);
      const w = await waiter;
      assert.equal(w.code, 3, w.stderr);
      assert.match(w.stderr, /VOX_ERR_CLIENT_DAEMON_STOPPED: voxd was stopped by request/);
      // Long enough for a re-sent request's auto-start to have shown itself.
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(voxdsIn(d.home), [], 'no voxd runs after the stop');
      assert.equal(existsSync(join(d.home, 'voxd.json')), false);
    } finally {
      await d.stop();
    }
  });

  test('restart on a fixed port: it succeeds, the waiters get their answer from the new voxd, and one voxd runs', async () => {
    // A fixed port, as a user has: a voxd that a waiter starts would take it from the restart.
    const d = await startDaemon({ home: tempDir('vox-restartw-'), env: { VOXD_PORT: String(await freePort()) } });
    try {
      const waiters = [
        vox(['say', '--wait', LONG], { env: d.env, timeoutMs: GUARD_MS }),
        vox(['say', '--wait', 'and then this one'], { env: d.env, timeoutMs: GUARD_MS }),
      ];
      await playing(d);
      const restart = await vox(['daemon', 'restart'], { env: d.env, timeoutMs: GUARD_MS });
      assert.equal(restart.code, 0, restart.stderr);
      assert.doesNotMatch(restart.stderr, /still in use/);
      for (const w of await Promise.all(waiters)) {
        assert.equal(w.code, 0, w.stderr);
        assert.doesNotMatch(w.stderr, /VOX_ERR/);
      }
      const state = JSON.parse(readFileSync(join(d.home, 'voxd.json'), 'utf8'));
      assert.notEqual(state.pid, d.pid);
      // The restart passes its VOXD_AUDIO on; a waiter's auto-start would not: the new voxd is the restart's.
      assert.equal(state.sources?.audio, 'env', "the voxd that runs is the one the restart started, not a waiter's");
      assert.deepEqual(voxdsIn(d.home), [state.pid], 'the restarted voxd, and no other');
      assert.equal(existsSync(join(d.home, 'voxd.stopped')), false, 'the marker is gone');
    } finally {
      await d.stop();
    }
  });
});
