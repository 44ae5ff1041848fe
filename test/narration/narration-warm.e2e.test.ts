/**
 * A session that narrates warms voxd's engine before its first batch (issue
 * 32 item 3): the real `vox mcp` of a project with `narrate: stream` and
 * `engine: espeak` (the embedded eSpeak, whose worker thread voxd starts on
 * first use when the default is another engine) asks voxd to warm it when it
 * starts and at each new prompt; voxd starts the worker then (its log says
 * `narration warm`, the engine ready). A quiet project's session asks nothing,
 * so voxd starts nothing for it. State, not time: no duration is asserted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startDaemon, tempDir, VOX, waitFor, writeConfig, type Daemon } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';

let d: Daemon;
const clients: Client[] = [];

interface Warm {
  session: string;
  engine: string;
  ready: boolean;
}

function warmed(): Warm[] {
  const file = join(d.home, 'logs', 'voxd.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"msg":"narration warm"'))
    .map((l) => JSON.parse(l) as Warm);
}

async function session(project: string, id: string): Promise<Client> {
  const dir = join(tempDir(), project);
  mkdirSync(join(dir, '.git'), { recursive: true });
  if (project === 'narrating') writeConfig(dir, 'narrate: stream\nengine: espeak');
  const client = new Client({ name: 'claude-code-like', version: '1.0.0' });
  const env = { ...d.env, VOX_SESSION_ID: id } as Record<string, string>;
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [VOX, 'mcp'], cwd: dir, env, stderr: 'pipe' }),
  );
  clients.push(client);
  // A new prompt, as the plugin's UserPromptSubmit entry calls the hook tool; answered after its cut.
  const r = (await client.callTool({
    name: 'hook',
    arguments: { event: 'UserPromptSubmit', session_id: id, cwd: dir },
  })) as CallToolResult;
  assert.ok(!r.isError, JSON.stringify(r));
  return client;
}

before(async () => {
  // The default engine is the system espeak-ng: the embedded one's worker starts only when something asks for it.
  d = await startDaemon({ env: { VOXD_ENGINE: 'espeak-ng' } });
});
after(async () => {
  for (const c of clients) await c.close();
  await d?.stop();
});

test(
  'a quiet project warms nothing; a narrating one has its engine started when its session starts and at a new prompt',
  { skip: needTool('espeak-ng') },
  async () => {
    await session('quiet', 'q1q1q1');
    assert.deepEqual(warmed(), [], 'a quiet project asks voxd for nothing');
    await session('narrating', 'n2n2n2');
    const warm = await waitFor(
      () => {
        const w = warmed();
        return w.length >= 2 ? w : undefined;
      },
      20_000,
      'the session start and the prompt to warm the engine',
    );
    for (const w of warm) {
      assert.match(w.session, /^narrating#n2n2n2$/);
      assert.equal(w.engine, 'espeak');
      assert.equal(w.ready, true);
    }
  },
);
