#!/usr/bin/env node
// Budget (issue 20, voice answers to permission prompts): from the end of the
// user's answer to the decision returned by the hook, at most silenceMs + the
// recognizer's own time + 50 ms.
//
// A warm `vox mcp` (as Claude Code keeps it for the session) in a project with
// `approveByVoice: true` gets the `tools/call` of its hook tool that the
// plugin's PermissionRequest entry sends. voxd announces the ask (null sink),
// then records the microphone: test/fixtures/listen/arecord playing
// sentence.wav at real time, whose speech ends SPEECH_END_MS after the shim
// notes its start. The recognizer is an OpenAI-style server on 127.0.0.1 in
// this process that answers "allow" and times itself. Latency: the tool's
// result received (the decision JSON), less the end of the speech.
// Baseline in the same run, interleaved: a bare POST /v1/listen with the same
// bounds (the least the answer's path can cost), so the hook's own overhead
// is the difference. Medians of BENCH_RUNS (default 5) each. Prints JSON lines.
// Needs `npm run build` first.
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, report, ROOT, round, startVoxd, VOX } from './lib.mjs';

const SHIM = join(ROOT, 'test/fixtures/listen/arecord');
const SPEECH_END_MS = 300 + 1740; // scripts/make-listen-fixture.mjs prints it
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 5));
const { ANSWER_LISTEN } = await import(
  pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/hooks/voice/voice-decision.js')).href
);
const SILENCE_MS = ANSWER_LISTEN.silenceMs;

const served = [];
const server = createServer((req, res) => {
  const t0 = performance.now();
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'allow' }));
    served.push(performance.now() - t0);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const scratch = mkdtempSync(join(tmpdir(), 'vox-bench-voice-'));
const pidfile = join(scratch, 'mic.pid');
const project = join(scratch, 'api');
mkdirSync(join(project, '.vox'), { recursive: true });
writeFileSync(join(project, '.vox', 'config.md'), '---\napproveByVoice: true\n---\n');
const micStart = () => Number(readFileSync(pidfile, 'utf8').trim().split(' ')[1]);

const d = await startVoxd({
  env: {
    VOXD_RECORDER: SHIM,
    VOXD_TRANSCRIBER_URL: `http://127.0.0.1:${server.address().port}/v1`,
    VOX_TEST_MIC_PIDFILE: pidfile,
  },
});
const client = new Client({ name: 'bench-voice-approval', version: '1.0.0' });
try {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: project,
      env: { ...d.clientEnv, VOX_NO_AUTOSTART: '1' },
      stderr: 'ignore',
    }),
  );
  const variants = {
    async hook(i) {
      const r = await client.callTool(
        {
          name: 'hook',
          arguments: {
            event: 'PermissionRequest',
            session_id: `bench-${i}`,
            cwd: project,
            tool_name: 'Bash',
            tool_input: '{"command":"npm test"}',
            permission_suggestions: '',
            tool_use_id: `toolu_bench_${i}`,
          },
        },
        undefined,
        { timeout: 60_000 },
      );
      const at = Date.now();
      if (!/"behavior":"allow"/.test(r.content?.[0]?.text ?? '')) throw new Error(`no decision: ${JSON.stringify(r)}`);
      return at;
    },
    async listen() {
      const r = await d.api('POST', '/v1/listen', { ...ANSWER_LISTEN });
      const at = Date.now();
      if (r.status !== 200 || r.body.endedBy !== 'silence') throw new Error(`listen failed: ${JSON.stringify(r.body)}`);
      return at;
    },
  };
  const figures = {
    hook: { latency: [], budget: [], overhead: [] },
    listen: { latency: [], budget: [], overhead: [] },
  };
  for (let i = -1; i < RUNS; i++) {
    for (const [name, run] of Object.entries(variants)) {
      rmSync(pidfile, { force: true });
      served.length = 0;
      const at = await run(i);
      if (i < 0) continue; // warm-up
      const ms = at - (micStart() + SPEECH_END_MS);
      const f = figures[name];
      f.latency.push(ms);
      f.budget.push(SILENCE_MS + served[0] + 50);
      f.overhead.push(ms - SILENCE_MS - served[0]);
    }
  }
  const h = figures.hook;
  const l = figures.listen;
  report({
    bench: 'voice-approval-end-of-answer-to-decision',
    silenceMs: SILENCE_MS,
    runs: RUNS,
    medianMs: round(median(h.latency), 1),
    maxMs: round(Math.max(...h.latency), 1),
    medianBudgetMs: round(median(h.budget), 1),
    medianOverheadMs: round(median(h.overhead), 1),
    ratioToBudget: round(median(h.latency) / median(h.budget), 3),
    runsWithinBudget: `${h.latency.filter((ms, i) => ms <= h.budget[i]).length}/${RUNS}`,
    withinBudget: median(h.latency) <= median(h.budget),
    baselineListenMedianMs: round(median(l.latency), 1),
    ratioToBareListen: round(median(h.latency) / median(l.latency), 3),
    note: 'hook: the hook tool of a warm vox mcp (announce, listen, match, log); baseline: a bare POST /v1/listen with the same bounds',
  });
} finally {
  await client.close().catch(() => {});
  await d.stop();
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
