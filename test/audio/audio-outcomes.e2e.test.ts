/**
 * Honest outcomes: when voxd cannot play, every surface says so in the same
 * call, with the cause and the fix (the speak response, `vox say`, `vox hook`,
 * the MCP `speak` tool, `/v1/status`, `vox status`, `vox doctor`), and a sink
 * that recovers is used again without a restart.
 *
 * "No device and no player" is made real, not mocked: an ALSA config whose
 * default device does not exist (so neither audio-io nor speaker can open it)
 * and a PATH with no player command on it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { removeDir, startDaemon, tempDir, VOX, vox, type Daemon } from '../helpers/daemon.js';

/** An ALSA configuration with no default device: opening "default" fails. */
export const NO_DEVICE_ALSA_CONF = 'pcm.nothing { type null }\n';

describe('a file sink whose directory is removed', () => {
  test('fails the playback, then refuses with the cause, then recovers when the directory is back', async () => {
    const d = await startDaemon();
    try {
      const first = await d.api('POST', '/v1/speak', { text: 'The directory is here.', wait: true });
      assert.equal(first.body.status, 'played', JSON.stringify(first.body));
      assert.deepEqual(first.body.sink, { name: `file:${d.out}`, ok: true });

      rmSync(d.out, { recursive: true, force: true });
      // A file sink checks its directory before accepting, so this is refused at once.
      const refused = await d.api('POST', '/v1/speak', { text: 'Nobody writes this.', wait: true });
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
      assert.match(refused.body.message, /nothing will be heard/);
      assert.match(refused.body.message, /does not exist/);
      assert.match(refused.body.message, /To fix: create the directory/);
      let s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.ok, false);
      assert.match(s.body.sink.lastError, /does not exist/);
      assert.equal(s.body.counters.accepted, 1, 'the refused request was not queued');
      const st = await vox(['status'], { env: d.env });
      assert.match(st.stdout, /FAILING/);

      mkdirSync(d.out);
      const back = await d.api('POST', '/v1/speak', { text: 'The directory is back.', wait: true });
      assert.equal(back.body.status, 'played', JSON.stringify(back.body));
      s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.ok, true);
      assert.equal(s.body.sink.lastError, undefined);
      assert.equal(d.wavs().length, 1);
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });

  test('a playback that fails at the device reports failed, and status says so', async () => {
    const d = await startDaemon();
    try {
      // Removed between acceptance and playback: the first request holds the sink meanwhile.
      const held = await d.api('POST', '/v1/speak', { text: 'One. Two. Three. Four. Five.', rate: 300 });
      assert.equal(held.status, 202);
      assert.equal(held.body.sink.ok, true);
      const second = d.api('POST', '/v1/speak', { text: 'This one finds no directory.', wait: true });
      // Wait until the second is queued behind the first, then remove the directory.
      for (let i = 0; i < 400; i++) {
        const s = await d.api('GET', '/v1/status');
        if (s.body.queue.length === 1) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      rmSync(d.out, { recursive: true, force: true });
      const r = await second;
      assert.equal(r.body.status, 'failed', JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'VOX_ERR_PLAYBACK_FAILED');
      assert.equal(r.body.sink.ok, false);
      const s = await d.api('GET', '/v1/status');
      assert.equal(s.body.sink.ok, false);
    } finally {
      await d.stop();
      removeDir(d.home);
    }
  });
});

/** What audio-io says when it cannot play: no device, or (on a machine without libasound2) no ALSA library. */
const AUDIO_IO_CAUSE = /audio-io: (?:Failed to open audio device|libasound\.so\.2 is missing)/;

/**
 * The fix for the first cause: without libasound2, the library; with it, the
 * missing device (a player would find no device either), never "install a player".
 */
function assertFixForCause(text: string): void {
  if (/libasound\.so\.2 is missing/.test(text)) {
    assert.match(
      text,
      /To fix: install the ALSA library: "apt-get install libasound2" \(the package is libasound2t64 on Debian 13 and Ubuntu 24\.04; "dnf install alsa-lib" on Fedora\), or install a player command \(apt-get install alsa-utils, or pulseaudio-utils\)/,
    );
  } else {
    assert.match(text, /audio-io: Failed to open audio device \(no sound device: ALSA could not open 'default'\)/);
    assert.match(text, /To fix: connect a sound card \(ALSA lists none: "aplay -l"\), or start a sound server/);
    assert.doesNotMatch(text, /To fix: install a player command/);
  }
  assert.match(text, /"vox daemon config set audio file:DIR"/);
  assert.doesNotMatch(text, /VOXD_AUDIO/, 'an auto-started voxd ignores VOXD_AUDIO: the fix must not name it');
}

