/**
 * Two small promises of issue 11, against the real voxd:
 * - a text of punctuation alone is not "played" as a few ms of near-silence:
 *   it ends `dropped` with a reason, and is nobody's duplicate;
 * - a cache write that fails on a full disk leaves no `cache/*.tmp` behind,
 *   and the utterance is spoken all the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';

test('punctuation-only texts end dropped with a reason, none is a duplicate of another, and nothing reaches the sink', async () => {
  const d = await startDaemon({ realtime: false });
  try {
    for (const text of ['...', '!!!', '?!', '— …']) {
      const r = await d.api('POST', '/v1/speak', { text, wait: true });
      assert.equal(r.body.status, 'dropped', `${text}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.reason, /nothing left to say .*punctuation/);
    }
    // The same punctuation twice is dropped twice, never "deduped" against a text nobody heard.
    const again = await d.api('POST', '/v1/speak', { text: '...', wait: true });
    assert.equal(again.body.status, 'dropped');
    assert.equal(d.wavs().length, 0, 'the sink was never touched');
    // Punctuation between sentences is not spoken as a sentence of its own; the words are.
    const mixed = await d.api('POST', '/v1/speak', { text: 'Before. ... After.', wait: true });
    assert.equal(mixed.body.status, 'played');
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.counters.dropped, 5);
    assert.equal(s.body.counters.deduped, 0);
  } finally {
    await d.stop();
    removeDir(d.home);
  }
});

test(
  'a cache write that fails (file size limit, like a full disk) leaves no *.tmp, and the utterance is still spoken',
  { skip: needTool('prlimit') },
  async () => {
    // A player that only counts what it was given: the daemon's file sink would hit the same limit.
    const bin = tempDir('vox-player-bin-');
    writeFileSync(
      join(bin, 'aplay'),
      `#!${process.execPath}\nlet n = 0; process.stdin.on('data', (d) => (n += d.length)).on('end', () => { require('node:fs').appendFileSync(${JSON.stringify(join(bin, 'played'))}, n + '\\n'); });\n`,
    );
    chmodSync(join(bin, 'aplay'), 0o755);
    const d = await startDaemon({ audio: 'command:aplay', env: { PATH: `${bin}:${process.env.PATH}` } });
    const cache = join(d.home, 'cache');
    const files = () => (existsSync(cache) ? readdirSync(cache) : []);
    const log = () =>
      readdirSync(join(d.home, 'logs'))
        .map((f) => readFileSync(join(d.home, 'logs', f), 'utf8'))
        .join('');
    try {
      // Control: the cache is on and writes entries.
      assert.equal(
        (await d.api('POST', '/v1/speak', { text: 'This one is cached.', wait: true })).body.status,
        'played',
      );
      await waitFor(() => files().some((f) => f.endsWith('.vox')) || undefined, 20_000, 'a cache entry');
      // Now every file voxd writes may grow to 16 KiB only: a cache entry (tens of KiB) fails part-way, after its file was made.
      const lim = spawnSync('prlimit', ['--pid', String(d.pid), '--fsize=16384:16384']);
      assert.equal(lim.status, 0, lim.stderr?.toString());
      const before = files().length;
      for (const text of ['A first sentence on a full disk.', 'A second sentence on a full disk.']) {
        const r = await d.api('POST', '/v1/speak', { text, wait: true });
        assert.equal(r.body.status, 'played', JSON.stringify(r.body));
      }
      await waitFor(
        () => (log().match(/cache write failed/g) ?? []).length >= 2 || undefined,
        20_000,
        'two failed cache writes in the log',
      );
      assert.deepEqual(
        files().filter((f) => f.endsWith('.tmp')),
        [],
        'no temp file is left in the cache',
      );
      assert.equal(files().length, before, 'no new cache entry');
      // voxd's probe of the player at start (10 ms of silence, 440 bytes) is not an utterance.
      const played = readFileSync(join(bin, 'played'), 'utf8')
        .trim()
        .split('\n')
        .map(Number)
        .filter((n) => n > 440);
      assert.equal(played.length, 3);
      for (const n of played) assert.ok(n > 22050, `each utterance reached the player (${n} bytes)`);
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(bin);
    }
  },
);
