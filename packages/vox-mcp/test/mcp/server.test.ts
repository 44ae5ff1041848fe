// The MCP server's parts in-process: the JSON-RPC layer, the input checks, the
// stdio framing with injected streams, and what `vox mcp` loads.
// The whole server against a real voxd is test/mcp.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '@vox/protocol';
import { wavSeconds } from '../../src/client/recording.js';
import { PROTOCOL_VERSIONS } from '../../src/mcp/protocol.js';
import { allowedText, checkInput, type InputSchema } from '../../src/mcp/schema.js';
import { createVoxMcp } from '../../src/mcp/server.js';
import { serveStdio } from '../../src/mcp/stdio.js';
import { toolResult, type McpTool } from '../../src/mcp/tool.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'vox-mcp-unit-')));
  dirs.push(d);
  return d;
}

/** A server whose tools can never reach a daemon: autostart off, an empty VOX_HOME. */
function offline() {
  const dir = tempDir();
  const logs: string[] = [];
  const mcp = createVoxMcp({
    env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1', VOXD_PORT: '0' },
    cwd: dir,
    log: (l) => logs.push(l),
  });
  return { mcp, dir, logs };
}

const rpc = (id: number | string, method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

describe('JSON-RPC layer', () => {
  test('speaks the protocol versions the SDK supports', () => {
    assert.deepEqual([...PROTOCOL_VERSIONS], [...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  test('initialize echoes a supported version, answers an unknown one with the newest', async () => {
    const { mcp } = offline();
    const known = (await mcp.handle(
      rpc(1, 'initialize', {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    )) as {
      id: number;
      result: {
        protocolVersion: string;
        capabilities: object;
        serverInfo: { name: string; version: string };
        instructions: string;
      };
    };
    assert.equal(known.id, 1);
    assert.equal(known.result.protocolVersion, '2025-03-26');
    assert.deepEqual(known.result.capabilities, {
      tools: { listChanged: false },
      experimental: { 'claude/channel': {}, 'claude/channel/permission': {} },
    });
    assert.equal(known.result.serverInfo.name, 'vox');
    assert.equal(known.result.serverInfo.version, VERSION);
    assert.match(known.result.instructions, /speak/);
    const future = (await mcp.handle(
      rpc('a', 'initialize', {
        protocolVersion: '2099-01-01',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    )) as { id: string; result: { protocolVersion: string } };
    assert.equal(future.id, 'a');
    assert.equal(future.result.protocolVersion, PROTOCOL_VERSIONS[0]);
    const incomplete = (await mcp.handle(rpc('b', 'initialize', {}))) as { error: { code: number } };
    assert.equal(incomplete.error.code, -32602, 'initialize needs protocolVersion, capabilities and clientInfo');
  });

  test('ping, notifications, responses, unknown methods and malformed messages', async () => {
    const { mcp } = offline();
    assert.deepEqual(await mcp.handle(rpc(2, 'ping')), { jsonrpc: '2.0', id: 2, result: {} });
    assert.equal(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }), undefined);
    assert.equal(
      await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }),
      undefined,
    );
    assert.equal(await mcp.handle({ jsonrpc: '2.0', id: 7, result: {} }), undefined);
    const error = async (m: unknown) =>
      (await mcp.handle(m)) as { id?: unknown; error?: { code: number; message: string } };
    assert.equal((await error(rpc(3, 'resources/list'))).error?.code, -32601);
    assert.equal((await error({ id: 4, method: 'ping' })).error?.code, -32600, 'jsonrpc 2.0 is required');
    assert.equal((await error({ jsonrpc: '2.0', id: 5 })).error?.code, -32600);
    const notObject = await error('ping');
    assert.equal(notObject.error?.code, -32600);
    assert.equal('id' in notObject, false, 'an unreadable id is left out, never null');
    assert.equal((await error(rpc(6, 'tools/call', [1, 2]))).error?.code, -32602);
    assert.equal((await error(rpc(7, 'tools/call', { arguments: {} }))).error?.code, -32602, 'tools/call needs a name');
  });

  test('tools/call: an unknown tool, arguments that are not an object and a cursor are JSON-RPC errors -32602; bad values are isError results', async () => {
    const { mcp } = offline();
    const error = async (m: unknown) => ((await mcp.handle(m)) as { error?: { code: number; message: string } }).error;
    assert.deepEqual(await error(rpc(1, 'tools/call', { name: 'shout', arguments: {} })), {
      code: -32602,
      message: 'Unknown tool: shout',
    });
    // {"arguments": null} fails the CallToolRequest schema: the tool must not run.
    const nullArgs = await error(rpc(2, 'tools/call', { name: 'stop', arguments: null }));
    assert.equal(nullArgs?.code, -32602);
    assert.match(nullArgs!.message, /arguments must be an object/);
    assert.equal((await error(rpc(3, 'tools/call', { name: 'stop', arguments: 'all' })))?.code, -32602);
    const cursor = await error(rpc(4, 'tools/list', { cursor: 'page-2' }));
    assert.equal(cursor?.code, -32602);
    assert.match(cursor!.message, /Invalid cursor/);
    const noArgs = (await mcp.handle(rpc(5, 'tools/call', { name: 'stop' }))) as { result: { isError?: boolean } };
    assert.equal(noArgs.result.isError, undefined, 'arguments may be left out');
    const bad = (await mcp.handle(rpc(6, 'tools/call', { name: 'stop', arguments: { scope: 'x' } }))) as {
      result: { isError?: boolean };
    };
    assert.equal(bad.result.isError, true, 'input validation is a tool execution error, for the model to correct');
  });

  test('dual era: server/discover and per-request _meta (2026-07-28) beside initialize (2025-11-25 and older)', async () => {
    const { mcp } = offline();
    const meta = (v = '2026-07-28') => ({
      _meta: {
        'io.modelcontextprotocol/protocolVersion': v,
        'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    const discover = (await mcp.handle(rpc(1, 'server/discover', meta()))) as { result: Record<string, unknown> };
    assert.deepEqual(discover.result.supportedVersions, ['2026-07-28']);
    assert.deepEqual(discover.result.capabilities, {
      tools: { listChanged: false },
      experimental: { 'claude/channel': {}, 'claude/channel/permission': {} },
    });
    assert.equal(discover.result.resultType, 'complete');
    assert.equal(typeof discover.result.ttlMs, 'number');
    assert.equal(discover.result.cacheScope, 'public');
    assert.match(discover.result.instructions as string, /speak/);
    assert.deepEqual(
      (discover.result._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']!.name,
      'vox',
    );
    // The probe without _meta is answered too (servers MUST implement it).
    assert.ok(((await mcp.handle(rpc(2, 'server/discover'))) as { result?: object }).result);

    const list = (await mcp.handle(rpc(3, 'tools/list', meta()))) as { result: Record<string, unknown> };
    assert.equal(list.result.resultType, 'complete');
    assert.equal(list.result.cacheScope, 'public');
    assert.ok((list.result.tools as unknown[]).length >= 6);
    const call = (await mcp.handle(rpc(4, 'tools/call', { ...meta(), name: 'stop', arguments: {} }))) as {
      result: Record<string, unknown>;
    };
    assert.equal(call.result.resultType, 'complete');
    assert.ok(call.result.structuredContent);

    const unsupported = (await mcp.handle(rpc(5, 'tools/list', meta('1999-01-01')))) as {
      error: { code: number; data: unknown };
    };
    assert.equal(unsupported.error.code, -32022);
    assert.deepEqual(unsupported.error.data, { supported: ['2026-07-28'], requested: '1999-01-01' });
    const noCaps = (await mcp.handle(
      rpc(6, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    )) as { error: { code: number } };
    assert.equal(noCaps.error.code, -32602, 'the envelope needs the client capabilities');
    assert.equal(
      ((await mcp.handle(rpc(7, 'ping', meta()))) as { error: { code: number } }).error.code,
      -32601,
      '2026-07-28 removed ping',
    );

    // Legacy: initialize negotiates; results keep the old shape.
    const init = (await mcp.handle(
      rpc(8, 'initialize', {
        protocolVersion: '2026-07-28',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    )) as { result: { protocolVersion: string } };
    assert.equal(
      init.result.protocolVersion,
      '2025-11-25',
      'initialize is legacy: a modern version asked there gets the newest legacy one',
    );
    const legacyList = (await mcp.handle(rpc(9, 'tools/list'))) as { result: Record<string, unknown> };
    assert.equal('resultType' in legacyList.result, false);
    assert.equal('ttlMs' in legacyList.result, false);
  });

  test('batches: answered under 2025-03-26, refused with one -32600 after 2025-06-18 or before initialize', async () => {
    const { mcp } = offline();
    const before = (await mcp.handle([rpc(1, 'ping')])) as { id?: unknown; error: { code: number } };
    assert.equal(before.error.code, -32600);
    assert.equal('id' in before, false);
    await mcp.handle(
      rpc(2, 'initialize', {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    const answers = (await mcp.handle([
      rpc(3, 'ping'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      rpc(4, 'tools/list'),
    ])) as Array<{ id: number }>;
    assert.deepEqual(
      answers.map((a) => a.id),
      [3, 4],
    );
    await mcp.handle(
      rpc(5, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    const after = (await mcp.handle([rpc(6, 'ping')])) as { error: { code: number; message: string } };
    assert.equal(after.error.code, -32600);
    assert.match(after.error.message, /batches/);
  });

  test('notifications/cancelled: the cancelled request gets no answer and its tool sees the abort', async () => {
    const dir = tempDir();
    let release: () => void = () => {};
    const seen: boolean[] = [];
    const slow: McpTool = {
      name: 'slow',
      description: 'Waits until released, for this test.',
      input: { type: 'object', properties: {} },
      async run(_args, ctx) {
        await new Promise<void>((r) => (release = r));
        seen.push(ctx.signal.aborted);
        return toolResult({ done: true });
      },
    };
    const mcp = createVoxMcp({
      env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1' },
      cwd: dir,
      log: () => {},
      tools: [slow],
    });
    const answer = mcp.handle(rpc(41, 'tools/call', { name: 'slow', arguments: {} }));
    await new Promise((r) => setImmediate(r));
    assert.equal(
      await mcp.handle({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 41, reason: 'user' },
      }),
      undefined,
    );
    release();
    assert.equal(await answer, undefined, 'no response for a cancelled request');
    assert.deepEqual(seen, [true]);
    // Another request with the same id afterwards is answered as usual.
    const again = mcp.handle(rpc(41, 'tools/call', { name: 'slow', arguments: {} }));
    await new Promise((r) => setImmediate(r));
    release();
    assert.deepEqual(((await again) as { result: { structuredContent: unknown } }).result.structuredContent, {
      done: true,
    });
  });

  test('tools/list: seven tools, each with a description and an object input schema', async () => {
    const { mcp } = offline();
    const tools = await mcp.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['speak', 'stop', 'voices', 'status', 'configure', 'record', 'recap'],
    );
    for (const t of tools) {
      assert.ok(t.description && t.description.length > 40, t.name);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema?.type, 'object', `${t.name} declares its output`);
    }
    const configure = tools.find((t) => t.name === 'configure')!;
    const rate = (configure.inputSchema.properties as Record<string, InputSchema>).rate!;
    assert.deepEqual(rate.type, ['number', 'null']);
    assert.match(rate.description!, /80 to 500/);
    const engine = (configure.inputSchema.properties as Record<string, InputSchema>).engine!;
    assert.ok(engine.enum!.includes('espeak') && engine.enum!.includes(null));
  });

  test('a tool never throws: bad input, a missing daemon and a bad config are isError results', async () => {
    const { mcp, dir } = offline();
    const missing = await mcp.callTool('speak', {});
    assert.equal(missing.isError, true);
    const notObject = await mcp.callTool('speak', 'hello');
    assert.equal(notObject.isError, true);
    const down = await mcp.callTool('speak', { text: 'Anyone there?' });
    assert.equal(down.isError, true);
    assert.match((down.content[0] as { text: string }).text, /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/);
    const stop = await mcp.callTool('stop', {});
    assert.equal(stop.isError, undefined, 'no voxd, nothing to stop: not an error');
    // The labels hold the process's other servers' too (one process per session in real use).
    assert.deepEqual(
      { ...stop.structuredContent, session: undefined, sessions: undefined },
      { scope: 'session', session: undefined, sessions: undefined, stopped: [], why: 'voxd is not running' },
    );
    assert.equal(
      (stop.content[0] as { text: string }).text,
      JSON.stringify(stop.structuredContent),
      'the text block is the serialized JSON',
    );
    const configured = await mcp.callTool('configure', { rate: 9000 });
    assert.equal(configured.isError, true);
    assert.ok((configured.content[0] as { text: string }).text.includes(join(dir, '.vox', 'config.md')));
  });
});

describe('tools from other modules', () => {
  test('a tool passed in options is listed and called with checked input and the session context; a hidden one is callable, not listed', async () => {
    const dir = tempDir();
    const seen: Array<{ args: Record<string, unknown>; session: string; cwd: string }> = [];
    const echo: McpTool = {
      name: 'echo',
      description: 'Echoes its word back, for this test.',
      input: {
        type: 'object',
        properties: { word: { type: 'string', minLength: 1 } },
        required: ['word'],
        additionalProperties: false,
      },
      async run(args, ctx) {
        seen.push({ args, session: await ctx.session(), cwd: ctx.cwd });
        return toolResult({ word: args.word });
      },
    };
    const plumbing: McpTool = { ...echo, name: 'plumbing', hidden: true };
    const mcp = createVoxMcp({
      env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1', VOX_SESSION_ID: 'abc123' },
      cwd: dir,
      log: () => {},
      tools: [echo, plumbing],
    });
    const names = (await mcp.listTools()).map((t) => t.name);
    assert.ok(names.includes('echo') && names.includes('speak'));
    assert.ok(!names.includes('plumbing'), 'a hidden tool is not offered to the model');
    const r = await mcp.callTool('echo', { word: 'hi' });
    assert.deepEqual(r.structuredContent, { word: 'hi' });
    assert.equal((r.content[0] as { text: string }).text, '{"word":"hi"}');
    const bad = await mcp.callTool('echo', { word: '' });
    assert.equal(bad.isError, true, 'the input schema is checked before run');
    const hidden = await mcp.callTool('plumbing', { word: 'ho' });
    assert.deepEqual(hidden.structuredContent, { word: 'ho' });
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.session, /#abc123$/);
    assert.equal(seen[0]!.cwd, dir);
    assert.throws(
      () => createVoxMcp({ env: {}, cwd: dir, log: () => {}, tools: [{ ...echo, name: 'speak' }] }),
      /two tools are named "speak"/,
    );
  });

  test('notifications/initialized warms each tool once, in the background, and its calls never start voxd', async () => {
    const dir = tempDir();
    const warmed: Array<{ cwd: string; status: number | string }> = [];
    const warm: McpTool = {
      name: 'warmable',
      description: 'warms',
      input: { type: 'object', properties: {} },
      hidden: true,
      async run() {
        return toolResult({});
      },
      async warm(ctx) {
        // With autostart on in the session's env, the warm-up's own calls still start nothing.
        const status = await ctx.call('GET', '/v1/health').then(
          (r) => r.status,
          (e: Error & { code?: string }) => e.code ?? e.message,
        );
        warmed.push({ cwd: ctx.cwd, status });
      },
    };
    const home = join(dir, 'home');
    const mcp = createVoxMcp({ env: { VOX_HOME: home, VOXD_PORT: '9' }, cwd: dir, log: () => {}, tools: [warm] });
    assert.equal(
      await mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      undefined,
      'a notification gets no answer',
    );
    assert.equal(warmed.length, 0, 'not in the same turn: the notification is answered first');
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (let i = 0; i < 200 && warmed.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(warmed.length, 1, 'warmed once, however often the client says initialized');
    assert.equal(warmed[0]!.cwd, dir);
    assert.match(String(warmed[0]!.status), /NOT_RUNNING|VOX_ERR/, 'no voxd: the call fails rather than starting one');
    assert.equal(existsSync(join(home, 'voxd.json')), false, 'no voxd was started');
  });
});

describe('input checks', () => {
  const schema: InputSchema = {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 10 },
      rate: { type: 'number', minimum: 80, maximum: 500 },
      count: { type: 'integer', minimum: 1 },
      mode: { type: 'string', enum: ['a', 'b'] },
      either: { type: ['boolean', 'string', 'null'] },
    },
    required: ['text'],
    additionalProperties: false,
  };

  test('accepts what the schema allows', () => {
    assert.deepEqual(checkInput(schema, { text: 'hi', rate: 80, count: 3, mode: 'b', either: null }), []);
    assert.deepEqual(checkInput(schema, { text: 'hi', rate: 175.5, either: 'x' }), []);
  });

  test('names each field and what it allows', () => {
    assert.deepEqual(checkInput(schema, {}), ['"text" is required: a text of 1 to 10 characters']);
    assert.deepEqual(checkInput(schema, { text: '   ' }), ['text must be a text of 1 to 10 characters, got "   "']);
    assert.deepEqual(checkInput(schema, { text: 'x', rate: 'fast' }), [
      'rate must be a number from 80 to 500, got "fast"',
    ]);
    assert.deepEqual(checkInput(schema, { text: 'x', rate: 501 }), ['rate must be a number from 80 to 500, got 501']);
    assert.deepEqual(checkInput(schema, { text: 'x', count: 1.5 }), [
      'count must be a whole number of at least 1, got 1.5',
    ]);
    assert.deepEqual(checkInput(schema, { text: 'x', mode: 'c' }), ['mode must be one of a, b, got "c"']);
    assert.deepEqual(checkInput(schema, { text: 'x', either: 3 }), ['either must be boolean or a text or null, got 3']);
    assert.deepEqual(checkInput(schema, { text: 'x', colour: 'red' }), [
      'unknown field "colour"; allowed: text, rate, count, mode, either',
    ]);
    assert.equal(
      checkInput(schema, { text: 'x'.repeat(200) })[0],
      'text must be a text of 1 to 10 characters, got 200 characters',
    );
    assert.deepEqual(checkInput(schema, []), ['the input must be an object, got []']);
    assert.equal(allowedText({ type: 'number', maximum: 3 }), 'a number of at most 3');
  });
});

test('wavSeconds reads the duration from the header', () => {
  const rate = 22050;
  const data = Buffer.alloc(rate * 2 * 1.5); // 1.5 s of 16-bit mono
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  assert.equal(wavSeconds(Buffer.concat([header, data])), 1.5);
  assert.equal(wavSeconds(Buffer.from('not a wav file at all')), undefined);
});

describe('stdio framing (injected streams)', () => {
  function start() {
    const dir = tempDir();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const done = serveStdio({
      env: { VOX_HOME: join(dir, 'home'), VOX_NO_AUTOSTART: '1' },
      cwd: dir,
      stdin,
      stdout,
      stderr,
    });
    return { stdin, done, out: () => out, err: () => err };
  }

  test('one line per message; CRLF, batches and a parse error; answers everything before ending', async () => {
    const s = start();
    s.stdin.write(
      `${JSON.stringify(rpc(0, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } }))}\n`,
    );
    s.stdin.write(`${JSON.stringify(rpc(1, 'ping'))}\r\n`);
    s.stdin.write(
      `${JSON.stringify([rpc(2, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }, rpc(3, 'tools/list')])}\n`,
    );
    s.stdin.write('{"broken\n');
    // A request split across writes, and the last one without a newline.
    const last = JSON.stringify(rpc(4, 'tools/call', { name: 'speak', arguments: {} }));
    s.stdin.write(last.slice(0, 10));
    s.stdin.end(last.slice(10));
    assert.equal(await s.done, 0);
    const lines = s.out().split('\n');
    assert.equal(lines.pop(), '', 'every message ends with a newline');
    const messages = lines.map((l) => JSON.parse(l) as unknown);
    assert.equal(messages.length, 5);
    assert.deepEqual(
      messages.find((m) => (m as { id?: unknown }).id === 1),
      { jsonrpc: '2.0', id: 1, result: {} },
    );
    const batch = messages.find(Array.isArray) as Array<{ id: number }>;
    assert.deepEqual(
      batch.map((m) => m.id),
      [2, 3],
    );
    const parse = messages.find((m) => !Array.isArray(m) && !('id' in (m as object))) as { error: { code: number } };
    assert.equal(
      parse.error.code,
      -32700,
      'a parse error, its id left out (the SDK message schema rejects "id": null)',
    );
    const call = messages.find((m) => (m as { id?: unknown }).id === 4) as { result: { isError: boolean } };
    assert.equal(call.result.isError, true);
    assert.match(s.err(), /not JSON/);
  });
});

test('vox mcp loads no daemon code, no engine, no HTTP framework and no SDK runtime', () => {
  // Follow every import (static, and dynamic with a literal specifier) from the command's module.
  const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(join(dist, 'cli', 'commands', 'mcp.js'));
  const forbidden = /^(fastify|undici|voxd|pino|speaker|@echogarden\/|@modelcontextprotocol\/sdk|zod|ajv)(\/|$)/;
  const loaded = [...bare].filter((s) => forbidden.test(s));
  assert.deepEqual(loaded, [], `vox mcp imports ${loaded.join(', ')}`);
  assert.ok(bare.has('@vox/protocol'));
  for (const file of seen) assert.ok(file.startsWith(dist), `${file} is outside vox-mcp`);
  assert.ok(
    [...seen].some((f) => f.endsWith(join('client', 'call.js'))),
    'the walk reached the lazily imported modules',
  );
});
