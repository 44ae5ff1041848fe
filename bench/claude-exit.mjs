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
// CLAUDE_EXIT_SPLIT=1 adds copies of plugin/, each without a part, loaded with
// `--plugin-dir` (where the plugin's cost over its own server goes, issue 32):
// `dir` (all of it), `dirNoMod` (no `modules`), `dirNoHooks` (the mod, no
// hooks), `dirMcpHooks` (the mcp_tool hooks alone), `dirServer` (the server
// alone), `dirEmptyMod` (the server and a mod that does nothing), `dirTrueCmd`
// (the hooks without the mod, the two command hooks running `true`: what any
// command hook costs in Claude Code).
// CLAUDE_EXIT_BASE=DIR adds `pluginBase`: the plugin installed from another
// checkout (built), for a before and after in the same run.
// CLAUDE_EXIT_SIDES=a,b,... times only those sides (`minimal` always).
//
// Why: Claude Code 2.1.332 never closes a stdio MCP server's stdin at exit; it
// sends SIGINT, SIGTERM 100 ms later, SIGKILL 400 ms after that. A `vox mcp`
// deaf to the signals held every exit ~0.5 s (docs/mcp.md, "Ending").
//
// `node bench/claude-exit.mjs [RUNS]` (default 15 per side). With
// CLAUDE_EXIT_DEBUG=DIR, each run writes Claude Code's debug log there.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { ROOT, VOX, cleanEnv, median, percentile, report, round, startVoxd } from './lib.mjs';

/** `plugin` over `minimal`, medians of the same run (issue 32). */
const BUDGET = 1.05;
const runs = Number(process.argv[2] ?? 15);
const debugDir = process.env.CLAUDE_EXIT_DEBUG;
const split = process.env.CLAUDE_EXIT_SPLIT === '1';
const only = process.env.CLAUDE_EXIT_SIDES?.split(',').filter(Boolean);
const baseTree = process.env.CLAUDE_EXIT_BASE;

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

/** A mod that does nothing: what Claude Code's mods cost a plugin by themselves. */
const EMPTY_MOD = `import type { Register } from 'claude-code';
export const register: Register = (on) => {
  on('session.start', async ($, e, next) => next(e));
};
`;

/**
 * The split's copies of plugin/ (CLAUDE_EXIT_SPLIT): each name, and what its
 * hooks.json keeps (undefined: no hooks.json at all).
 */
const isCommand = (entry) => entry.hooks.every((h) => h.type === 'command');
const PLUGIN_PARTS = {
  dir: (h) => h,
  dirNoMod: ({ modules, ...h }) => h,
  dirNoHooks: ({ hooks, ...h }) => h,
  dirMcpHooks: ({ modules, hooks, ...h }) => ({
    ...h,
    hooks: Object.fromEntries(
      Object.entries(hooks)
        .map(([event, entries]) => [event, entries.filter((e) => !isCommand(e))])
        .filter(([, entries]) => entries.length),
    ),
  }),
  dirServer: () => undefined,
  dirEmptyMod: ({ hooks, ...h }) => ({ ...h, modules: ['./empty-mod.ts'] }),
  dirTrueCmd: ({ modules, hooks, ...h }) => ({
    ...h,
    hooks: Object.fromEntries(
      Object.entries(hooks).map(([event, entries]) => [
        event,
        entries.map((e) => (isCommand(e) ? { ...e, hooks: e.hooks.map((x) => ({ ...x, command: 'true' })) } : e)),
      ]),
    ),
  }),
};

