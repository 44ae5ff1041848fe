/**
 * The sherpa engine's idle unload (`sherpa.idleUnloadMs`, here through
 * VOXD_SHERPA_IDLE_UNLOAD_MS): the real voxd, the synthetic voice of
 * scripts/synthetic-voice.mjs and the real sherpa-onnx-node. A model's host
 * process exits after the idle time, the model stays ready, the next request
 * loads it again, and an utterance is never cut by an unload.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, removeDir, startDaemon, tempDir, VOXD, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { wavStats } from '../helpers/wav.js';
import { expectedSamples, writeSyntheticVoice } from '../../scripts/synthetic-voice.mjs';

/** voxd's children that are sherpa model hosts (engines/sherpa-host.js). */
function hostPids(voxdPid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${voxdPid}/task/${voxdPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sherpa-host');
    } catch {
      return false; // exited meanwhile
    }
  });
}

/** The pids of the hosts voxd.log says it unloaded as idle, in order. */
function unloaded(home: string): number[] {
  let text = '';
  try {
    text = readFileSync(join(home, 'logs', 'voxd.log'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.includes('voice model unloaded (idle)'))
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
}

const noHost = (pid: number) => (hostPids(pid).length === 0 ? true : undefined);

test(
  'an idle model is unloaded: its host exits, sherpa stays ready, and the next request loads it again',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const home = tempDir('vox-sherpa-idle-');
    writeSyntheticVoice(join(home, 'models'), { installed: true });
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'sherpa', VOXD_SHERPA_IDLE_UNLOAD_MS: '300' } });
    try {
      const first = await d.api('POST', '/v1/speak', { text: 'Before the unload.', wait: true });
      assert.equal(first.body.status, 'played', JSON.stringify(first.body));
      assert.equal(first.body.engine, 'sherpa');
      await waitFor(() => noHost(d.pid), 30_000, 'the idle host to exit');
      const gone = await waitFor(
        () => (unloaded(home).length ? unloaded(home) : undefined),
        10_000,
        'voxd.log to say it unloaded the model',
      );
      // Unloaded is not failed: the model is still the ready default.
      const status = await d.api('GET', '/v1/status');
      assert.deepEqual(status.body.engine, { name: 'sherpa', ready: true });
      const voices = await d.api('GET', '/v1/voices');
      assert.deepEqual(
        voices.body.voices.map((v: { id: string }) => v.id),
        ['synthetic'],
      );

      const text = 'After the unload.';
      const again = await d.api('POST', '/v1/speak', { text, wait: true });
      assert.equal(again.body.status, 'played', JSON.stringify(again.body));
      assert.equal(again.body.engine, 'sherpa');
      assert.equal(again.body.fallbackReason, undefined);
      const wavs = d.wavs();
      const stats = wavStats(wavs[wavs.length - 1]!);
      assert.equal(stats.frames, expectedSamples(text), 'the reloaded model renders the whole text');
      assert.ok(stats.rms > 0.2, `not silence (rms ${stats.rms})`);
      // A new host served it, and goes idle in turn.
      await waitFor(() => noHost(d.pid), 30_000, 'the reloaded host to exit');
      const both = await waitFor(
        () => (unloaded(home).length > gone.length ? unloaded(home) : undefined),
        10_000,
        'the second unload in voxd.log',
      );
      assert.ok(!gone.includes(both[both.length - 1]!), `a new host process (${both.join(', ')})`);
      // Unloads are no crashes: after more of them than MAX_CRASHES (3), sherpa still speaks.
      for (const t of ['One more.', 'And another.']) {
        const n = unloaded(home).length;
        const r = await d.api('POST', '/v1/speak', { text: t, wait: true });
        assert.equal(r.body.engine, 'sherpa', JSON.stringify(r.body));
        await waitFor(
          () => (unloaded(home).length > n && noHost(d.pid)) || undefined,
          30_000,
          'the host to go idle again',
        );
      }
      const last = await d.api('POST', '/v1/speak', { text: 'Still sherpa.', wait: true });
      assert.equal(last.body.engine, 'sherpa', JSON.stringify(last.body));
      assert.equal(last.body.fallbackReason, undefined);
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test(
  'an unload never cuts an utterance: one host renders and plays every sentence, even with an idle time shorter than a sentence',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const home = tempDir('vox-sherpa-idle-long-');
    // Dense layers: each sentence takes real time to render, as a real model's does.
    writeSyntheticVoice(join(home, 'models'), { installed: true, work: 300 });
    // Real-time file sink: each sentence plays for over a second, far longer than the idle time,
    // while the next one, already rendered, waits to be read.
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'sherpa', VOXD_SHERPA_IDLE_UNLOAD_MS: '150' } });
    try {
      // The host voxd warms at start goes idle first; the hosts seen below are then the utterance's own.
      await waitFor(
        () => (unloaded(home).length > 0 && noHost(d.pid)) || undefined,
        30_000,
        'the host warmed at start to go idle',
      );
      const sentences = [
        'Here is the long report.',
        'This is sentence number two of a long report that nobody wants to hear to the end.',
        'This is sentence number three of a long report that nobody wants to hear to the end.',
        'This is sentence number four of a long report that nobody wants to hear to the end.',
      ];
      const accepted = await d.api('POST', '/v1/speak', { text: sentences.join(' ') });
      assert.equal(accepted.body.status, 'queued', JSON.stringify(accepted.body));
      const seen = new Set<number>();
      const history = await waitFor(
        async () => {
          for (const pid of hostPids(d.pid)) seen.add(pid);
          const h = (await d.api('GET', '/v1/status')).body.history.find(
            (e: { id: string }) => e.id === accepted.body.id,
          );
          return h?.outcome && h.outcome !== 'playing' ? h : undefined;
        },
        60_000,
        'the long utterance to settle',
      );
      assert.equal(history.outcome, 'played', JSON.stringify(history));
      assert.equal(history.engine, 'sherpa');
      assert.equal(history.fallbackReason, undefined);
      assert.equal(
        seen.size,
        1,
        `one host for the whole utterance, no reload between its sentences (saw ${[...seen].join(', ')})`,
      );
      const [wav] = d.wavs();
      assert.equal(
        wavStats(wav!).frames,
        sentences.reduce((n, s) => n + expectedSamples(s), 0),
        'every sentence, whole',
      );
      // And once it is over, the host does go.
      await waitFor(() => noHost(d.pid), 30_000, 'the host to exit after the utterance');
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);

test('a bad sherpa.idleUnloadMs in voxd.yaml stops voxd with the file and line, the key, the value and the allowed values', () => {
  const home = tempDir('vox-sherpa-idle-bad-');
  const env = cleanEnv(home, { VOXD_PORT: '0', VOXD_AUDIO: 'null' });
  mkdirSync(env.VOX_CONFIG_HOME!, { recursive: true });
  const file = join(env.VOX_CONFIG_HOME!, 'voxd.yaml');
  writeFileSync(file, 'engine: auto\nsherpa:\n  idleUnloadMs: 10min\n');
  try {
    const r = spawnSync(process.execPath, [VOXD], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.ok(
      r.stderr.includes(
        `${file}:3: sherpa.idleUnloadMs: "10min" is not allowed (a number of milliseconds, without a unit); use 0 (keep voice models loaded) or an integer from 100 to 86400000 (ms`,
      ),
      r.stderr,
    );
  } finally {
    removeDir(home);
  }
});