describe('no audio device and no player', () => {
  let d: Daemon;
  let dir: string;
  before(async () => {
    dir = tempDir('vox-nodevice-');
    const conf = join(dir, 'asound.conf');
    writeFileSync(conf, NO_DEVICE_ALSA_CONF);
    mkdirSync(join(dir, 'bin'));
    // The default sink (audio-io, then speaker, then players), with nothing that can play.
    d = await startDaemon({ audio: 'auto', env: { ALSA_CONFIG_PATH: conf, PATH: join(dir, 'bin') } });
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(dir);
  });

  test('the speak request is refused at once with the cause and the fix; nothing is queued', async () => {
    const r = await d.api('POST', '/v1/speak', { text: 'Nobody can hear this.' });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VOX_ERR_AUDIO_UNAVAILABLE');
    assert.match(r.body.message, /nothing will be heard/);
    // Either cause is the truth: no device (libasound2 present) or no ALSA library at all (a fresh machine).
    assert.match(r.body.message, AUDIO_IO_CAUSE);
    assert.match(r.body.message, /speaker: /);
    assert.match(r.body.message, /no player command/);
    assertFixForCause(r.body.message);
    const chime = await d.api('POST', '/v1/chime', { signal: 'done' });
    assert.equal(chime.status, 503);
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.sink.ok, false);
    assert.match(s.body.sink.lastError, /no player command/);
    assert.equal(s.body.counters.accepted, 0);
    assert.equal((await d.api('GET', '/v1/health')).status, 200, 'voxd keeps serving');
  });

  test("voxd's own stderr carries no ALSA noise, only its own words", async () => {
    // The probes ran (the test above), each with a device that fails to open: ALSA prints a
    // page of "ALSA lib ..." lines while it fails, which must not land ahead of voxd's error.
    await d.api('POST', '/v1/speak', { text: 'Still nobody can hear this.' });
    assert.doesNotMatch(d.stderr(), /ALSA lib/, d.stderr());
  });

  test('vox say prints one line with the cause and the fix and exits 5; --quiet still exits 5', async () => {
    const r = await vox(['say', 'Hello from vox'], { env: d.env });
    assert.equal(r.code, 5, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /^vox say: VOX_ERR_AUDIO_UNAVAILABLE: No audio output, so nothing will be heard: .*To fix: /,
    );
    assertFixForCause(lines[0]!);
    const q = await vox(['say', '--quiet', 'Hello from vox'], { env: d.env });
    assert.equal(q.code, 5);
    assert.equal(q.stderr, '');
  });

  test('vox hook exits 0 and says why on stderr', async () => {
    const payload = JSON.stringify({
      hook_event_name: 'Notification',
      message: 'Claude needs your permission to use Bash',
      cwd: dir,
      session_id: 's1',
    });
    const r = await vox(['hook', 'Notification'], { env: d.env, input: payload });
    assert.equal(r.code, 0);
    assert.match(r.stderr, /VOX_ERR_AUDIO_UNAVAILABLE: No audio output, so nothing will be heard/);
  });

  test('vox status and vox doctor agree that the audio output fails', async () => {
    const st = await vox(['status'], { env: d.env });
    assert.match(st.stdout, /audio: +\S+ FAILING/);
    const doc = await vox(['doctor'], { env: d.env });
    assert.notEqual(doc.code, 0, doc.stdout);
    assert.match(doc.stdout, /audio \(voxd\)/);
    assert.match(doc.stdout, /is failing/);
  });

  test('the MCP speak tool returns an error result that says nothing will be heard, why and what to do', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: dir,
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'vox-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'speak', arguments: { text: 'Build finished.' } }, undefined, {
        timeout: 60_000,
      })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      assert.equal(result.isError, true, text);
      assert.match(text, /nothing will be heard/);
      assert.match(text, AUDIO_IO_CAUSE);
      assertFixForCause(text);
      assert.doesNotMatch(text, /Queued/);
    } finally {
      await client.close();
    }
  });
});
