/**
 * The mcp_tool path of the hooks, end to end: every payload in
 * test/fixtures/hooks is turned into the call Claude Code makes for vox's
 * mcp_tool entry (its `input`, with `${field}` substituted from the payload as
 * Claude Code does), sent to the real `vox mcp` through the MCP SDK's Client,
 * and what voxd said is read back from its history. SessionStart and
 * SessionEnd are command hooks in real settings, but the tool speaks them
 * alike.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ALL_HOOK_EVENTS, mcpToolHook, type HookEvent } from '../../packages/vox-mcp/src/claude/hook-entries.js';
import { EXPECTED, type HistoryEntry } from '../helpers/hook-expectations.js';
import { substitute } from '../helpers/hook-input.js';
import { FIXTURES, VOX, removeDir, startDaemon, tempDir, type Daemon, vox, writeConfig } from '../helpers/daemon.js';

const FIXTURE_ROOT = '/home/dev';

describe('the hook tool of vox mcp with every fixture payload', () => {
  let d: Daemon;
  let root: string;
  const clients: Client[] = [];

  async function connect(cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<Client> {
    const env = { ...d.env, VOX_NO_AUTOSTART: '1', ...extra } as Record<string, string>;
    const client = new Client({ name: 'claude-code-like', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [VOX, 'mcp'], cwd, env, stderr: 'pipe' }),
    );
    clients.push(client);
    return client;
  }

  async function history(): Promise<HistoryEntry[]> {
    return (await d.api('GET', '/v1/status')).body.history as HistoryEntry[];
  }

  /** Calls the hook tool as Claude Code would for `payload`; returns the result and what voxd added. */
  async function hook(client: Client, payload: Record<string, unknown>) {
    await d.idle();
    const seen = new Set((await history()).map((h) => h.id));
    const event = String(payload.hook_event_name) as HookEvent;
    assert.ok(ALL_HOOK_EVENTS.includes(event), event);
    const args = substitute(mcpToolHook(event, 'vox').input, payload);
    const result = (await client.callTool({ name: 'hook', arguments: args })) as CallToolResult;
    // The call is answered after voxd accepted the request.
    return { result, added: (await history()).filter((h) => !seen.has(h.id)) };
  }

  function fixture(file: string): Record<string, unknown> {
    const p = JSON.parse(readFileSync(join(FIXTURES, 'hooks', file), 'utf8')) as Record<string, unknown>;
    p.cwd = String(p.cwd).replace(FIXTURE_ROOT, root);
    mkdirSync(String(p.cwd), { recursive: true });
    return p;
  }

  before(async () => {
    d = await startDaemon({ realtime: false });
    root = tempDir('vox-mcp-hooks-');
    writeConfig(join(root, 'api'), 'notify: continuous');
    writeConfig(join(root, 'shop'), 'notify: normal');
  });
  after(async () => {
    for (const c of clients) await c.close();
    await d.stop();
    removeDir(d.home);
    removeDir(root);
  });

  test('the hook tool is not offered to the model, and is callable', async () => {
    const client = await connect(root);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'configure',
      'converse',
      'listen',
      'recap',
      'record',
      'speak',
      'status',
      'stop',
      'voices',
    ]);
    const r = (await client.callTool({
      name: 'hook',
      arguments: { event: 'Stop', stop_hook_active: 'true' },
    })) as CallToolResult;
    assert.equal(r.isError, undefined);
    assert.deepEqual(r.content, [], "an empty answer: Claude Code reads a hook tool's text as hook output");
  });

  for (const file of Object.keys(EXPECTED).sort()) {
    const want = EXPECTED[file]!;
    test(`${file}: ${want === 'silence' ? 'silence' : 'heard'}`, async () => {
      const client = clients[0] ?? (await connect(root));
      const { result, added } = await hook(client, fixture(file));
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      assert.deepEqual(result.content, [], 'no decision, no context for the model');
      if (want === 'silence') {
        assert.deepEqual(added, []);
        return;
      }
      assert.equal(added.length, 1, JSON.stringify(added));
      const [h] = added;
      assert.deepEqual({ kind: h!.kind, text: h!.text, priority: h!.priority, session: h!.session }, want);
    });
  }

  test('the fixture directory holds the payloads this test knows', () => {
    assert.deepEqual(
      readdirSync(join(FIXTURES, 'hooks'))
        .filter((f) => f.endsWith('.json') && !/^(?:codex|gemini|qwen)-/.test(f))
        .sort() /* other agents': agents-hooks.e2e */,
      Object.keys(EXPECTED).sort(),
    );
  });

  test("a session's own hook speech has the label of its model's tools, so the model's stop stops it", async () => {
    const sessionId = '8b3d3e00-0000-4000-8000-0000000000aa';
    const cwd = join(root, 'shop');
    const client = await connect(cwd, { CLAUDE_CODE_SESSION_ID: sessionId });
    const stop = fixture('stop.json');
    const { added } = await hook(client, { ...stop, cwd, session_id: sessionId });
    assert.equal(added.length, 1);
    assert.equal(
      added[0]!.session,
      'shop#8b3d3e',
      "the label of CLAUDE_CODE_SESSION_ID, which is the payload's session_id",
    );
    const stopped = (await client.callTool({ name: 'stop', arguments: {} })) as CallToolResult;
    const s = stopped.structuredContent as { session: string; stopped: string[] };
    // stop targets exactly the hook's label (test/claude-code.e2e stops a summary still playing).
    assert.equal(s.session, added[0]!.session);
  });

  test("after /clear (a new session_id in the hooks, the first in the environment) the model's calls follow the hooks, and stop and status cover both labels", async () => {
    const first = 'f1f1f100-0000-4000-8000-0000000000aa';
    const cleared = 'c1c1c100-0000-4000-8000-0000000000bb';
    const cwd = join(root, 'shop');
    const client = await connect(cwd, { CLAUDE_CODE_SESSION_ID: first });
    const speak = async (text: string) =>
      (await client.callTool({ name: 'speak', arguments: { text } })) as CallToolResult;
    const before = await speak('Before the clear.');
    assert.equal(before.isError, undefined, JSON.stringify(before.content));
    const { added } = await hook(client, { ...fixture('stop.json'), cwd, session_id: cleared });
    assert.equal(added[0]?.session, 'shop#c1c1c1', "the hook speaks as the hooks' new session");
    await speak('After the clear.');
    await d.idle();
    const labels = new Map(
      (await history()).filter((h) => h.text.endsWith('the clear.')).map((h) => [h.text, h.session]),
    );
    assert.deepEqual(Object.fromEntries(labels), {
      'Before the clear.': 'shop#f1f1f1',
      'After the clear.': 'shop#c1c1c1',
    });
    const status = (await client.callTool({ name: 'status', arguments: {} })) as CallToolResult;
    const st = status.structuredContent as { session: string; sessions: string[] };
    assert.equal(st.session, 'shop#c1c1c1');
    assert.deepEqual(st.sessions, ['shop#f1f1f1', 'shop#c1c1c1']);
    const stop = (await client.callTool({ name: 'stop', arguments: {} })) as CallToolResult;
    const s = stop.structuredContent as { session: string; sessions: string[]; stopped: string[] };
    assert.equal(s.session, 'shop#c1c1c1');
    assert.deepEqual(s.sessions, ['shop#f1f1f1', 'shop#c1c1c1']);
  });

  test('after /clear with command hooks only: vox hook notes the new id for its Claude Code (CLAUDE_PID), and vox mcp, its child, follows it', async () => {
    const first = 'f2f2f200-0000-4000-8000-0000000000aa';
    const cleared = 'c2c2c200-0000-4000-8000-0000000000bb';
    const cwd = join(root, 'shop');
    // This process stands for Claude Code: it is vox mcp's parent, and its pid is the hooks' CLAUDE_PID.
    const note = join(d.home, 'sessions', `claude-${process.pid}`);
    mkdirSync(join(d.home, 'sessions'), { recursive: true });
    // A note older than vox mcp (an earlier process with this pid, or this one's past) changes nothing.
    writeFileSync(note, 'a0a0a000-0000-4000-8000-0000000000ee\n');
    const past = new Date(Date.now() - 60_000);
    utimesSync(note, past, past);
    const client = await connect(cwd, { CLAUDE_CODE_SESSION_ID: first });
    const speak = async (text: string) =>
      (await client.callTool({ name: 'speak', arguments: { text } })) as CallToolResult;
    assert.equal((await speak('Before the command clear.')).isError, undefined);
    const payload = JSON.stringify({ ...fixture('stop.json'), cwd, session_id: cleared });
    const r = await vox(['hook', 'Stop'], {
      env: { ...d.env, VOX_NO_AUTOSTART: '1', CLAUDE_PID: String(process.pid) },
      input: payload,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(note, 'utf8'), `${cleared}\n`);
    await speak('After the command clear.');
    await d.idle();
    const labels = new Map(
      (await history()).filter((h) => h.text.endsWith('the command clear.')).map((h) => [h.text, h.session]),
    );
    assert.deepEqual(Object.fromEntries(labels), {
      'Before the command clear.': 'shop#f2f2f2',
      'After the command clear.': 'shop#c2c2c2',
    });
    const stop = (await client.callTool({ name: 'stop', arguments: {} })) as CallToolResult;
    const s = stop.structuredContent as { session: string; sessions: string[] };
    assert.equal(s.session, 'shop#c2c2c2');
    assert.deepEqual(s.sessions, ['shop#f2f2f2', 'shop#c2c2c2']);
    // The hook tool's own adoption is newer than the note: the note does not take it back.
    await hook(client, { ...fixture('stop.json'), cwd, session_id: first });
    await speak('After the tool hook.');
    await d.idle();
    assert.equal((await history()).find((h) => h.text === 'After the tool hook.')?.session, 'shop#f2f2f2');
  });

  test('one announcement per permission ask: the permission_prompt that follows the PermissionRequest, naming no tool, says nothing', async () => {
    const id = 'ab12ab12-0000-4000-8000-0000000000cc';
    const cwd = join(root, 'shop');
    const client = await connect(cwd, { CLAUDE_CODE_SESSION_ID: id });
    const asked = await hook(client, { ...fixture('permission-request.json'), cwd, session_id: id });
    assert.deepEqual(
      asked.added.map((h) => h.text),
      ['shop needs your permission to use Bash'],
    );
    // Claude Code 2.1.332's permission_prompt ~6 s later: its duplicate key (no tool) differs from the request's.
    const prompt = {
      ...fixture('notification-permission.json'),
      cwd,
      session_id: id,
      message: 'Claude needs your permission',
    };
    const later = await hook(client, prompt);
    assert.equal(later.result.isError, undefined);
    assert.deepEqual(later.added, [], 'not spoken, not even deduped: the tool knew it was the same ask');
    // Without a request before it (the PermissionRequest hook not installed), the prompt is heard.
    const other = await connect(cwd, { CLAUDE_CODE_SESSION_ID: 'cd34cd34-0000-4000-8000-0000000000dd' });
    const alone = await hook(other, { ...prompt, session_id: 'cd34cd34-0000-4000-8000-0000000000dd' });
    assert.deepEqual(
      alone.added.map((h) => h.text),
      ['shop needs your permission'],
    );
  });

  test('claude -p (CLAUDE_CODE_ENTRYPOINT=sdk-cli): no permission announcement, unless the project sets unattendedPrompts', async () => {
    const quiet = join(root, 'headless');
    const loud = join(root, 'headless-loud');
    writeConfig(quiet, 'notify: normal');
    writeConfig(loud, 'notify: normal\nunattendedPrompts: true');
    for (const [cwd, heard] of [
      [quiet, []],
      [loud, ['headless-loud needs your permission to use Bash']],
    ] as const) {
      const id = cwd === quiet ? 'ee00ee00-0000-4000-8000-0000000000ee' : 'ff00ff00-0000-4000-8000-0000000000ff';
      const client = await connect(cwd, { CLAUDE_CODE_SESSION_ID: id, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' });
      const r = await hook(client, { ...fixture('permission-request.json'), cwd, session_id: id });
      assert.equal(r.result.isError, undefined);
      assert.deepEqual(
        r.added.map((h) => h.text),
        heard,
        cwd,
      );
      // The Stop summary of such a run is still heard.
      const stop = await hook(client, { ...fixture('stop.json'), cwd, session_id: id });
      assert.equal(stop.added.length, 1, cwd);
    }
  });

  test('a failure is an isError result naming the cause (voxd unreachable), never a hook decision', async () => {
    const home = tempDir('vox-mcp-hooks-nohome-');
    try {
      const client = await connect(root, { VOX_HOME: home, VOXD_PORT: '', VOXD_URL: '' });
      const r = (await client.callTool({
        name: 'hook',
        arguments: substitute(mcpToolHook('Stop', 'vox').input, fixture('stop.json')),
      })) as CallToolResult;
      assert.equal(r.isError, true);
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      assert.match(text, /^vox: .*voxd/);
      assert.doesNotMatch(text, /"decision"|hookSpecificOutput/);
    } finally {
      removeDir(home);
    }
  });
});
