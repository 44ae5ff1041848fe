/**
 * The real `vox mcp` declares how its session narrates to the real voxd (POST /v1/narration/session), and voxd
 * speaks the vox mod's batches by it (docs/claude-code.md, "The config has one reader"): at a prompt the session is
 * declared narrating, and a mod batch is spoken with the project's announce label and pronunciations; the config
 * changed to `narrate: summary` is declared at the next hook call and the mod's batches are dropped with the
 * config's words; made invalid, the session is declared not narrating until it is fixed. The hooks are called as
 * the plugin's mcp_tool entries call them, over stdio with the SDK's Client.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { removeDir, startDaemon, tempDir, VOX, waitFor, type Daemon } from '../helpers/daemon.js';

const ID = 'd3c1a7ed-0000-4000-8000-000000000001';
const TABLE = '\n## Pronunciations\n\n| word | say as |\n| --- | --- |\n| kubectl | cube control |\n';

let d: Daemon;
let root: string;
let client: Client;

interface Declared {
  session: string;
  narrates: boolean;
  reason?: string;
}

function declared(): Declared[] {
  const file = join(d.home, 'logs', 'voxd.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"msg":"narration session"'))
    .map((l) => JSON.parse(l) as Declared);
}

const project = () => join(root, 'shop');
const config = (front: string, body = '') =>
  writeFileSync(join(project(), '.vox', 'config.md'), `---\n${front}\n---\n${body}`);

async function hook(event: string): Promise<CallToolResult> {
  return (await client.callTool({
    name: 'hook',
    arguments: { event, session_id: ID, cwd: project() },
  })) as CallToolResult;
}

/** The declarations after the `n`th, once there are more. */
const nextDeclared = (n: number, what: string) =>
  waitFor(
    () => {
      const all = declared();
      return all.length > n ? all.slice(n) : undefined;
    },
    20_000,
    what,
  );

const mod = (session: string, message: string, delta: string) =>
  d.api('POST', '/v1/narration', { session, message, index: 0, final: true, delta, source: 'mod' });

before(async () => {
  d = await startDaemon();
  root = tempDir('vox-declared-');
  mkdirSync(join(project(), '.vox'), { recursive: true });
  config('narrate: stream\nannounce: true', TABLE);
  client = new Client({ name: 'claude-code-like', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: project(),
      env: { ...d.env } as Record<string, string>,
      stderr: 'pipe',
    }),
  );
});
after(async () => {
  await client?.close();
  await d?.stop();
  if (d) removeDir(d.home);
  if (root) removeDir(root);
});

test('declared at the prompt and when the config changes; the mod is spoken by it, or dropped with why', async () => {
  const r = await hook('UserPromptSubmit');
  assert.ok(!r.isError, JSON.stringify(r));
  // Answered after the declaration: a mod batch right after the prompt finds the session declared.
  const label = 'shop#d3c1a7';
  const taken = await mod(label, 'mod.t1.0.0', 'I ran kubectl.\n');
  assert.equal(taken.status, 202, JSON.stringify(taken.body));
  const [first] = await nextDeclared(0, 'the prompt to declare the session');
  assert.deepEqual({ session: first!.session, narrates: first!.narrates }, { session: label, narrates: true });
  const spoken = await waitFor(
    async () => {
      const h = (await d.api('GET', '/v1/status')).body.history.find((e: any) => e.id === taken.body.id);
      return h && h.outcome !== 'queued' && h.outcome !== 'playing' ? h : undefined;
    },
    30_000,
    'the mod batch to be spoken',
  );
  assert.equal(spoken.outcome, 'played');
  assert.match(spoken.text, /^shop\W+I ran cube control\.?$/, "the project's label and pronunciation");

  // The config changes mid-turn: the next hook call declares it, and the mod's next batch is dropped.
  config('narrate: summary');
  assert.ok(!(await hook('PostToolUse')).isError);
  const [summary] = await nextDeclared(1, 'the changed config declared');
  assert.deepEqual(summary, { ...summary, session: label, narrates: false, reason: 'narrate: summary' });
  const dropped = await mod(label, 'mod.t1.1.0', 'Not any more.\n');
  assert.equal(dropped.body.status, 'dropped');
  assert.equal(dropped.body.untilCut, true);
  assert.match(dropped.body.reason, /does not narrate \(narrate: summary\)/);

  // Narrating again, then an invalid file: declared not narrating until it is fixed.
  config('narrate: stream');
  assert.ok(!(await hook('PostToolUse')).isError);
  assert.equal((await nextDeclared(2, 'narrating again'))[0]!.narrates, true);
  config('narrate: loudly');
  assert.ok((await hook('PostToolUse')).isError, 'the invalid config is reported');
  const [invalid] = await nextDeclared(3, 'the invalid config declared');
  assert.deepEqual(
    { session: invalid!.session, narrates: invalid!.narrates, reason: invalid!.reason },
    { session: label, narrates: false, reason: 'the .vox/config.md is invalid' },
  );
  assert.match((await mod(label, 'mod.t1.2.0', 'Nor now.\n')).body.reason, /config\.md is invalid/);
  // Unchanged: no declaration at each call.
  config('narrate: stream');
  await hook('PostToolUse');
  await hook('PostToolUse');
  await nextDeclared(4, 'fixed');
  assert.equal(declared().length, 5, 'declared once per change');
});

test('a project set to narrate that is quiet now (notify: quiet): its prompt still moves the focus here', async () => {
  config('narrate: stream\nnotify: quiet');
  const other = await d.api('POST', '/v1/focus', { session: 'docs#0a0a0a', reason: 'named' });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  assert.ok(!(await hook('UserPromptSubmit')).isError);
  const focus = (await d.api('GET', '/v1/focus')).body;
  assert.deepEqual({ focus: focus.focus, reason: focus.reason }, { focus: 'shop#d3c1a7', reason: 'prompt' });
});
