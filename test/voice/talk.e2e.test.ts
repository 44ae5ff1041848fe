/**
 * `vox talk` through the real voxd to the right one of two real `vox mcp`
 * sessions, driven by the MCP SDK's Client: the channel notification, the
 * held text a listen returns first, and the unknown-label error.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startDaemon, tempDir, VOX, vox, waitFor, type Daemon } from '../helpers/daemon.js';

interface Session {
  client: Client;
  heard: Array<{ content: string; meta: Record<string, string> }>;
}

let d: Daemon;
const sessions: Record<string, Session> = {};

async function open(project: string, id: string): Promise<Session> {
  const dir = join(tempDir(), project);
  mkdirSync(join(dir, '.git'), { recursive: true });
  const env = { ...d.env, VOX_SESSION_ID: id } as Record<string, string>;
  const client = new Client({ name: 'vox-test', version: '1.0.0' });
  const s: Session = { client, heard: [] };
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/claude/channel') s.heard.push(n.params as Session['heard'][number]);
  };
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [VOX, 'mcp'], cwd: dir, env, stderr: 'pipe' }),
  );
  return s;
}

before(async () => {
  d = await startDaemon();
  sessions.api = await open('api', 'aaaaaa');
  sessions.web = await open('web', 'bbbbbb');
});
after(async () => {
  for (const s of Object.values(sessions)) await s.client.close();
  await d?.stop();
});

test('vox mcp declares the claude/channel capability', () => {
  assert.deepEqual(sessions.api!.client.getServerCapabilities()?.experimental, {
    'claude/channel': {},
    'claude/channel/permission': {},
  });
});

test('an unknown label is refused with the live labels listed', async () => {
  const r = await waitFor(
    async () => {
      const r = await vox(['talk', 'docs', 'hello'], { env: d.env });
      return r.stderr.includes('api#aaaaaa') && r.stderr.includes('web#bbbbbb') ? r : undefined;
    },
    20_000,
    'both sessions live',
  );
  assert.equal(r.code, 4);
  assert.match(
    r.stderr,
    /VOX_ERR_TALK_UNKNOWN_SESSION: No session to talk to: no live session "docs"; live sessions: api#aaaaaa, web#bbbbbb/,
  );
});

test('vox talk api "…" reaches api only; a label typed first picks web', async () => {
  const r = await vox(['talk', 'api', 'run the tests'], { env: d.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'delivered to api#aaaaaa\n');
  assert.match(r.stderr, /does not say whether/);
  await waitFor(() => sessions.api!.heard.length || undefined, 10_000, 'the channel notification');
  assert.deepEqual(sessions.api!.heard, [{ content: 'run the tests', meta: { session: 'api#aaaaaa' } }]);
  const w = await vox(['talk', 'web, lint it'], { env: d.env });
  assert.equal(w.code, 0, w.stderr);
  await waitFor(() => sessions.web!.heard.length || undefined, 10_000, "web's notification");
  assert.deepEqual(
    sessions.web!.heard.map((h) => h.content),
    ['lint it'],
  );
  assert.equal(sessions.api!.heard.length, 1, 'api got only its own text');
});

test("the session's next listen returns the held text first, without recording", async () => {
  const result = (await sessions.api!.client.callTool({ name: 'listen', arguments: {} })) as CallToolResult;
  assert.ok(!result.isError, JSON.stringify(result));
  assert.deepEqual(result.structuredContent, { text: 'run the tests', endedBy: 'talk', speechMs: 0, durationMs: 0 });
});

test('a text that names no session, or too many arguments, is a usage error', async () => {
  const r = await vox(['talk', 'api', 'x', 'y'], { env: d.env });
  assert.equal(r.code, 2);
  const n = await vox(['talk', 'run the tests'], { env: d.env });
  assert.equal(n.code, 2, n.stderr);
  assert.match(n.stderr, /names no session; say its label first/);
});
