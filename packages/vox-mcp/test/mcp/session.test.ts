// One Claude Code session, one identity: the label of the model's tool calls
// (vox mcp, which Claude Code gives CLAUDE_CODE_SESSION_ID) equals the label of
// the session's hooks (vox hook, whose payload carries the same id as
// session_id), so the model's `stop` stops its own session's hook speech.
// Real voxd (real-time file sink), real `vox` bin, the SDK's Client.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sessionLabel } from '../../src/project/session.js';
import {
  FIXTURES,
  removeDir,
  startDaemon,
  tempDir,
  VOX,
  vox,
  waitFor,
  type Daemon,
} from '../../../../test/helpers/daemon.js';

let d: Daemon;
const clients: Client[] = [];
before(async () => {
  d = await startDaemon();
});
after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await d.stop();
  removeDir(d.home);
});

const SESSION_ID = '8b3d3e2a-51f4-4c2e-9d0b-1f2e3d4c5b6a';

test('sessionLabel: VOX_SESSION_ID overrides, then the payload, then CLAUDE_CODE_SESSION_ID, then the legacy CLAUDE_SESSION_ID', () => {
  assert.equal(sessionLabel('p', { CLAUDE_CODE_SESSION_ID: SESSION_ID }), 'p#8b3d3e');
  assert.equal(
    sessionLabel('p', { CLAUDE_CODE_SESSION_ID: SESSION_ID }, SESSION_ID),
    sessionLabel('p', { CLAUDE_CODE_SESSION_ID: SESSION_ID }),
  );
  assert.equal(sessionLabel('p', { CLAUDE_SESSION_ID: 'c79e05aa' }), 'p#c79e05');
  assert.equal(sessionLabel('p', { CLAUDE_SESSION_ID: 'c79e05aa', CLAUDE_CODE_SESSION_ID: SESSION_ID }), 'p#8b3d3e');
  assert.equal(sessionLabel('p', { VOX_SESSION_ID: 'mine', CLAUDE_CODE_SESSION_ID: SESSION_ID }, 'other'), 'p#mine');
  assert.equal(sessionLabel('p', { CLAUDE_CODE_SESSION_ID: '' }, 'abcdef12'), 'p#abcdef');
});

test("the model's stop stops the speech of its own session's Stop hook", { timeout: 90_000 }, async () => {
  const dir = join(realpathSync(tempDir('vox-identity-')), 'ccproj2');
  mkdirSync(dir);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOX, 'mcp'],
    cwd: dir,
    env: { ...d.env, CLAUDE_CODE_SESSION_ID: SESSION_ID } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vox-identity', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  const label = ((await call('status')).structuredContent as { session: string }).session;
  assert.equal(label, 'ccproj2#8b3d3e');

  // The session's Stop hook, as Claude Code runs it: its payload names the same session.
  const payload = {
    ...JSON.parse(readFileSync(join(FIXTURES, 'hooks', 'stop.json'), 'utf8')),
    session_id: SESSION_ID,
    cwd: dir,
  };
  const hook = await vox(['hook', 'Stop'], { env: d.env, cwd: dir, input: JSON.stringify(payload) });
  assert.equal(hook.code, 0, hook.stderr);
  const playing = await waitFor(
    async () => (await d.api('GET', '/v1/status')).body.playing ?? undefined,
    20_000,
    'the Stop summary to play',
  );
  assert.equal(playing.session, label, 'the hook speaks under the label of the MCP session');

  const stopped = (await call('stop')).structuredContent as { scope: string; session: string; stopped: string[] };
  assert.equal(stopped.session, label);
  assert.ok(
    stopped.stopped.includes(playing.id),
    `stop names the hook's request ${playing.id}: ${JSON.stringify(stopped)}`,
  );
  const entry = await waitFor(
    async () => {
      const s = (await d.api('GET', '/v1/status')).body;
      const h = s.history.find((e: { id: string }) => e.id === playing.id);
      return h && h.outcome !== 'playing' ? h : undefined;
    },
    20_000,
    'the summary to end',
  );
  assert.equal(entry.outcome, 'stopped');
});
