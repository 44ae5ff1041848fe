/**
 * A project's pronunciations table, and the control characters of a config
 * file, through the real `vox` and `vox mcp` (the SDK's Client over stdio)
 * against a real voxd (null sink: these tests are about the text, not the
 * audio). The table comes from a cloned repository: it must not set the cost
 * of a call, break every call, or write to the user's terminal.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PRONUNCIATION_LIMITS as L } from '../../packages/vox-mcp/src/project/config-schema.js';
import { removeDir, startDaemon, tempDir, VOX, vox, type Daemon } from '../helpers/daemon.js';

const ESC = '\u001b';

function project(dir: string, text: string): string {
  mkdirSync(join(dir, '.vox'), { recursive: true });
  writeFileSync(join(dir, '.vox', 'config.md'), text);
  return dir;
}

const table = (rows: string[]) =>
  `---\nrate: 200\n---\n## Pronunciations\n\n| word | say as |\n| --- | --- |\n${rows.join('\n')}\n`;

/** The largest table the caps allow: as many rows as allowed, sharing the character budget, every word a phrase. */
function largestTable(): string {
  const per = Math.floor(L.chars / L.rows);
  const rows: string[] = [];
  for (let r = 0; r < L.rows - 2; r++) {
    const word = `zq${r} ${'alpha beta gamma delta '.repeat(8)}`.slice(0, Math.min(L.wordChars, per - 2)).trim();
    rows.push(`| ${word} | ${'s'.repeat(per - word.length)} |`);
  }
  rows.push('| kubectl | cube control |', '| kubernetes | kates |');
  return table(rows);
}