/** A copy of plugin/ at `dir` with its hooks.json made by `part`; its bin finds this checkout's vox. */
function pluginCopy(dir, part) {
  cpSync(join(ROOT, 'plugin'), dir, { recursive: true });
  writeFileSync(join(dir, 'vox-install.json'), JSON.stringify({ vox: join(ROOT, 'packages/vox-mcp/bin/vox.cjs') }));
  writeFileSync(join(dir, 'hooks', 'empty-mod.ts'), EMPTY_MOD);
  const file = join(dir, 'hooks', 'hooks.json');
  const hooks = part(JSON.parse(readFileSync(file, 'utf8')));
  if (hooks) writeFileSync(file, JSON.stringify(hooks, null, 2));
  else rmSync(file);
  return dir;
}

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
  const homes = { with: join(root, 'with'), without: join(root, 'without'), base: join(root, 'base') };
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), 'a project\n');
  const envOf = (home) => cleanEnv(offlineClaudeEnv({ home, voxHome: voxd.home, apiUrl: api.url }));
  for (const home of Object.values(homes)) mkdirSync(home, { recursive: true });
  await run(['plugin', 'marketplace', 'add', ROOT], { cwd: homes.with, env: envOf(homes.with) });
  await run(['plugin', 'install', 'vox@vox'], { cwd: homes.with, env: envOf(homes.with) });
  if (baseTree) {
    await run(['plugin', 'marketplace', 'add', baseTree], { cwd: homes.base, env: envOf(homes.base) });
    await run(['plugin', 'install', 'vox@vox'], { cwd: homes.base, env: envOf(homes.base) });
  }

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
    ...(baseTree && { pluginBase: { home: homes.base, args: [] } }),
  };
  if (split)
    for (const [name, part] of Object.entries(PLUGIN_PARTS))
      SIDES[name] = { home: homes.without, args: ['--plugin-dir', pluginCopy(join(root, name), part)] };
  const names = Object.keys(SIDES).filter((n) => !only || n === 'minimal' || only.includes(n));
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
  const has = (name) => names.includes(name);
  const figures = (name) =>
    has(name)
      ? {
          medianMs: round(m(name), 1),
          p90Ms: round(percentile(times[name], 90), 1),
          exitMedianMs: round(median(exits[name]), 1),
        }
      : undefined;
  /** a's median over b's, when both were timed. */
  const over = (a, b) => (has(a) && has(b) ? round(m(a) / m(b), 3) : undefined);
  const pluginToMinimal = over('plugin', 'minimal');
  // The same plugin from CLAUDE_EXIT_BASE's checkout (before), against the minimal server and against this one's.
  const base = baseTree && {
    pluginBase: figures('pluginBase'),
    pluginBaseToMinimal: over('pluginBase', 'minimal'),
    pluginToBase: over('plugin', 'pluginBase'),
  };
  const exitOf = (name) => median(exits[name]);
  const others = names.filter((n) => n !== 'without');
  report({
    bench: 'claude-exit',
    runs,
    without: figures('without'),
    mcp: figures('mcp'),
    plugin: figures('plugin'),
    ratio: over('mcp', 'without'),
    pluginRatio: over('plugin', 'without'),
    minimal: figures('minimal'),
    minimalRatio: over('minimal', 'without'),
    // vox mcp against the least any stdio server costs Claude Code: vox's own share.
    mcpToMinimal: over('mcp', 'minimal'),
    http: figures('http'),
    httpRatio: over('http', 'without'),
    // The exit alone (reply to end), each side against `without`'s: what it adds, and the ratio.
    ...(has('without') && {
      exitAddedMs: Object.fromEntries(others.map((n) => [n, round(exitOf(n) - exitOf('without'), 1)])),
      exitRatio: Object.fromEntries(others.map((n) => [n, round(exitOf(n) / exitOf('without'), 3)])),
    }),
    // The split (CLAUDE_EXIT_SPLIT): each copy's figures, and every side against `minimal`.
    ...(split && {
      split: Object.fromEntries(
        Object.keys(PLUGIN_PARTS)
          .filter(has)
          .map((n) => [n, figures(n)]),
      ),
      toMinimal: Object.fromEntries(names.map((n) => [n, over(n, 'minimal')])),
    }),
    ...base,
    pluginToMinimal,
    budget: BUDGET,
    withinBudget: pluginToMinimal === undefined ? undefined : pluginToMinimal <= BUDGET,
  });
} finally {
  await api.close();
  http.close();
  await voxd.stop();
  rmSync(root, { recursive: true, force: true });
}
