// Differential conformance: the same raw JSON-RPC lines go to `vox mcp` (its own
// protocol layer) and to a reference server built on the official SDK's v2
// server package (helpers/reference-server.mjs: the same tools served by
// @modelcontextprotocol/server's McpServer and serveStdio). Their answers are
// compared by structure: which requests are answered, with a result or an
// error, the error codes, the protocol fields (protocolVersion,
// supportedVersions, resultType, isError) and the shape of every result.
// Names, versions, instructions and texts are not compared.
//
// Every difference found is in ALLOWED below, and each one is justified in
// docs/mcp.md ("Differences from the SDK's server").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const reference = fileURLToPath(new URL('./helpers/reference-server.mjs', import.meta.url));
const root = realpathSync(mkdtempSync(join(tmpdir(), 'vox-conformance-')));
after(() => rmSync(root, { recursive: true, force: true }));
// No voxd anywhere: the tools answer without one (stop: nothing to stop; speak: unreachable).
const env = {
  PATH: process.env.PATH ?? '',
  HOME: root,
  VOX_HOME: join(root, 'home'),
  VOX_NO_AUTOSTART: '1',
  VOXD_PORT: '1',
};

type Message = {
  id?: string | number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** Sends `lines` to a server, waits (bounded) until every id in `answered` has its answer, and returns every message it wrote. */
async function exchange(command: string[], lines: string[], answered: Array<string | number>): Promise<Message[]> {
  const child = spawn(process.execPath, command, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.resume();
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin.write(lines.map((l) => `${l}\n`).join(''));
  const parse = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Message);
  const done = () => answered.every((id) => parse().some((m) => m.id === id));
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  child.stdin.end();
  await exited;
  const messages = parse();
  const missing = answered.filter((id) => !messages.some((m) => m.id === id));
  assert.deepEqual(missing, [], `${command.join(' ')} did not answer ${missing.join(', ')}: ${out}`);
  return messages;
}

/** What is compared of a value: its JSON type, recursively; object keys sorted. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (v === null) return 'null';
  if (typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, shape((v as Record<string, unknown>)[k])]),
    );
  return typeof v;
}

/** One answer, reduced to what must agree. */
function essence(m: Message): unknown {
  if (m.error) return { error: m.error.code };
  const r = { ...m.result };
  const kept: Record<string, unknown> = {};
  for (const k of ['protocolVersion', 'supportedVersions', 'resultType', 'isError']) if (k in r) kept[k] = r[k];
  if (Array.isArray(r.tools))
    kept.tools = (r.tools as Array<{ name: string; outputSchema?: unknown }>).map(
      (t) => `${t.name}${t.outputSchema ? ' (output schema)' : ''}`,
    );
  // What a client reads but may differ in value: serverInfo and instructions are the server's own.
  // So are the cache hints' values (ttlMs, cacheScope): their shape is compared.
  delete r.serverInfo;
  delete r.instructions;
  const meta = r._meta as Record<string, unknown> | undefined;
  if (meta) {
    const { 'io.modelcontextprotocol/serverInfo': _, ...rest } = meta;
    if (Object.keys(rest).length) r._meta = rest;
    else delete r._meta;
  }
  delete r.tools;
  kept.shape = shape(r);
  return kept;
}

/** Answers by request id, plus the answers without an id (parse errors and the like) under "(no id)". */
function byId(messages: Message[]): Map<string, unknown[]> {
  const map = new Map<string, unknown[]>();
  for (const m of messages) {
    const key = Array.isArray(m) ? '(batch)' : m.id === undefined ? '(no id)' : String(m.id);
    map.set(key, [...(map.get(key) ?? []), Array.isArray(m) ? m.map(essence) : essence(m)]);
  }
  return map;
}

const rpc = (id: number | string, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const note = (method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
const init = (id: number, protocolVersion: string) =>
  rpc(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'conformance', version: '1' } });
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'conformance', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modern = (id: number | string, method: string, params: Record<string, unknown> = {}) =>
  rpc(id, method, { ...params, _meta: META });

const TOOL_NAMES = ['speak', 'stop', 'voices', 'status', 'configure', 'record', 'recap', 'listen', 'converse'].map(
  (n) => `${n} (output schema)`,
);

/**
 * The differences that are allowed, by scenario and request id ("(no id)" for
 * answers without one): what vox answers and what the SDK answers (undefined:
 * no answer at all). docs/mcp.md justifies each.
 */
const ALLOWED: Record<
  string,
  Record<string, { vox: unknown[] | undefined; sdk: unknown[] | undefined; why: string }>
> = {
  'legacy 2025-03-26 and its batches': {
    // The batch's answers come back as one array: keyed by the array's first id.
    '(batch)': {
      vox: [[{ shape: {} }, { tools: TOOL_NAMES, shape: {} }]],
      sdk: undefined,
      why: 'MCP 2025-03-26 says implementations MUST support receiving batches; the SDK drops them',
    },
  },
  'a line that is not JSON': {
    '(no id)': {
      vox: [{ error: -32700 }],
      sdk: undefined,
      why: 'JSON-RPC 2.0 asks for a -32700 response; the SDK only reports it to its own onerror',
    },
  },
  'not JSON-RPC 2.0': {
    '7': {
      vox: [{ error: -32600 }],
      sdk: undefined,
      why: 'JSON-RPC 2.0 asks for -32600 Invalid Request; the SDK drops the message',
    },
  },
  'a batch after negotiating 2025-06-18': {
    '(no id)': {
      vox: [{ error: -32600 }],
      sdk: undefined,
      why: 'batches are not part of MCP since 2025-06-18: vox says so once; the SDK drops the line',
    },
  },
  'modern era (2026-07-28)': {
    '7': {
      vox: [{ error: -32022 }],
      sdk: [
        {
          resultType: 'complete',
          tools: TOOL_NAMES,
          shape: { cacheScope: 'string', resultType: 'string', ttlMs: 'number' },
        },
      ],
      why: 'every request names its version and an unsupported one MUST get -32022; the SDK checks only the first request of a stdio connection',
    },
    '5': {
      vox: [{ error: -32602 }],
      sdk: [
        {
          resultType: 'complete',
          tools: TOOL_NAMES,
          shape: { cacheScope: 'string', resultType: 'string', ttlMs: 'number' },
        },
      ],
      why: 'a cursor vox never issued is invalid (-32602, as the spec example has it); the SDK ignores the cursor',
    },
  },
  'malformed requests': {
    '1': {
      vox: [{ error: -32602 }],
      sdk: [{ error: -32603 }],
      why: 'initialize without its required params: JSON-RPC calls that Invalid params (-32602); the SDK reports its schema failure as an internal error',
    },
    '8': { vox: [{ error: -32602 }], sdk: [{ error: -32603 }], why: 'a cursor that is not a string: as for request 1' },
    '4': {
      vox: [{ error: -32602 }],
      sdk: undefined,
      why: 'params that are not an object: vox answers Invalid params; the SDK drops the message',
    },
    '6': { vox: [{ error: -32602 }], sdk: undefined, why: 'the same, with a string as params' },
    '(no id)': {
      vox: [{ error: -32600 }],
      sdk: undefined,
      why: 'an id that is an object: Invalid Request, the id left out since it is not one; the SDK drops the message',
    },
  },
  'server/discover without _meta': {
    '1': {
      vox: [
        {
          supportedVersions: ['2026-07-28'],
          resultType: 'complete',
          shape: {
            cacheScope: 'string',
            capabilities: {
              tools: { listChanged: 'boolean' },
              experimental: { 'claude/channel': {}, 'claude/channel/permission': {} },
            },
            resultType: 'string',
            supportedVersions: ['string'],
            ttlMs: 'number',
          },
        },
      ],
      sdk: [{ error: -32601 }],
      why: 'servers MUST implement server/discover; the SDK pins a claim-less first message to the legacy era, where the method does not exist',
    },
  },
};

interface Scenario {
  name: string;
  lines: string[];
  /** Ids both servers must answer (the test waits for them). */
  answered: Array<string | number>;
}

const tool = (id: number, name: string, args?: unknown) =>
  rpc(id, 'tools/call', args === undefined ? { name } : { name, arguments: args });

const SCENARIOS: Scenario[] = [
  {
    name: 'legacy 2025-11-25: handshake, tools, protocol errors and cancellation',
    lines: [
      init(1, '2025-11-25'),
      note('notifications/initialized'),
      rpc(2, 'ping'),
      rpc(3, 'tools/list'),
      tool(4, 'stop', {}),
      tool(5, 'stop', { scope: 'everyone' }),
      tool(6, 'shout', {}),
      tool(7, 'stop', null),
      rpc(8, 'tools/call', { arguments: {} }),
      rpc(9, 'resources/list'),
      tool(10, 'stop'),
      tool(11, 'speak', { text: 'Cancelled at once.' }),
      note('notifications/cancelled', { requestId: 11, reason: 'test' }),
      tool(12, 'speak', { text: 'No daemon is listening.' }),
      tool(13, 'voices', { limit: 0 }),
      rpc(14, 'tools/call', { name: 'stop', arguments: [] }),
    ],
    answered: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14],
  },
  {
    name: 'legacy 2025-06-18',
    lines: [init(1, '2025-06-18'), note('notifications/initialized'), rpc(2, 'tools/list'), tool(3, 'stop', {})],
    answered: [1, 2, 3],
  },
  {
    name: 'legacy 2025-03-26 and its batches',
    lines: [
      init(1, '2025-03-26'),
      note('notifications/initialized'),
      `[${rpc(3, 'ping')},${note('notifications/initialized')},${rpc(4, 'tools/list')}]`,
      rpc(2, 'ping'),
    ],
    answered: [1, 2],
  },
  {
    name: 'legacy 2024-11-05',
    lines: [init(1, '2024-11-05'), rpc(2, 'tools/list'), tool(3, 'stop', {})],
    answered: [1, 2, 3],
  },
  {
    name: 'initialize asking for 2026-07-28 or an unknown version',
    lines: [init(1, '2026-07-28'), init(2, '1999-01-01')],
    answered: [1, 2],
  },
  {
    name: 'a line that is not JSON',
    lines: [init(1, '2025-11-25'), 'this is not json', rpc(2, 'ping')],
    answered: [1, 2],
  },
  {
    name: 'not JSON-RPC 2.0',
    lines: [init(1, '2025-11-25'), JSON.stringify({ id: 7, method: 'ping' }), rpc(2, 'ping')],
    answered: [1, 2],
  },
  {
    name: 'a batch after negotiating 2025-06-18',
    lines: [init(1, '2025-06-18'), JSON.stringify([JSON.parse(rpc(3, 'ping'))]), rpc(2, 'ping')],
    answered: [1, 2],
  },
  {
    name: 'modern era (2026-07-28)',
    lines: [
      modern(1, 'server/discover'),
      modern(2, 'tools/list'),
      modern(3, 'tools/call', { name: 'stop', arguments: {} }),
      modern(4, 'tools/call', { name: 'shout', arguments: {} }),
      modern(5, 'tools/list', { cursor: 'page-2' }),
      modern(6, 'ping'),
      rpc(7, 'tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } }),
      modern(8, 'tools/call', { name: 'stop', arguments: null }),
      modern(9, 'tools/call', { name: 'stop', arguments: { scope: 'x' } }),
      modern(10, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    ],
    answered: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  },
  {
    name: 'malformed requests',
    lines: [
      rpc(1, 'initialize', {}),
      init(2, '2025-11-25'),
      rpc(3, 'tools/call'),
      rpc(4, 'tools/call', [1]),
      rpc(5, 'tools/call', { name: 7 }),
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping', params: 'x' }),
      JSON.stringify({ jsonrpc: '2.0', id: { nested: true }, method: 'ping' }),
      rpc(8, 'tools/list', { cursor: 5 }),
      rpc(9, 'ping'),
    ],
    answered: [1, 2, 3, 5, 8, 9],
  },
  { name: 'server/discover without _meta', lines: [rpc(1, 'server/discover', {})], answered: [1] },
];

describe('differential conformance: vox mcp against the SDK v2 server', () => {
  for (const s of SCENARIOS) {
    test(s.name, { timeout: 60_000 }, async () => {
      const [voxAnswers, sdkAnswers] = await Promise.all([
        exchange([cli, 'mcp'], s.lines, s.answered),
        exchange([reference], s.lines, s.answered),
      ]);
      const vox = byId(voxAnswers);
      const sdk = byId(sdkAnswers);
      const allowed = ALLOWED[s.name] ?? {};
      for (const key of new Set([...vox.keys(), ...sdk.keys()])) {
        const a = allowed[key];
        if (a) {
          assert.deepEqual(
            { vox: vox.get(key), sdk: sdk.get(key) },
            { vox: a.vox, sdk: a.sdk },
            `${s.name}, ${key}: the allowed difference (${a.why}) changed`,
          );
        } else {
          assert.deepEqual(vox.get(key), sdk.get(key), `${s.name}, request ${key}: vox and the SDK differ`);
        }
      }
      for (const key of Object.keys(allowed))
        assert.ok(
          vox.has(key) || sdk.has(key),
          `${s.name}, ${key}: an allowed difference that no longer occurs; remove it`,
        );
    });
  }

  test('every allowed difference names its scenario and is justified in docs/mcp.md', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(fileURLToPath(new URL('../../../../docs/mcp.md', import.meta.url)), 'utf8');
    for (const name of Object.keys(ALLOWED)) {
      assert.ok(
        SCENARIOS.some((s) => s.name === name),
        name,
      );
      assert.ok(doc.includes(name), `docs/mcp.md justifies "${name}"`);
    }
  });
});
