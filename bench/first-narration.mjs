#!/usr/bin/env node
// Budget (issue 32 item 3): the first narrated reply of a session, in a voxd
// just started, reaches first audio within 150 ms of its first batch's hook
// call, with the embedded eSpeak (a worker thread voxd starts on first use)
// and with the system espeak-ng, with a busy core beside (a node spinning
// for the whole run).
// Each round starts a fresh voxd whose default engine is the system
// espeak-ng, so the embedded one is started by nothing but its first use or
// a warm-up, and a narrating project whose config names the engine
// (`engine: espeak` or `engine: espeak-ng`). Two sides, interleaved:
// - `warm`: a fresh `vox mcp` in the project (its start warms voxd's engine),
//   the plugin's UserPromptSubmit call (the cut, then the warm-up), GAP_MS for
//   the model's first words, then the first MessageDisplay batch through the
//   hook tool; first audio from that call;
// - `cold`: the same first batch POSTed straight to /v1/narration with
//   nothing warmed before (what the first batch cost before the warm-up).
// First audio is the history entry's `acceptedAt` plus `firstAudioMs`,
// against the call's wall clock. Medians of BENCH_RUNS rounds (default 8).
// `node bench/first-narration.mjs`. Needs `npm run build` and espeak-ng.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, report, round, startVoxd, warmMcp } from './lib.mjs';

const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 8));
const GAP_MS = Number(process.env.GAP_MS ?? 400);
const BUDGET_MS = 150;
const { mcpToolHook } = await import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/claude/hook-entries.js')).href);
const batchEntry = mcpToolHook('MessageDisplay', 'vox');
const promptEntry = mcpToolHook('UserPromptSubmit', 'vox');
const DELTA = 'The first sentence of the reply is here.\nThe second one is';

const busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function firstAudioOf(d, session) {
  for (let i = 0; i < 2000; i++) {
    const h = (await d.api('GET', '/v1/status')).body.history.find((e) => e.session === session);
    if (h && h.outcome !== 'queued' && h.outcome !== 'playing') {
      if (h.outcome !== 'played') throw new Error(`the narration ended ${h.outcome}`);
      return Date.parse(h.acceptedAt) + h.firstAudioMs;
    }
    await sleep(10);
  }
  throw new Error('no narration played');
}

async function round1(engine, side, n) {
  const d = await startVoxd({
    audio: `file:${join(process.env.TMPDIR ?? '/tmp', `vox-bench-first-${process.pid}-${n}`)}?realtime=0`,
    env: { VOXD_ENGINE: 'espeak-ng' },
  });
  const cwd = join(d.home, 'shop');
  mkdirSync(join(cwd, '.vox'), { recursive: true });
  writeFileSync(join(cwd, '.vox', 'config.md'), `---\nnarrate: stream\nengine: ${engine}\n---\n`);
  const id = `${String(n).padStart(6, '0')}-first`;
  const session = `shop#${id.slice(0, 6)}`;
  try {
    if (side === 'cold') {
      const calledAt = Date.now();
      const r = await d.api('POST', '/v1/narration', {
        session,
        message: 'm0',
        index: 0,
        final: true,
        delta: DELTA,
        engine,
      });
      if (r.status >= 300) throw new Error(`HTTP ${r.status} ${JSON.stringify(r.body)}`);
      return (await firstAudioOf(d, session)) - calledAt;
    }
    const env = { ...d.env, VOX_NO_AUTOSTART: '1', VOX_SESSION_ID: id };
    const mcp = await warmMcp({ cwd, env });
    try {
      const call = async (entry, fields) => {
        const args = Object.fromEntries(
          Object.entries(entry.input).map(([k, v]) => [
            k,
            v.replace(/\$\{(\w+)\}/g, (_, f) => String(fields[f] ?? '')),
          ]),
        );
        const { result } = await mcp.rpc('tools/call', { name: entry.tool, arguments: args });
        if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
      };
      await call(promptEntry, { session_id: id, cwd, prompt: 'go' });
      await sleep(GAP_MS);
      const calledAt = Date.now();
      await call(batchEntry, { session_id: id, cwd, message_id: 'm0', index: 0, final: true, delta: DELTA });
      return (await firstAudioOf(d, session)) - calledAt;
    } finally {
      await mcp.close();
    }
  } finally {
    await d.stop();
  }
}

const sides = ['espeak', 'espeak-ng'].flatMap((engine) => ['warm', 'cold'].map((side) => `${engine}/${side}`));
const times = Object.fromEntries(sides.map((s) => [s, []]));
let n = 0;
try {
  for (let i = 0; i < RUNS; i++)
    for (let j = 0; j < sides.length; j++) {
      const name = sides[(i + j) % sides.length];
      const [engine, side] = name.split('/');
      times[name].push(await round1(engine, side, n++));
    }
} finally {
  busy.kill();
}
const fig = (name) => ({ medianMs: round(median(times[name]), 1), maxMs: round(Math.max(...times[name]), 1) });
report({
  bench: 'first-narration',
  runs: RUNS,
  gapMs: GAP_MS,
  busyCore: true,
  embedded: { warm: fig('espeak/warm'), cold: fig('espeak/cold') },
  system: { warm: fig('espeak-ng/warm'), cold: fig('espeak-ng/cold') },
  budgetMs: BUDGET_MS,
  withinBudget: median(times['espeak/warm']) <= BUDGET_MS && median(times['espeak-ng/warm']) <= BUDGET_MS,
});
