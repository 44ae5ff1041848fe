/**
 * voxd at rest (issue 23, the daemon's size): the embedded engine's worker
 * thread (eSpeak's 24 MB of data in a V8 isolate, some 65 MB of RSS) starts
 * only when that engine is wanted, and the text preparation worker only for
 * texts that need it. Threads are read from /proc/PID/task, as the bench does.
 * And its memory at rest (issue 34), checked loosely, as a state reached:
 * the budget itself (PSS <= 25 MB) lives in bench/idle-rss.mjs.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';

/** The names of a process's threads (Node names a worker thread "WorkerThread"). */
function threads(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  });
}
/** Private (unshared) memory of a process in KiB, from /proc/PID/smaps_rollup. */
function privateKb(pid: number): number {
  const s = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
  return field('Private_Clean') + field('Private_Dirty');
}

const workers = (pid: number) => threads(pid).filter((n) => n === 'WorkerThread').length;

const daemons: Daemon[] = [];
after(async () => {
  for (const d of daemons) await d.stop();
});

// Node 22 names every thread "node"; from Node 24 on a worker thread is "WorkerThread", which is what this counts.
const unnamed =
  Number(process.versions.node.split('.')[0]) < 24 &&
  `Node ${process.versions.node} does not name worker threads (from Node 24 on: "WorkerThread")`;

describe('workers on demand', { skip: (process.platform !== 'linux' && 'reads /proc') || unnamed }, () => {
  // Before: EspeakEngine.start() ran at every boot, whichever engine served.
  test(
    'with espeak-ng as the automatic engine, no worker runs at rest; naming the embedded engine starts it',
    { skip: needTool('espeak-ng') },
    async () => {
      const d = await startDaemon({ env: { VOXD_ENGINE: 'auto' } });
      daemons.push(d);
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.engine.name, 'espeak-ng');
      // Settled: start-up is over once a request has been answered.
      const first = await d.api('POST', '/v1/speak', { text: 'Spoken by the system engine.', wait: true });
      assert.equal(first.body.status, 'played', JSON.stringify(first.body));
      assert.equal(workers(d.pid), 0, `threads: ${threads(d.pid).join(', ')}`);
      const embedded = await d.api('POST', '/v1/speak', {
        text: 'Spoken by the embedded engine.',
        engine: 'espeak',
        wait: true,
      });
      assert.equal(embedded.body.status, 'played', JSON.stringify(embedded.body));
      assert.equal(embedded.body.engine, 'espeak');
      assert.equal(workers(d.pid), 1, `the embedded engine's worker, started for it: ${threads(d.pid).join(', ')}`);
    },
  );

  test('with the embedded engine as the default, it is warmed at boot', async () => {
    const d = await startDaemon({ env: { VOXD_ENGINE: 'espeak' } });
    daemons.push(d);
    await waitFor(() => (workers(d.pid) === 1 ? true : undefined), 20_000, 'the embedded engine to start');
    const r = await d.api('POST', '/v1/speak', { text: 'Ready at once.', wait: true });
    assert.equal(r.body.status, 'played');
  });
});

// Measured when this was written (Node 24): 16.5 MB of private memory beyond an idle node
// once the idle trim ran after a request (17 to 20 MB with a settings file, as here); 38 MB
// before the idle trim of that round, 18 to 21 MB at rest before its lazy modules. Twice
// the measured figure fails.
test(
  'voxd with the automatic engine, after a request, settles under an idle node + 34 MB of private memory',
  { skip: (process.platform !== 'linux' && 'reads /proc') || needTool('espeak-ng') },
  async () => {
    const d = await startDaemon({ env: { VOXD_ENGINE: 'auto' } });
    daemons.push(d);
    const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
    after(() => void idle.kill());
    const r = await d.api('POST', '/v1/speak', { text: 'Spoken, then at rest.', wait: true });
    assert.equal(r.body.status, 'played', JSON.stringify(r.body));
    const limit = () => privateKb(idle.pid!) + 34 * 1024;
    // The idle trim runs once voxd has been idle for a check period: wait for the state, not a time.
    const settled = await waitFor(
      () => (privateKb(d.pid) <= limit() ? privateKb(d.pid) : undefined),
      60_000,
      `voxd (pid ${d.pid}) under an idle node's private memory + 34 MB`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: voxd ${privateKb(d.pid)} KiB, idle node ${privateKb(idle.pid!)} KiB`);
    });
    assert.ok(settled > 0);
  },
);
