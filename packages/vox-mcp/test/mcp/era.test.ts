/**
 * Which era vox mcp offers whom (mcp/protocol.ts `legacyOnlyClient`), and how
 * the channel permission relay reads Claude Code's request
 * (mcp/permission-relay.ts). The real Claude Code's side is
 * test/claude/channel.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PROTOCOL_VERSIONS, legacyOnlyClient } from '../../src/mcp/protocol.js';
import { readPermissionRequest } from '../../src/mcp/permission-relay.js';
import { createVoxMcp } from '../../src/mcp/server.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-era-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const mcp = createVoxMcp({ env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1' }, cwd: dir, log: () => {} });
const rpc = (id: number, method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const probe = (client: string) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: client, version: '2.1.332' },
    'io.modelcontextprotocol/clientCapabilities': {},
  },
});

describe("the era: Claude Code's probe gets no modern revision", () => {
  test('Claude Code probing server/discover gets -32022 with the legacy versions, so it falls back to initialize', async () => {
    const r = (await mcp.handle(rpc(1, 'server/discover', probe('claude-code')))) as {
      error: { code: number; message: string; data: unknown };
    };
    assert.equal(r.error.code, -32022);
    assert.match(r.error.message, /legacy era \(initialize\) to Claude Code, whose channels need it/);
    assert.deepEqual(r.error.data, { supported: [...PROTOCOL_VERSIONS], requested: '2026-07-28' });
    // ...and initialize then negotiates as usual, with the channel capabilities.
    const init = (await mcp.handle(
      rpc(2, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'claude-code', version: '2.1.332' },
      }),
    )) as {
      result: { protocolVersion: string; capabilities: { experimental: object } };
    };
    assert.equal(init.result.protocolVersion, '2025-11-25');
    assert.deepEqual(init.result.capabilities.experimental, { 'claude/channel': {}, 'claude/channel/permission': {} });
  });

  test('any other client, or a probe without clientInfo, keeps the modern era', async () => {
    for (const params of [probe('some-client'), probe('Claude-Code'), undefined]) {
      const r = (await mcp.handle(rpc(3, 'server/discover', params))) as { result?: { supportedVersions: string[] } };
      assert.deepEqual(r.result?.supportedVersions, ['2026-07-28'], JSON.stringify(params));
    }
    assert.equal(legacyOnlyClient({ _meta: { 'io.modelcontextprotocol/clientInfo': 'claude-code' } }), false);
    assert.equal(legacyOnlyClient({}), false);
  });
});

describe("the permission relay reads Claude Code's request", () => {
  test('the fields, and the input preview when it is JSON', () => {
    assert.deepEqual(
      readPermissionRequest({
        request_id: 'abcde',
        tool_name: ' Bash ',
        description: 'List files',
        input_preview: '{"command":"ls"}',
      }),
      {
        requestId: 'abcde',
        tool: 'Bash',
        description: 'List files',
        toolInput: { command: 'ls' },
      },
    );
    // A preview that is not JSON: the ask names the tool only.
    assert.deepEqual(
      readPermissionRequest({ request_id: 'abcde', tool_name: 'Write', input_preview: '{ file_path: /tmp/x }' }),
      { requestId: 'abcde', tool: 'Write', description: '' },
    );
  });

  test('what is not a request, with the reason', () => {
    assert.equal(readPermissionRequest(null), 'params is not an object');
    assert.equal(readPermissionRequest([]), 'params is not an object');
    for (const id of [undefined, '', 7, 'a b', 'x'.repeat(65)]) {
      assert.match(
        readPermissionRequest({ request_id: id, tool_name: 'Bash' }) as string,
        /^request_id is not an id/,
        String(id),
      );
    }
    assert.match(readPermissionRequest({ request_id: 'abcde' }) as string, /^tool_name is missing/);
    assert.match(
      readPermissionRequest({ request_id: 'abcde', tool_name: 'x'.repeat(201) }) as string,
      /^tool_name is missing or longer than 200/,
    );
  });
});
