/**
 * Each session its own voice, end to end: eight sessions speaking through the
 * real `vox say` (VOX_SESSION_ID gives each its label) get eight distinct
 * voices from the real voxd, as its history, `vox status` and the MCP status
 * tool (the real `vox mcp`, through the MCP SDK's client) show; a
 * project's `voice` key wins; a restarted voxd gives the same voices. On a
 * synthetic eight-speaker sherpa model (scripts/synthetic-voice.mjs), the
 * eight sessions get its eight speakers.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, removeDir, startDaemon, tempDir, VOX, vox, type Daemon } from '../helpers/daemon.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { needTool } from '../helpers/tools.js';
import { writeSyntheticVoice } from '../../scripts/synthetic-voice.mjs';

const SESSIONS = Array.from({ length: 8 }, (_, i) => `s${i + 1}`);

/** The voice each session's played requests had, from voxd's history. */
async function voicesByLabel(d: Daemon): Promise<Map<string, string>> {
  const s = await d.idle();
  const out = new Map<string, string>();
  for (const h of s.history) if (h.session && h.voice && !out.has(h.session)) out.set(h.session, h.voice);
  return out;
}

async function sayAll(d: Daemon, project: string, sessions: string[]): Promise<void> {
  for (const id of sessions) {
    const r = await vox(['say', '--wait', `Hello from session ${id}.`], {
      env: cleanEnv(d.home, { VOXD_PORT: String(d.port), VOX_SESSION_ID: id, VOX_NO_AUTOSTART: '1' }),
      cwd: project,
    });
    assert.equal(r.code, 0, r.stderr);
  }
}

test('eight sessions get eight distinct eSpeak voices, a project voice wins, and a restart keeps them', async () => {
  const home = tempDir('vox-voices-');
  const project = join(home, 'shop');
  const pinned = join(home, 'pinned');
  mkdirSync(join(pinned, '.vox'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(pinned, '.vox', 'config.md'), '---\nvoice: en-gb\n---\n');
  let d = await startDaemon({ home, realtime: false });
  try {
    await sayAll(d, project, SESSIONS);
    await sayAll(d, pinned, ['s1']);
    const first = await voicesByLabel(d);
    const labels = SESSIONS.map((id) => `shop#${id}`);
    const voices = labels.map((l) => first.get(l));
    assert.ok(
      voices.every((v) => typeof v === 'string' && v.startsWith('en-us')),
      JSON.stringify([...first]),
    );
    assert.equal(new Set(voices).size, 8, `eight distinct voices: ${voices.join(', ')}`);
    assert.equal(first.get('pinned#s1'), 'en-gb', "the project's voice key wins");
    const status = await vox(['status'], { env: cleanEnv(home, { VOXD_PORT: String(d.port) }) });
    assert.equal(status.code, 0, status.stderr);
    for (const [i, l] of labels.entries())
      assert.match(
        status.stdout,
        new RegExp(`^  ${l.replace('#', '#')}\\s+espeak ${voices[i]!.replace('+', '\\+')}$`, 'm'),
      );

    await d.stop();
    d = await startDaemon({ home, realtime: false });
    await sayAll(d, project, [...SESSIONS].reverse());
    const again = await voicesByLabel(d);
    assert.deepEqual(
      labels.map((l) => again.get(l)),
      voices,
      'the same voices after a restart',
    );

    // The MCP status tool of a ninth session lists every session's voice.
    const env = cleanEnv(home, { VOXD_PORT: String(d.port), VOX_SESSION_ID: 's9', VOX_NO_AUTOSTART: '1' }) as Record<
      string,
      string
    >;
    const client = new Client({ name: 'vox-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [VOX, 'mcp'], cwd: project, env, stderr: 'pipe' }),
    );
    try {
      const result = await client.callTool({ name: 'status', arguments: {} }, undefined, { timeout: 30_000 });
      const listed = (
        result.structuredContent as { daemon: { voices: Array<{ session: string; engine: string; voice: string }> } }
      ).daemon.voices;
      for (const [i, l] of labels.entries())
        assert.ok(
          listed.some((v) => v.session === l && v.engine === 'espeak' && v.voice === voices[i]),
          `${l} in ${JSON.stringify(listed)}`,
        );
    } finally {
      await client.close();
    }
  } finally {
    await d.stop();
    removeDir(home);
  }
});

test(
  'on an eight-speaker sherpa model, eight sessions get its eight speakers',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const home = tempDir('vox-voices-sherpa-');
    writeSyntheticVoice(join(home, 'models'), { installed: true, speakers: 8, name: 'tones' });
    const d = await startDaemon({ home, realtime: false, env: { VOXD_ENGINE: 'sherpa' } });
    try {
      for (const id of SESSIONS) {
        const r = await d.api('POST', '/v1/speak', { text: `Session ${id}.`, session: id, wait: true });
        assert.equal(r.body.status, 'played', JSON.stringify(r.body));
        assert.equal(r.body.engine, 'sherpa');
      }
      const got = await voicesByLabel(d);
      const voices = SESSIONS.map((id) => got.get(id));
      assert.deepEqual([...voices].sort(), Array.from({ length: 8 }, (_, i) => `tones:tone${i + 1}`).sort());
    } finally {
      await d.stop();
      removeDir(home);
    }
  },
);
