#!/usr/bin/env node
// Budget (issue 22): the hook path over an ssh forward on loopback at most the
// local path + 3 ms, median. In one run, interleaved, against one voxd (host
// A, null sink) and one `vox remote connect` (host B):
// - the mcp_tool hook: a warm `vox mcp` gets the `tools/call` of vox's hook
//   tool for PermissionRequest (as bench/mcp-tool-hook.mjs), timed to its
//   answer line; one `vox mcp` on A (local), one on B (through the link);
// - `vox hook Notification` as a process per event, on A and on B, with the
//   floor process of each host (bench/floor.cjs: the same POST, nothing
//   else), so that the forward's share and vox's own are told apart;
// - where the time goes: the same POST from this process straight to voxd
//   (TCP) and through the forwarded socket, on a kept-alive connection and on
//   a new one each time (ssh opens a channel, and sshd a TCP connection to
//   voxd, per new connection).
// Medians of BENCH_RUNS (default 100; a third of that for the processes).
// Prints one JSON line. Needs `npm run build`, /usr/sbin/sshd, root.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FLOOR, ROOT, interleave, median, percentile, report, round, substitute, timeRun, warmMcp } from './lib.mjs';
import { startRemote, VOX } from './remote-lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const PROCESS_RUNS = Math.max(10, Math.round(RUNS / 3));
const BUDGET_MS = 3;
const permission = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/hooks/permission-request.json'), 'utf8'));
const notification = readFileSync(join(ROOT, 'test/fixtures/hooks/notification-permission.json'), 'utf8');
const { mcpToolHook } = await import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/claude/hook-entries.js')).href);

/** A warm `vox mcp` with `env`; call() times one hook tool call to its answer line. */
async function mcpServer(env, cwd) {
  const mcp = await warmMcp({ cwd, env: { ...env, VOX_NO_AUTOSTART: '1' }, vox: VOX });
  const { server, rpc } = mcp;
  const entry = mcpToolHook('PermissionRequest', 'vox');
  let n = 0;
  return {
    async call() {
      const args = substitute(entry.input, { ...permission, cwd, session_id: `bench-${server.pid}-${n++}` });
      const { result, ms } = await rpc('tools/call', { name: entry.tool, arguments: args });
      if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
      return ms;
    },
    async stop() {
      await mcp.close();
    },
  };
}

const r = await startRemote();
const servers = [];
try {
  const cwd = join(ROOT, 'bench');
  const local = await mcpServer(r.aClientEnv, cwd);
  const remote = await mcpServer(r.bEnv, cwd);
  servers.push(local, remote);
  let n = 0;
  const kept = {
    tcp: new Agent({ keepAlive: true, maxSockets: 1 }),
    ssh: new Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const post = (via, fresh) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        text: 'ok',
        session: `floor#${n}`,
        dedupKey: `floor ${n++}`,
        priority: 'notification',
      });
      const at = via === 'tcp' ? { host: '127.0.0.1', port: r.port } : { socketPath: r.socket, host: '127.0.0.1' };
      const t0 = process.hrtime.bigint();
      const req = request(
        {
          ...at,
          method: 'POST',
          path: '/v1/speak',
          agent: fresh ? false : kept[via],
          headers: { authorization: `Bearer ${r.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode < 300
              ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const variants = {
    'mcp local': () => local.call(),
    'mcp remote': () => remote.call(),
    'post tcp kept-alive': () => post('tcp', false),
    'post ssh kept-alive': () => post('ssh', false),
    'post tcp new connection': () => post('tcp', true),
    'post ssh new connection': () => post('ssh', true),
  };
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const names = Object.keys(variants);
  for (let round = 0; round < RUNS + 10; round++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length];
      const ms = await variants[name]();
      if (round >= 10) times[name].push(ms);
    }
  }
  // Processes: vox hook and the floor process (bench/floor.cjs) on each host, interleaved.
  const dry = JSON.parse(
    spawnSync(process.execPath, [VOX, 'hook', 'Notification', '--dry-run'], {
      env: r.aClientEnv,
      input: notification,
      encoding: 'utf8',
    }).stdout,
  );
  const processes = {};
  for (const [side, env] of [
    ['local', r.aClientEnv],
    ['remote', r.bEnv],
  ]) {
    const e = { ...env, VOX_NO_AUTOSTART: '1' };
    processes[`hook ${side}`] = () =>
      timeRun(process.execPath, [VOX, 'hook', 'Notification'], { env: e, input: notification, quietStderr: true });
    processes[`floor ${side}`] = () =>
      timeRun(
        process.execPath,
        [FLOOR, dry.route, JSON.stringify({ ...dry.body, session: `floor-${side}#0` }), 'stdin'],
        { env: e, input: notification },
      );
  }
  const ptimes = interleave(processes, PROCESS_RUNS, 2);
  const hookTimes = { local: ptimes['hook local'], remote: ptimes['hook remote'] };
  for (const a of Object.values(kept)) a.destroy();
  const m = (xs) => round(median(xs));
  const mcpDelta = median(times['mcp remote']) - median(times['mcp local']);
  const hookDelta = median(hookTimes.remote) - median(hookTimes.local);
  report({
    bench: 'remote-hook',
    runs: RUNS,
    processRuns: PROCESS_RUNS,
    mcpLocalMedianMs: m(times['mcp local']),
    mcpRemoteMedianMs: m(times['mcp remote']),
    mcpLocalP90Ms: round(percentile(times['mcp local'], 90)),
    mcpRemoteP90Ms: round(percentile(times['mcp remote'], 90)),
    // A tail of ~40 ms is B's delayed ACK meeting Nagle on sshd's side (remote/keeper.ts forwardArgs).
    over30Ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.filter((t) => t > 30).length])),
    postSshKeptP90Ms: round(percentile(times['post ssh kept-alive'], 90)),
    postTcpKeptP90Ms: round(percentile(times['post tcp kept-alive'], 90)),
    mcpDeltaMs: round(mcpDelta),
    mcpRatio: round(median(times['mcp remote']) / median(times['mcp local'])),
    voxHookLocalMedianMs: m(hookTimes.local),
    voxHookRemoteMedianMs: m(hookTimes.remote),
    voxHookDeltaMs: round(hookDelta),
    voxHookRatio: round(median(hookTimes.remote) / median(hookTimes.local)),
    floorProcessLocalMedianMs: m(ptimes['floor local']),
    floorProcessRemoteMedianMs: m(ptimes['floor remote']),
    // What the forward costs a fresh process (a new connection: an ssh channel, and sshd's connection to voxd).
    floorProcessDeltaMs: round(median(ptimes['floor remote']) - median(ptimes['floor local'])),
    // What vox's own client work adds on the remote path beyond that.
    voxHookExtraOverFloorDeltaMs: round(hookDelta - (median(ptimes['floor remote']) - median(ptimes['floor local']))),
    postTcpKeptMs: m(times['post tcp kept-alive']),
    postSshKeptMs: m(times['post ssh kept-alive']),
    postTcpNewMs: m(times['post tcp new connection']),
    postSshNewMs: m(times['post ssh new connection']),
    budgetDeltaMs: BUDGET_MS,
    withinBudget: mcpDelta <= BUDGET_MS && hookDelta <= BUDGET_MS,
  });
} finally {
  for (const s of servers) await s.stop();
  await r.stop();
}