async function withMcp<T>(
  d: Daemon,
  cwd: string,
  fn: (client: Client) => Promise<T>,
): Promise<{ value: T; stderr: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOX, 'mcp'],
    cwd,
    env: d.env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const client = new Client({ name: 'vox-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return { value: await fn(client), stderr };
  } finally {
    await client.close();
  }
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('pronunciations through vox and vox mcp', () => {
  let d: Daemon;
  let dir: string;
  before(async () => {
    d = await startDaemon({ audio: 'null' });
    dir = tempDir('vox-pron-');
  });
  after(async () => {
    await d.stop();
    removeDir(dir);
  });

  test('the largest table allowed passes vox config check, and vox say and MCP speak apply it to a 20,000-character text', async () => {
    const p = project(join(dir, 'largest'), largestTable());
    const check = await vox(['config', 'check'], { env: d.env, cwd: p });
    assert.equal(check.code, 0, check.stderr);
    const say = await vox(['say', '--json', '--priority', 'notification', 'kubectl ready'], { env: d.env, cwd: p });
    assert.equal(say.code, 0, say.stderr);
    assert.equal(JSON.parse(say.stdout).text, 'cube control ready');
    // Shorter once spoken, so that it stays within voxd's 20,000 characters.
    const long = `${'run kubernetes now. '.repeat(1000)}`.slice(0, 20_000);
    const { value } = await withMcp(
      d,
      p,
      (c) =>
        c.callTool({ name: 'speak', arguments: { text: long, priority: 'notification' } }, undefined, {
          timeout: 60_000,
        }) as Promise<CallToolResult>,
    );
    assert.notEqual(value.isError, true, textOf(value));
    const spoken = (value.structuredContent as { spoken?: string }).spoken ?? '';
    assert.ok(spoken.startsWith('run kates now. run kates now.'), spoken.slice(0, 80));
    assert.doesNotMatch(spoken, /kubernetes/);
    await d.api('POST', '/v1/stop', { scope: 'all' });
  });

  test('a table over the caps (5 rows of 6,000 words) fails vox config check, and every call says why, briefly, not "Invalid regular expression"', async () => {
    // 60 KB: under the file's 64 KiB cap, as in the issue.
    const rows = Array.from(
      { length: 5 },
      (_, r) => `| ${Array.from({ length: 6000 }, (_, i) => 'abcdefghij'[(i + r) % 10]).join(' ')} | x |`,
    );
    const p = project(join(dir, 'huge'), table(rows));
    const check = await vox(['config', 'check'], { env: d.env, cwd: p });
    assert.equal(check.code, 7, check.stdout);
    assert.match(
      check.stderr,
      new RegExp(`Pronunciations: the word "a b c.*" is \\d+ characters; at most ${L.wordChars} are allowed`),
    );
    const say = await vox(['say', 'hello'], { env: d.env, cwd: p });
    assert.equal(say.code, 7, say.stderr);
    assert.doesNotMatch(say.stderr, /Invalid regular expression|unexpected error/);
    assert.ok(say.stderr.length < 4096, `stderr is ${say.stderr.length} bytes`);
    const hook = await vox(['hook', 'Notification'], {
      env: d.env,
      cwd: p,
      input: JSON.stringify({
        hook_event_name: 'Notification',
        message: 'Claude needs your permission to use Bash',
        session_id: 's1',
        cwd: p,
      }),
    });
    assert.equal(hook.code, 0, 'a hook never fails its caller');
    assert.doesNotMatch(hook.stderr, /Invalid regular expression/);
    assert.ok(hook.stderr.length < 4096, `stderr is ${hook.stderr.length} bytes`);
    const { value } = await withMcp(
      d,
      p,
      (c) =>
        c.callTool({ name: 'speak', arguments: { text: 'hello' } }, undefined, {
          timeout: 60_000,
        }) as Promise<CallToolResult>,
    );
    assert.equal(value.isError, true);
    assert.match(textOf(value), /is not a valid vox config[\s\S]*at most \d+ are allowed/);
    assert.doesNotMatch(textOf(value), /Invalid regular expression|(?:a b c d e f g h i j ){3}/);
  });
});

describe('control characters from a config file are never printed raw', () => {
  let d: Daemon;
  let dir: string;
  before(async () => {
    d = await startDaemon({ audio: 'null' });
    dir = tempDir('vox-esc-');
  });
  after(async () => {
    await d.stop();
    removeDir(dir);
  });

  test('an ANSI escape in a key, a value and a pronunciation reaches stderr, stdout and MCP escaped', async () => {
    const p = project(
      join(dir, 'keys'),
      `---\n"evil${ESC}[2J${ESC}]0;pwned\u0007": 1\nvoice: "v${ESC}[31mred"\nrate: 9999\n---\n`,
    );
    const check = await vox(['config', 'check'], { env: d.env, cwd: p });
    assert.equal(check.code, 7);
    assert.ok(!check.stderr.includes(ESC) && !check.stderr.includes('\u0007'), JSON.stringify(check.stderr));
    assert.match(check.stderr, /unknown key "evil\\x1b\[2J\\x1b\]0;pwned\\x07"/);
    const { value } = await withMcp(
      d,
      p,
      (c) =>
        c.callTool({ name: 'speak', arguments: { text: 'hello' } }, undefined, {
          timeout: 60_000,
        }) as Promise<CallToolResult>,
    );
    assert.equal(value.isError, true);
    assert.ok(!textOf(value).includes(ESC), JSON.stringify(textOf(value)));
    assert.match(textOf(value), /evil\\x1b\[2J/);

    const q = project(
      join(dir, 'values'),
      table([`| k${ESC}[5m | say${ESC}[0m it |`]).replace('rate: 200', `voice: "a\u009b31mb"`),
    );
    const show = await vox(['config'], { env: d.env, cwd: q });
    assert.equal(show.code, 0, show.stderr);
    assert.ok(!show.stdout.includes(ESC) && !show.stdout.includes('\u009b'), JSON.stringify(show.stdout));
    assert.match(show.stdout, /voice = "a\\x9b31mb"/);
    assert.match(show.stdout, /k\\x1b\[5m → say\\x1b\[0m it/);
  });

  test('a path with an ANSI escape is escaped in vox config check, both when valid and when not', async () => {
    const evil = join(dir, `repo${ESC}[41m`);
    const ok = project(join(evil, 'good'), '---\nrate: 200\n---\n');
    const good = await vox(['config', 'check'], { env: d.env, cwd: ok });
    assert.equal(good.code, 0, good.stderr);
    assert.ok(!good.stdout.includes(ESC), JSON.stringify(good.stdout));
    assert.match(good.stdout, /^ok: .*repo\\x1b\[41m/);
    const bad = project(join(evil, 'bad'), '---\nrate: 9999\n---\n');
    const r = await vox(['config', 'check'], { env: d.env, cwd: bad });
    assert.equal(r.code, 7);
    assert.ok(!r.stderr.includes(ESC), JSON.stringify(r.stderr));
    assert.match(r.stderr, /repo\\x1b\[41m[\\/]bad[\\/]\.vox[\\/]config\.md:2: rate: 9999 is not allowed/);
  });
});
