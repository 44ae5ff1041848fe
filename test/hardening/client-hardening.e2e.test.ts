// The client against misbehaving parties: a server on voxd's port that
// trickles, stalls, half-closes or is not voxd; corrupt or foreign voxd.json;
// a huge .vox/config.md; escape sequences in what `vox status` prints.
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  cleanEnv,
  FIXTURES,
  http,
  removeHomes,
  startDaemon,
  tempDir,
  vox,
  VOX,
  waitFor,
  writeSettings,
} from '../helpers/daemon.js';

const homes: string[] = [];
const servers: { close(): void }[] = [];
const sockets = new Set<Socket>();
after(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
  await removeHomes(homes);
});

function home(): string {
  const h = tempDir('vox-client-');
  homes.push(h);
  return h;
}

type Kind = 'trickle' | 'stall' | 'half-close' | 'foreign';

/** A fake server on 127.0.0.1 that misbehaves as `kind` says. */
async function fake(kind: Kind): Promise<number> {
  let server: Server;
  if (kind === 'foreign') {
    const h = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    server = h as unknown as Server;
  } else {
    server = createServer({ allowHalfOpen: true }, (socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
      socket.once('data', () => {
        if (kind === 'half-close') socket.end();
        if (kind === 'trickle') {
          // A valid voxd-looking answer, one byte every 500 ms: no idle timeout ever fires.
          const answer = Buffer.from(
            'HTTP/1.1 200 OK\r\nx-voxd-version: 0.1.0\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"id":"x","status":"played"}          ',
          );
          let i = 0;
          const t = setInterval(() => {
            if (i >= answer.length || socket.destroyed) return clearInterval(t);
            socket.write(answer.subarray(i, ++i));
          }, 500);
          socket.on('close', () => clearInterval(t));
        }
        // stall: accept, read, never answer.
      });
    });
  }
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

const hookPayload = readFileSync(join(FIXTURES, 'hooks/notification-idle.json'), 'utf8');

async function mcpSpeak(env: NodeJS.ProcessEnv): Promise<CallToolResult & { text: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [VOX, 'mcp'],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vox-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = (await client.callTool({ name: 'speak', arguments: { text: 'hello there' } }, undefined, {
      timeout: 60_000,
    })) as CallToolResult;
    const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    return { ...r, text };
  } finally {
    await client.close();
  }
}

const expected: Record<Kind, RegExp> = {
  trickle: /VOX_ERR_CLIENT_DAEMON_UNREACHABLE.*no complete answer within/,
  stall: /VOX_ERR_CLIENT_DAEMON_UNREACHABLE.*no complete answer within/,
  // A hang-up is what a killed voxd does too: the client starts voxd, which cannot take the port.
  'half-close': /VOX_ERR_CLIENT_DAEMON_(EXITED|START_FAILED|UNREACHABLE)/,
  foreign: /VOX_ERR_CLIENT_NOT_VOXD.*x-voxd-version/,
};

describe('every client call has a total deadline, and talks only to voxd', () => {
  for (const kind of ['trickle', 'stall', 'half-close', 'foreign'] as const) {
    test(`${kind}: vox say, say --wait, hook Notification and MCP speak fail clearly`, async () => {
      const port = await fake(kind);
      const env = cleanEnv(home(), { VOXD_PORT: String(port) });

      const say = await vox(['say', '--timeout', '3', 'hello there'], { env });
      assert.equal(say.code, 3, say.stderr);
      assert.match(say.stderr, expected[kind]);
      assert.doesNotMatch(say.stderr, /undefined/);

      const wait = await vox(['say', '--wait', '--timeout', '3', 'hello there'], { env });
      assert.equal(wait.code, 3, wait.stderr);
      assert.match(wait.stderr, expected[kind]);

      const hook = await vox(['hook', 'Notification'], { env, input: hookPayload });
      assert.equal(hook.code, 0, hook.stderr);
      assert.match(hook.stderr, /^vox hook: /);
      assert.match(
        hook.stderr,
        kind === 'foreign'
          ? /VOX_ERR_CLIENT_NOT_VOXD/
          : kind === 'half-close'
            ? expected[kind]
            : /VOX_ERR_CLIENT_DAEMON_UNREACHABLE/,
      );
      assert.equal(hook.stderr.trim().split('\n').length, 1, hook.stderr);

      const r = await mcpSpeak(env);
      assert.equal(r.isError, true, r.text);
      assert.match(
        r.text,
        kind === 'foreign'
          ? /VOX_ERR_CLIENT_NOT_VOXD|not voxd/
          : kind === 'half-close'
            ? /voxd exited|did not answer|cannot reach/
            : /no complete answer/,
      );
    });
  }
});

