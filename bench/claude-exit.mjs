// What vox's MCP server costs a trivial `claude -p` run, start to exit, and
// its exit alone (from the reply on stdout to the end): the real Claude Code
// (the pinned version, scripts/ci/claude-code.sh) against a loopback stand-in for
// the Messages API (test/helpers/messages-api.ts) that answers "ok", a real
// voxd (null sink). Five sides, interleaved, medians:
// - `without`: `--strict-mcp-config` with no server;
// - `plugin`: the vox plugin installed from this repository's marketplace,
//   its server and its hooks (SessionStart and SessionEnd gated in the shell,
//   tool calls for the rest);
// - `mcp`: `vox mcp` alone (the plugin's server, as its .mcp.json starts it);
// - `minimal`: the floor of any stdio server (answers initialize and
//   tools/list, exits on the first signal). The budget (issue 32, restating
//   issue 19's, which sat below this floor: Claude Code 2.1.332 checks for a
//   stdio server's exit on a fixed 50 ms poll after SIGINT) is `plugin` at
//   most 1.05x `minimal`, medians of the same run (`pluginToMinimal`);
// - `http`: the floor of an HTTP server (no process), reported beside them.
// BENCH_VOX names another vox entry for the `mcp` side (an older build).
//
// Why: Claude Code 2.1.332 never closes a stdio MCP server's stdin at exit; it
// sends SIGINT, SIGTERM 100 ms later, SIGKILL 400 ms after that. A `vox mcp`
// deaf to the signals held every exit ~0.5 s (docs/mcp.md, "Ending").
//
// `node bench/claude-exit.mjs [RUNS]` (default 15 per side). With
// CLAUDE_EXIT_DEBUG=DIR, each run writes Claude Code's debug log there.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { ROOT, VOX, cleanEnv, median, percentile, report, round, startVoxd } from './lib.mjs';

/** `plugin` over `minimal`, medians of the same run (issue 32). */
const BUDGET = 1.05;
const runs = Number(process.argv[2] ?? 15);
const debugDir = process.env.CLAUDE_EXIT_DEBUG;

const { CLAUDE, claudeSkip } = await tsImport('../test/helpers/claude-code.ts', import.meta.url);
if (!CLAUDE) {
  report({ bench: 'claude-exit', skipped: claudeSkip });
  process.exit(0);
}

/**
 * One run (async: the stand-in answers from this process): `ms`, its wall
 * time, and `exitMs`, the exit alone: from the reply on stdout (`-p` prints it
 * once the turn has ended) to the process's end.
 */
function run(args, options) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(CLAUDE, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let replied = t0;
    child.stdout.on('data', (d) => {
      out += d;
      replied = process.hrtime.bigint();
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const end = process.hrtime.bigint();
      if (code !== 0) reject(new Error(`claude ${args.join(' ')} exited ${code}: ${out}`));
      else resolve({ ms: Number(end - t0) / 1e6, exitMs: Number(end - replied) / 1e6 });
    });
  });
}

/** The least a stdio MCP server can be: initialize, one tool, exit at once on SIGINT/SIGTERM. */
const MINIMAL_SERVER = `
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(0));
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    if (m.id === undefined) continue;
    const result = m.method === 'initialize'
      ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'min', version: '1' } }
      : m.method === 'tools/list' ? { tools: [{ name: 'noop', description: 'nothing', inputSchema: { type: 'object' } }] } : {};
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  }
});`;

/**
 * The least an HTTP MCP server can be (what an MCP endpoint inside voxd would
 * cost at most): no process for Claude Code to start or to end. Streamable
 * HTTP, JSON answers, no event stream (GET is 405, as the spec allows).
 */
