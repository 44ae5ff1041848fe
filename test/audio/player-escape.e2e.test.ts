/**
 * A player whose children leave its process group (issue 23): two call
 * `setsid`, two are `detached` spawns, each a `sleep 600`. The real voxd runs
 * it as its `command:aplay` player (a fake `aplay` first on PATH); the tests
 * assert that none of those processes outlives its utterance, a stop, or
 * voxd's own exit. Linux: the tree is tracked through /proc.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRunning, removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';

const linux = process.platform === 'linux' ? false : 'the process tree is tracked through /proc (Linux)';

// Starts four sleepers that escape its group, writes their pids next to it
// (to "escapers" too once it is fed more than voxd's probe, 10 ms of silence:
// an utterance's player), reads stdin like a player, and drains for 300 ms
// after it ends, as players do.
const ESCAPING_PLAYER = `
  const fs = require('node:fs');
  const here = require('node:path').dirname(__filename);
  const { spawn } = require('node:child_process');
  const kids = [
    spawn('setsid', ['sleep', '600'], { stdio: 'ignore' }),
    spawn('setsid', ['sleep', '600'], { stdio: 'ignore' }),
    spawn('sleep', ['600'], { stdio: 'ignore', detached: true }),
    spawn('sleep', ['600'], { stdio: 'ignore', detached: true }),
  ];
  for (const k of kids) k.unref();
  const line = kids.map((k) => k.pid).join('\\n') + '\\n';
  fs.appendFileSync(here + '/all-escapers', line);
  let bytes = 0;
  process.stdin.on('data', (d) => {
    if (bytes <= 4096 && (bytes += d.length) > 4096) fs.appendFileSync(here + '/escapers', line);
  });
  process.stdin.on('end', () => setTimeout(() => process.exit(0), 300));
`;

function pids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/**
 * `escapers()`: the sleepers of the players run for utterances, in order;
 * `all()` adds those of voxd's probes (a probe that misses its 3 s on a loaded
 * machine runs again before the next speak, so they are not counted on).
 */
async function withPlayer(
  fn: (d: Daemon, escapers: () => number[], all: () => number[]) => Promise<void>,
): Promise<void> {
  const bin = tempDir('vox-escape-bin-');
  writeFileSync(join(bin, 'aplay'), `#!${process.execPath}\n${ESCAPING_PLAYER}\n`);
  chmodSync(join(bin, 'aplay'), 0o755);
  const escapers = () => pids(join(bin, 'escapers'));
  const all = () => pids(join(bin, 'all-escapers'));
  const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
  try {
    // voxd's probe of the player (10 ms of silence) runs it once before anything is accepted.
    await waitFor(
      async () => (/not probed yet/.test((await d.api('GET', '/v1/status')).body.sink.detail ?? '') ? undefined : true),
      20_000,
      "voxd's probe of the player",
    );
    await waitFor(() => all().length >= 4 || undefined, 20_000, "the probe's escapers");
    await fn(d, escapers, all);
  } finally {
    for (const pid of all()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
    await d.stop();
    removeDir(d.home);
    removeDir(bin);
  }
}

test(
  'children of the player that call setsid or are spawned detached die with their utterance',
  { skip: linux },
  async () => {
    await withPlayer(async (d, escapers, all) => {
      const r = await d.api('POST', '/v1/speak', { text: 'A short one, played to its end.', wait: true });
      assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      assert.equal(escapers().length, 4, "the utterance's four");
      assert.deepEqual(all().filter(isRunning), [], 'none outlives its utterance (nor a probe)');
    });
  },
);

test(
  "a stop, and then voxd's exit in the middle of an utterance, leave none of the escaped children",
  { skip: linux },
  async () => {
    await withPlayer(async (d, escapers, all) => {
      const long = 'This announcement goes on and on so that it is still playing when the stop arrives. '.repeat(6);
      const first = await d.api('POST', '/v1/speak', { text: long });
      assert.equal(first.status, 202);
      await waitFor(() => escapers().length >= 4 || undefined, 20_000, "the utterance's escapers");
      const stop = await d.api('POST', '/v1/stop', {});
      assert.deepEqual(stop.body.stopped, [first.body.id]);
      assert.deepEqual(escapers().filter(isRunning), [], 'none survives the stop');

      // Another text: a stop starts the duplicate window of the one it silenced.
      const second = await d.api('POST', '/v1/speak', { text: `And a second one. ${long}` });
      assert.equal(second.status, 202);
      await waitFor(() => escapers().length >= 8 || undefined, 20_000, "the second utterance's escapers");
      assert.equal(escapers().slice(4).filter(isRunning).length, 4, 'they run while it plays');
      await d.stop();
      assert.deepEqual(all().filter(isRunning), [], "none survives voxd's exit");
    });
  },
);