describe('voxd.json: corrupt or foreign never fools a client nor blocks voxd', () => {
  const shapes: Record<string, (foreignPort: number) => string> = {
    garbage: () => '\x00\x01not json at all',
    truncated: () => '{"pid": 12, "port": 84',
    'wrong types': () => JSON.stringify({ pid: 'x', port: 'abc', host: 7 }),
    'foreign port, live pid': (p) => JSON.stringify({ pid: process.pid, host: '127.0.0.1', port: p, version: '0.1.0' }),
  };
  for (const [name, shape] of Object.entries(shapes)) {
    test(`${name}: vox say starts a real voxd, which rewrites voxd.json`, async () => {
      const foreignPort = await fake('foreign');
      const h = home();
      const env = cleanEnv(h, { VOXD_PORT: '0' });
      writeSettings(env, { audio: `file:${join(h, 'out')}`, engine: 'espeak' });
      mkdirSync(h, { recursive: true });
      writeFileSync(join(h, 'voxd.json'), shape(foreignPort));
      const say = await vox(['say', 'hello there'], { env });
      assert.equal(say.code, 0, say.stderr);
      const state = JSON.parse(readFileSync(join(h, 'voxd.json'), 'utf8'));
      assert.notEqual(state.port, foreignPort);
      const health = await http(state.port, 'GET', '/v1/health');
      assert.equal(health.status, 200);
      assert.equal(typeof health.headers['x-voxd-version'], 'string');
    });
  }

  test('a foreign voxd.json with autostart off is a clear error, not exit 0', async () => {
    const foreignPort = await fake('foreign');
    const h = home();
    mkdirSync(h, { recursive: true });
    writeFileSync(join(h, 'voxd.json'), JSON.stringify({ pid: process.pid, host: '127.0.0.1', port: foreignPort }));
    const say = await vox(['say', 'hello there'], { env: cleanEnv(h, { VOX_NO_AUTOSTART: '1' }) });
    assert.equal(say.code, 3, say.stderr);
    assert.match(say.stderr, /VOX_ERR_CLIENT_NOT_VOXD/);
  });
});

describe('a huge .vox/config.md', () => {
  test('4 MB: vox say exits 7 and vox hook 0, naming the file, its size and the cap, in a few KB of stderr', async () => {
    const d = await startDaemon();
    const project = tempDir('vox-bigcfg-');
    homes.push(project);
    mkdirSync(join(project, '.vox'));
    const big = `---\nvoice: x\n${'junk: [1, 2, 3]\n'.repeat((4 * 1024 * 1024) / 16)}---\n`;
    writeFileSync(join(project, '.vox/config.md'), big);
    const env = { ...d.env };
    const say = await vox(['say', 'hello'], { env, cwd: project });
    assert.equal(say.code, 7, say.stderr);
    assert.match(say.stderr, /config\.md/);
    assert.match(say.stderr, new RegExp(`${Buffer.byteLength(big)} bytes`));
    assert.match(say.stderr, /65536-byte/);
    assert.ok(say.stderr.length < 4096, `stderr is ${say.stderr.length} bytes`);
    const payload = JSON.stringify({ ...JSON.parse(hookPayload), cwd: project });
    const hook = await vox(['hook', 'Notification'], { env, cwd: project, input: payload });
    assert.equal(hook.code, 0);
    assert.match(hook.stderr, /config\.md.*65536-byte/);
    assert.ok(hook.stderr.length < 4096, `stderr is ${hook.stderr.length} bytes`);
  });
});

describe('vox status prints wire text safely', () => {
  test('escape sequences in a session label and a text are shown, not obeyed', async () => {
    const d = await startDaemon();
    const evil = 'clear\u001b[2J\u001b]0;title\u0007\u009b31m';
    const r = await http(d.port, 'POST', '/v1/speak', {
      token: d.token,
      body: { text: `hi ${evil}`, session: `s${evil}`, wait: true },
    });
    assert.ok(r.status < 300, JSON.stringify(r.body));
    await waitFor(
      async () =>
        (await http(d.port, 'GET', '/v1/status', { token: d.token })).body.history?.length ? true : undefined,
      20_000,
      'history',
    );
    const st = await vox(['status'], { env: d.env });
    assert.equal(st.code, 0, st.stderr);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(st.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    assert.match(st.stdout, /clear\\x1b\[2J/);
  });
});
