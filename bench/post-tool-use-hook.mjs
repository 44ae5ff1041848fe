#!/usr/bin/env node
// Budget (issue 32): the PostToolUse hook that narration from the transcript
// adds costs at most a do-nothing MCP server's answer + 2 ms, median. A warm
// `vox mcp` in a project with `narrate: stream` gets the `tools/call` of its
// hook tool that Claude Code sends for the plugin's PostToolUse entry, one
// JSON line on its stdin, after a tool step was appended to the transcript
// (lines of a real Claude Code 2.1.332 transcript, test/fixtures/transcripts:
// an assistant text with a new uuid, so it is narrated, and a 64 KB
// attachment line that is skipped unparsed); the time runs until its answer
// line arrives. Baseline in the same run, interleaved: the same call answered
// by bench/floor-mcp.cjs (a stdio server that answers and does nothing). A
// turn starts with UserPromptSubmit (the transcript marked). Medians of
// BENCH_RUNS (default 200). Prints one JSON line. Needs `npm run build` first.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, percentile, report, round, startVoxd, substitute, warmMcp } from './lib.mjs';

const RUNS = Math.max(50, Number(process.env.BENCH_RUNS ?? 200));
const BUDGET_MS = 2;
const { mcpToolHook } = await import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/claude/hook-entries.js')).href);
const LINES = readFileSync(join(ROOT, 'test/fixtures/transcripts/claude-2.1.332-narrated-session.jsonl'), 'utf8')
  .split(/(?<=\n)/)
  .filter(Boolean);
const assistant = JSON.parse(LINES[36]);
const attachment = LINES[25];

/** bench/floor-mcp.cjs as a warm server (warmMcp's client, as bench/mcp-tool-hook.mjs has it): initialize and tools/call answered, nothing done. */
const floorServer = (cwd, env) =>
  warmMcp({
    cwd,
    env,
    args: [
      join(ROOT, 'bench/floor-mcp.cjs'),
      JSON.stringify({
        initialize: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'floor', version: '1' },
        },
        'tools/call': { content: [] },
      }),
    ],
  });

const d = await startVoxd({ audio: 'null' });
const project = join(d.home, 'billing');
mkdirSync(join(project, '.vox'), { recursive: true });
writeFileSync(join(project, '.vox', 'config.md'), '---\nnarrate: stream\n---\n');
const transcript = join(d.home, 'transcript.jsonl');
writeFileSync(transcript, LINES.slice(0, 34).join(''));
const env = { ...d.env, VOX_NO_AUTOSTART: '1' };
const vox = await warmMcp({ cwd: project, env });
const floor = await floorServer(project, env);
try {
  const payload = { session_id: '27b69222-0f7d-4ca2-901f-b39ce5346669', cwd: project, transcript_path: transcript };
  const call = (server, event) => {
    const entry = mcpToolHook(event, 'vox');
    return server.rpc('tools/call', { name: entry.tool, arguments: substitute(entry.input, payload) });
  };
  await call(vox, 'UserPromptSubmit');
  let n = 0;
  const step = () => {
    n++;
    const line = {
      ...assistant,
      uuid: `bench-${n}`,
      message: { ...assistant.message, content: [{ type: 'text', text: `Step ${n} is done.` }] },
    };
    appendFileSync(transcript, `${JSON.stringify(line)}\n${attachment}`);
  };
  const times = { vox: [], floor: [] };
  for (let i = 0; i < RUNS + 5; i++) {
    const order = i % 2 ? ['floor', 'vox'] : ['vox', 'floor'];
    for (const name of order) {
      if (name === 'vox') step();
      const { result, ms } = await call(name === 'vox' ? vox : floor, 'PostToolUse');
      if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
      if (i >= 5) times[name].push(ms);
    }
  }
  const v = median(times.vox);
  const f = median(times.floor);
  report({
    bench: 'post-tool-use-hook',
    runs: RUNS,
    medianMs: round(v),
    p95Ms: round(percentile(times.vox, 95)),
    doNothingServerMedianMs: round(f),
    overDoNothingMs: round(v - f),
    budgetOverMs: BUDGET_MS,
    withinBudget: v - f <= BUDGET_MS,
  });
} finally {
  await floor.close();
  await vox.close();
  await d.stop();
}
