/**
 * What vox mcp's results and the config's problems quote, in-process: an
 * internal error's message (a regular expression, a stack) never reaches a
 * tool result, only the log; catalogue errors keep their words, escaped; a
 * ConfigError escapes the keys, messages and file it quotes, once, for every
 * reader (vox config check, doctor, MCP).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ClientError } from '../../src/errors.js';
import { createVoxMcp } from '../../src/mcp/server.js';
import type { McpTool } from '../../src/mcp/tool.js';
import { checkValue, ConfigError } from '../../src/project/config-validation.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-escapes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function throwing(name: string, err: unknown): McpTool {
  return {
    name,
    description: 'throws',
    input: { type: 'object' },
    async run() {
      throw err;
    },
  };
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

test("a tool's internal error reaches the log, never the result; catalogue errors keep their words, escaped", async () => {
  const logs: string[] = [];
  const regex = new SyntaxError(
    `Invalid regular expression: /(?<![\\p{L}])(?:${'a|'.repeat(5000)}b)/giu: Regular expression too large`,
  );
  const mcp = createVoxMcp({
    env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1' },
    cwd: dir,
    log: (l) => logs.push(l),
    tools: [
      throwing('internal', regex),
      throwing('catalogued', new ClientError('VOX_ERR_CLIENT_NO_TEXT', `no text in "x\u001b[2Jy"`)),
    ],
  });
  const internal = await mcp.callTool('internal', {});
  assert.equal(internal.isError, true);
  assert.equal(
    textOf(internal),
    "unexpected error in vox mcp (SyntaxError; the details are on vox mcp's stderr). Please report it with the steps that led to it.",
  );
  assert.ok(
    logs.some((l) => l.includes('Invalid regular expression')),
    logs.join('\n'),
  );
  assert.ok(
    logs.every((l) => l.length <= 2100),
    'the log line is bounded',
  );
  const catalogued = await mcp.callTool('catalogued', {});
  assert.equal(textOf(catalogued), 'VOX_ERR_CLIENT_NO_TEXT: no text in "x\\x1b[2Jy"');
});

test('a ConfigError escapes the file, the keys and the messages it quotes, and keeps its lines', () => {
  const file = `/tmp/repo\u001b[41m/.vox/config.md`;
  const problem = checkValue(`evil\u001b]0;t\u0007`, 1, 3)!;
  const err = new ConfigError(file, [
    problem,
    { key: 'Pronunciations', line: 9, message: 'Pronunciations: the word "k\u009b5m" is 1 characters' },
  ]);
  assert.equal(err.file, file, 'the file as it is, for code');
  assert.doesNotMatch(err.message, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  assert.equal(err.message.split('\n').length, 4);
  assert.match(err.message, /^\/tmp\/repo\\x1b\[41m\/\.vox\/config\.md is not a valid vox config \(2 problems\):/);
  assert.match(err.message, /:3: unknown key "evil\\x1b\]0;t\\x07"/);
  assert.equal(err.problems[0]!.key, 'evil\\x1b]0;t\\x07');
  assert.match(err.problems[1]!.message, /"k\\x9b5m"/);
});