function startMinimalHttp() {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const m = JSON.parse(body);
      if (m.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        m.method === 'initialize'
          ? {
              protocolVersion: m.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'min-http', version: '1' },
            }
          : m.method === 'tools/list'
            ? { tools: [{ name: 'noop', description: 'nothing', inputSchema: { type: 'object' } }] }
            : {};
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bench' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const { offlineClaudeEnv, startMessagesApi } = await tsImport('../test/helpers/messages-api.ts', import.meta.url);
const api = await startMessagesApi(() => ({ text: 'ok' }));
const root = mkdtempSync(join(tmpdir(), 'vox-bench-claude-exit-'));
const voxd = await startVoxd({ audio: 'null' });
const http = await startMinimalHttp();
try {
  const homes = { with: join(root, 'with'), without: join(root, 'without') };
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), 'a project\n');
  const envOf = (home) => cleanEnv(offlineClaudeEnv({ home, voxHome: voxd.home, apiUrl: api.url }));
  for (const home of Object.values(homes)) mkdirSync(home, { recursive: true });
  await run(['plugin', 'marketplace', 'add', ROOT], { cwd: homes.with, env: envOf(homes.with) });
  await run(['plugin', 'install', 'vox@vox'], { cwd: homes.with, env: envOf(homes.with) });

  const strict = (servers) => ['--strict-mcp-config', '--mcp-config', JSON.stringify({ mcpServers: servers })];
  const SIDES = {
    without: { home: homes.without, args: strict({}) },
    mcp: {
      home: homes.without,
      args: strict({ vox: { type: 'stdio', command: process.execPath, args: [VOX, 'mcp'] } }),
    },
    // The floor for any stdio server: a few lines of node that answer and exit on the first signal.
    minimal: {
      home: homes.without,
      args: strict({ min: { type: 'stdio', command: process.execPath, args: ['-e', MINIMAL_SERVER] } }),
    },
    // The floor for a server that needs no process: an HTTP endpoint on loopback.
    http: {
      home: homes.without,
      args: strict({ min: { type: 'http', url: `http://127.0.0.1:${http.address().port}/mcp` } }),
    },
    plugin: { home: homes.with, args: [] },
  };
  const names = Object.keys(SIDES);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  const exits = Object.fromEntries(names.map((name) => [name, []]));
  let n = 0;
  const once = async (name) => {
    const args = ['-p', 'Say ok.', ...SIDES[name].args];
    if (debugDir) {
      mkdirSync(debugDir, { recursive: true });
      args.push('--debug-file', join(debugDir, `${name}-${++n}.log`));
    }
    return run(args, { cwd: project, env: envOf(SIDES[name].home) });
  };
  // Warm-up: one of each, not counted; then rounds, the order rotating.
  for (const name of names) await once(name);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length];
      const { ms, exitMs } = await once(name);
      times[name].push(ms);
      exits[name].push(exitMs);
    }
  }
  const m = (name) => median(times[name]);
  const figures = (name) => ({
    medianMs: round(m(name), 1),
    p90Ms: round(percentile(times[name], 90), 1),
    exitMedianMs: round(median(exits[name]), 1),
  });
  const ratio = m('mcp') / m('without');
  const pluginRatio = m('plugin') / m('without');
  const pluginToMinimal = m('plugin') / m('minimal');
  const exitOf = (name) => median(exits[name]);
  report({
    bench: 'claude-exit',
    runs,
    without: figures('without'),
    mcp: figures('mcp'),
    plugin: figures('plugin'),
    ratio: round(ratio, 3),
    pluginRatio: round(pluginRatio, 3),
    minimal: figures('minimal'),
    minimalRatio: round(m('minimal') / m('without'), 3),
    // vox mcp against the least any stdio server costs Claude Code: vox's own share.
    mcpToMinimal: round(m('mcp') / m('minimal'), 3),
    http: figures('http'),
    httpRatio: round(m('http') / m('without'), 3),
    // The exit alone (reply to end), each side against `without`'s: what it adds, and the ratio.
    exitAddedMs: Object.fromEntries(
      names.filter((n) => n !== 'without').map((n) => [n, round(exitOf(n) - exitOf('without'), 1)]),
    ),
    exitRatio: Object.fromEntries(
      names.filter((n) => n !== 'without').map((n) => [n, round(exitOf(n) / exitOf('without'), 3)]),
    ),
    pluginToMinimal: round(pluginToMinimal, 3),
    budget: BUDGET,
    withinBudget: pluginToMinimal <= BUDGET,
  });
} finally {
  await api.close();
  http.close();
  await voxd.stop();
  rmSync(root, { recursive: true, force: true });
}
