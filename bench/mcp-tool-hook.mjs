#!/usr/bin/env node
// Budget (issue 12): a hook event to voxd's accept over the mcp_tool path, at
// most 5 ms median. A warm `vox mcp` (started and initialized once, as Claude
// Code keeps it for the session) gets the `tools/call` of the hook tool that
// Claude Code sends for vox's PermissionRequest entry (the fixture's fields
// substituted into the entry's input), one JSON line on its stdin; the time
// runs until its answer line arrives, which vox mcp writes after voxd has
// accepted the request (so the figure is an upper bound of "to accept").
// Each call has its own session id, so none is a duplicate.
// Baseline in the same run, interleaved: the same request POSTed by this
// process straight to voxd over a kept-alive node:http connection, the least
// any path can cost. Also for comparison: `vox hook` as a process per event
// (what command hooks pay). Medians of BENCH_RUNS (default 200; 30 for the
// process). Prints one JSON line. Needs `npm run build` first.
//
// And a MessageDisplay batch (issue 32 item 6: ≤ a do-nothing server's +
// 2 ms, median): the hook tool's call for one batch of a narrating project
// (`narrate: stream`), as Claude Code substitutes vox's MessageDisplay entry,
// against the same line to a server that answers every call at once and does
// nothing (bench/floor-mcp.cjs), interleaved in the same run.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, VOX, median, percentile, report, round, startVoxd, substitute, timeRun, warmMcp } from './lib.mjs';

const RUNS = Math.max(50, Number(process.env.BENCH_RUNS ?? 200));
const PROCESS_RUNS = 30;
const BUDGET_MS = 5;
/** A MessageDisplay batch: at most this much over a do-nothing server's, median (issue 32). */
const BATCH_BUDGET_MS = 2;
const FIXTURE = 'permission-request.json';
const payload = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', FIXTURE), 'utf8'));
const { mcpToolHook } = await import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/claude/hook-entries.js')).href);

const d = await startVoxd({ audio: 'null' });
const cwd = join(d.home, 'api');
// The batches' project narrates; the PermissionRequest's has no config (as before).
const narrating = join(d.home, 'narrating');
mkdirSync(join(narrating, '.vox'), { recursive: true });
writeFileSync(join(narrating, '.vox', 'config.md'), '---\nnarrate: stream\n---\n');
const env = { ...d.env, VOX_NO_AUTOSTART: '1' };
const mcp = await warmMcp({ cwd: d.home, env });
const { server, rpc } = mcp;
const nothing = await warmMcp({
  cwd: d.home,
  env,
  args: [
    join(ROOT, 'bench', 'floor-mcp.cjs'),
    JSON.stringify({
      initialize: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'nothing', version: '1' },
      },
      'tools/call': { content: [] },
    }),
  ],
});
try {
  let n = 0;
  const event = () => ({ ...payload, cwd, session_id: `bench-${process.pid}-${n++}` });
  const entry = mcpToolHook('PermissionRequest', 'vox');
  const viaMcp = async () => {
    const { result, ms } = await rpc('tools/call', { name: entry.tool, arguments: substitute(entry.input, event()) });
    if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
    return ms;
  };

  // The same request, straight from here, on a kept-alive connection.
  const dry = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VOX, 'hook', 'PermissionRequest', '--dry-run'], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (out += s));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`vox hook --dry-run exited ${code}`)),
    );
    child.stdin.end(JSON.stringify(event()));
  });
  const token = readFileSync(join(d.home, 'token'), 'utf8').trim();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const direct = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ ...dry.body, session: `direct#${n}`, dedupKey: `direct ${n++}` });
      const t0 = process.hrtime.bigint();
      const req = request(
        {
          host: '127.0.0.1',
          port: d.port,
          method: 'POST',
          path: dry.route,
          agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
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

  // MessageDisplay batches: one message of many batches, a sentence each, as a reply streams.
  const batchEntry = mcpToolHook('MessageDisplay', 'vox');
  const session = `bench-batch-${process.pid}`;
  let batch = 0;
  const batchArgs = () =>
    substitute(batchEntry.input, {
      session_id: session,
      cwd: narrating,
      hook_event_name: 'MessageDisplay',
      message_id: `msg_bench_${Math.floor(batch / 50)}`,
      index: batch % 50,
      final: batch++ % 50 === 49,
      delta: 'The tests pass now, and the build is clean. ',
    });
  const batchVia = async (side) => {
    const { result, ms } = await side.rpc('tools/call', { name: batchEntry.tool, arguments: batchArgs() });
    if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
    return ms;
  };
  const batches = { vox: [], nothing: [] };
  for (let i = 0; i < 20; i++) {
    await batchVia(mcp);
    await batchVia(nothing);
  }
  for (let i = 0; i < RUNS; i++) {
    batches.vox.push(await batchVia(mcp));
    batches.nothing.push(await batchVia(nothing));
  }

  for (let i = 0; i < 10; i++) {
    await viaMcp();
    await direct();
  }
  const times = { mcp: [], direct: [] };
  for (let i = 0; i < RUNS; i++) {
    times.mcp.push(await viaMcp());
    times.direct.push(await direct());
  }
  const processTimes = [];
  for (let i = 0; i < PROCESS_RUNS; i++) {
    processTimes.push(
      timeRun(process.execPath, [VOX, 'hook', 'PermissionRequest'], {
        env,
        input: JSON.stringify(event()),
        quietStderr: true,
      }),
    );
  }
  agent.destroy();
  const mcpMedian = median(times.mcp);
  report({
    bench: 'mcp-tool-hook',
    event: 'PermissionRequest',
    fixture: FIXTURE,
    runs: RUNS,
    medianMs: round(mcpMedian),
    p90Ms: round(percentile(times.mcp, 90)),
    directPostMedianMs: round(median(times.direct)),
    ratioToDirectPost: round(mcpMedian / median(times.direct)),
    processPerHookMedianMs: round(median(processTimes)),
    budgetMs: BUDGET_MS,
    withinBudget: mcpMedian <= BUDGET_MS,
    messageDisplay: {
      medianMs: round(median(batches.vox)),
      p90Ms: round(percentile(batches.vox, 90)),
      nothingMedianMs: round(median(batches.nothing)),
      addedMs: round(median(batches.vox) - median(batches.nothing)),
      budgetAddedMs: BATCH_BUDGET_MS,
      withinBudget: median(batches.vox) - median(batches.nothing) <= BATCH_BUDGET_MS,
    },
  });
} finally {
  await mcp.close();
  await nothing.close();
  await d.stop();
}
