/**
 * A signal to `vox say --wait` stops the waiting, never the speech: the real
 * `vox` against a real voxd (real-time file sink). voxd accepted the text, so
 * it plays to the end and is settled `played`, after `vox` exited 0. How each
 * command ends on a signal against a voxd that never answers is
 * packages/vox-mcp/test/cli/context-signals.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { removeDir, startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';
import { startVox } from '../helpers/signals.js';
import { wavStats } from '../helpers/wav.js';

const TEXT =
  'This sentence is long on purpose, so that the signal comes while it plays. A second sentence follows it to the end.';

let d: Daemon;
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d.stop();
  removeDir(d.home);
});

test('vox say --wait on SIGINT: exit 0, and voxd plays the speech to the end', async () => {
  const vox = startVox(['say', '--wait', TEXT], d.env);
  const id = await waitFor(
    async () => (await d.api('GET', '/v1/status')).body.playing?.id as string | undefined,
    20_000,
    'the speech to start playing',
  );
  vox.child.kill('SIGINT');
  assert.deepEqual(await vox.exited(), { code: 0, signal: null }, vox.stderr.join('\n'));
  assert.match(vox.stderr.join('\n'), /stopped waiting/);
  const outcome = await waitFor(
    async () =>
      (await d.api('GET', '/v1/status')).body.history.find(
        (h: any) => h.id === id && h.outcome && h.outcome !== 'playing' && h.outcome !== 'queued',
      )?.outcome as string | undefined,
    30_000,
    'its outcome',
  );
  assert.equal(outcome, 'played');
  const wav = d.wavs().find((f) => f.includes(`-${id}.wav`));
  assert.ok(wav, 'its WAV was written');
  assert.ok(wavStats(wav).durationMs > 3000, 'both sentences were played');
});
