/**
 * Misbehaving players (issue 11): a player script whose child inherits its
 * pipes, and a single-process player that hangs. Each runs as the real voxd's
 * `command:aplay` player (a fake `aplay` first on PATH); the tests assert
 * outcomes and that no process of the player's group survives, never times.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, waitFor, type Daemon } from '../helpers/daemon.js';

/** A fake player: a Node script named `aplay` in a fresh bin directory. */
function fakeAplay(js: string): string {
  const bin = tempDir('vox-player-bin-');
  writeFileSync(join(bin, 'aplay'), `#!${process.execPath}\n${js}\n`);
  chmodSync(join(bin, 'aplay'), 0o755);
  return bin;
}

/** Alive means it exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

function pids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/**
 * voxd probes the player at start (10 ms of silence) before it accepts anything:
 * wait for that probe, so the pids a test looks at are those of its utterances.
 */
async function probed(d: Daemon): Promise<void> {
  await waitFor(
    async () => (/not probed yet/.test((await d.api('GET', '/v1/status')).body.sink.detail ?? '') ? undefined : true),
    20_000,
    "voxd's probe of the player",
  );
}

async function withPlayer(
  js: string,
  fn: (d: Daemon, bin: string, base: { players: number; children: number }) => Promise<void>,
): Promise<void> {
  const bin = fakeAplay(js);
  const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
  try {
    await probed(d);
    await fn(d, bin, { players: pids(join(bin, 'players')).length, children: pids(join(bin, 'children')).length });
  } finally {
    for (const pid of [...pids(join(bin, 'players')), ...pids(join(bin, 'children'))]) {
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

// Starts a child that inherits stdin, stdout and stderr and sleeps; reads its
// stdin like a player and exits when it ends. Its pids go next to it.
const PLAYER_WITH_CHILD = `
  const fs = require('node:fs');
  const here = require('node:path').dirname(__filename);
  const { spawn } = require('node:child_process');
  const child = spawn('sleep', ['600'], { stdio: 'inherit' });
  fs.appendFileSync(here + '/children', child.pid + '\\n');
  fs.appendFileSync(here + '/players', process.pid + '\\n');
  let bytes = 0;
  process.stdin.on('data', (d) => (bytes += d.length));
  process.stdin.on('end', () => {
    fs.appendFileSync(here + '/played', bytes + '\\n');
    process.exit(0);
  });
`;

test('a player whose child inherits its pipes: stop ends the utterance, kills the group, and the next request plays', async () => {
  await withPlayer(PLAYER_WITH_CHILD, async (d, dir, base) => {
    assert.equal(base.children, 1, "voxd's probe ran the player once");
    const long = 'This announcement goes on and on so that it is still playing when the stop arrives. '.repeat(6);
    const first = await d.api('POST', '/v1/speak', { text: long });
    assert.equal(first.body.status, 'queued', JSON.stringify(first.body));
    await waitFor(
      () => pids(join(dir, 'children')).length === base.children + 1 || undefined,
      20_000,
      'the player and its child to start',
    );
    const player = pids(join(dir, 'players'))[base.players];
    const child = pids(join(dir, 'children'))[base.children];
    assert.ok(alive(child!), 'the child is running while the utterance plays');

    const stop = await d.api('POST', '/v1/stop', {});
    assert.deepEqual(stop.body.stopped, [first.body.id]);
    // Reported stopped only once its audio has ended: the whole group is gone already.
    assert.equal(alive(player!), false, 'the player is dead when stop answers');
    assert.equal(alive(child!), false, "the player's child is dead when stop answers");
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.playing, null);
    assert.equal(s.body.history.find((h: any) => h.id === first.body.id).outcome, 'stopped');

    // The queue is not wedged: the next request plays to the end, and its player's child dies with the utterance.
    const next = await d.api('POST', '/v1/speak', { text: 'And the next one plays.', wait: true });
    assert.equal(next.body.status, 'played', JSON.stringify(next.body));
    assert.ok(
      Number(readFileSync(join(dir, 'played'), 'utf8').trim().split('\n').pop()) > 22050,
      'the second utterance reached its player',
    );
    const children = pids(join(dir, 'children'));
    assert.equal(children.length, base.children + 2);
    for (const pid of children)
      assert.equal(alive(pid), false, "no process of a finished player group (the probe's or an utterance's) survives");
  });
});

test('a single-process player that hangs is killed by the playback watchdog; the utterance fails with the reason and the queue moves on', async () => {
  // Reads its stdin to the end, then never exits; only voxd's probe (10 ms of silence, 440 bytes) it plays and exits.
  const js = `
    const fs = require('node:fs');
    fs.appendFileSync(require('node:path').dirname(__filename) + '/players', process.pid + '\\n');
    let n = 0;
    process.stdin.on('data', (d) => (n += d.length)).on('end', () => n <= 440 && process.exit(0));
    setInterval(() => {}, 1 << 30);
  `;
  await withPlayer(js, async (d, dir, base) => {
    const a = await d.api('POST', '/v1/speak', { text: 'The first line hangs in the player.' });
    const b = await d.api('POST', '/v1/speak', { text: 'The second line gets its turn all the same.', wait: true });
    assert.equal(a.body.status, 'queued');
    assert.equal(b.body.status, 'failed', JSON.stringify(b.body));
    assert.equal(b.body.error.code, 'VOX_ERR_PLAYBACK_TIMEOUT');
    assert.match(
      b.body.reason,
      /player command:aplay had not finished [\d.]+ s of audio after [\d.]+ s \(the playback timeout\)/,
    );
    const s = await d.api('GET', '/v1/status');
    const first = s.body.history.find((h: any) => h.id === a.body.id);
    assert.equal(first.outcome, 'failed');
    assert.match(first.reason, /playback timeout/);
    assert.equal(s.body.counters.failed, 2);
    assert.equal(s.body.playing, null);
    const players = pids(join(dir, 'players'));
    assert.equal(players.length, base.players + 2, 'each utterance had its own player');
    for (const pid of players) assert.equal(alive(pid), false, `player ${pid} was killed`);
    // voxd keeps serving.
    assert.equal((await d.api('GET', '/v1/health')).status, 200);
  });
});
