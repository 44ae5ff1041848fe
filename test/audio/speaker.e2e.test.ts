/**
 * The real `speaker` sink: voxd plays through the speaker module (in its child
 * process) into ALSA's file device, with no sound card. DESIGN.md has the config.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { pcmStats } from '../helpers/wav.js';

const ALSA_CONF = `pcm.!default {
    type file
    slave { pcm { type null } }
    file { @func getenv vars [ VOX_TEST_ALSA_FILE ] default "/tmp/vox-alsa.raw" }
    format "raw"
}
`;

test('speech plays through speaker into the ALSA file device', { skip: needTool('speaker') }, async () => {
  const dir = tempDir('vox-alsa-');
  const conf = join(dir, 'asound.conf');
  const capture = join(dir, 'capture.raw');
  writeFileSync(conf, ALSA_CONF);
  const d = await startDaemon({ audio: 'speaker', env: { ALSA_CONFIG_PATH: conf, VOX_TEST_ALSA_FILE: capture } });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Through the speaker module into ALSA.', wait: true });
    assert.equal(r.body.status, 'played', JSON.stringify(r.body));
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.sink.name, 'speaker');
    assert.equal(s.body.sink.ok, true);
    assert.ok(statSync(capture).size > 22050 * 2 * 0.5, 'at least half a second of audio reached ALSA');
    const { rms } = pcmStats(readFileSync(capture), { sampleRate: 22050, channels: 1 });
    assert.ok(rms > 0.01, `RMS ${rms} looks like silence`);
  } finally {
    await d.stop();
    removeDir(d.home);
    removeDir(dir);
  }
});

test('with no usable device, speaker falls back to a player or reports why, and voxd keeps serving', async () => {
  const dir = tempDir('vox-noalsa-');
  // An ALSA config with no default device: the speaker probe fails in its child, never in voxd.
  const conf = join(dir, 'asound.conf');
  writeFileSync(conf, 'pcm.nothing { type null }\n');
  const d = await startDaemon({ audio: 'speaker', env: { ALSA_CONFIG_PATH: conf, PATH: '/nonexistent' } });
  try {
    const r = await d.api('POST', '/v1/speak', { text: 'Nobody can hear this.', wait: true });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
    assert.match(r.body.message, /speaker: /);
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.sink.ok, false);
    assert.match(s.body.sink.detail, /speaker unavailable/);
    assert.equal((await d.api('GET', '/v1/health')).status, 200);
  } finally {
    await d.stop();
    removeDir(d.home);
    removeDir(dir);
  }
});

/** Processes whose parent is `ppid`, with their process group and command line (Linux /proc). */
function children(ppid: number): Array<{ pid: number; pgrp: number; cmdline: string }> {
  const out = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== ppid) continue;
      out.push({
        pid: Number(name),
        pgrp: Number(fields[2]),
        cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' '),
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test(
  'the speaker child runs in its own process group, and a stop leaves none of it',
  { skip: needTool('speaker') || (process.platform !== 'linux' ? 'reads /proc' : false) },
  async () => {
    const dir = tempDir('vox-alsa-');
    const conf = join(dir, 'asound.conf');
    writeFileSync(conf, ALSA_CONF);
    const d = await startDaemon({
      audio: 'speaker',
      env: { ALSA_CONFIG_PATH: conf, VOX_TEST_ALSA_FILE: join(dir, 'capture.raw') },
    });
    try {
      const long = d.api('POST', '/v1/speak', {
        text: 'A long sentence that keeps the speaker child busy for a while. '.repeat(6),
        wait: true,
      });
      const child = await waitFor(
        () => children(d.pid).find((c) => c.cmdline.includes('speaker-child') && !c.cmdline.includes('--probe')),
        30_000,
        'the speaker child to play',
      );
      // The leader of its own group: a stop kills the group, not only the child.
      assert.equal(child.pgrp, child.pid, `speaker child ${child.pid} is in group ${child.pgrp}, voxd's is ${d.pid}`);
      await d.api('POST', '/v1/stop', { scope: 'all' });
      assert.equal((await long).body.status, 'stopped');
      await waitFor(
        () => !children(d.pid).some((c) => c.pid === child.pid) || undefined,
        10_000,
        'the speaker child to be gone',
      );
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(dir);
    }
  },
);
