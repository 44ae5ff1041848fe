#!/usr/bin/env node
// Budgets (issue 21, narration):
//   - a MessageDisplay batch's hook, inside Claude Code's mcp_tool path: median <= 10 ms;
//   - the first batch reaching the hook to first audio at the sink: <= 150 ms with eSpeak.
// A warm `vox mcp` in a project with `narrate: stream` gets the tools/call of
// the hook tool that Claude Code sends for vox's MessageDisplay entry, one
// JSON line on its stdin; the hook time runs until its answer, which comes
// at once: vox mcp sends the batch to voxd behind the session's earlier ones.
// Each message is three batches (a first sentence and a half, the rest, an
// empty final one). First audio: from the first batch's call (wall clock)
// to the first PCM written to the file sink (the history entry's
// `acceptedAt` plus `firstAudioMs`), to the millisecond. Baselines in the same run, interleaved: the same batch
// POSTed straight to /v1/narration over a kept-alive connection (the least
// any path can cost), and the first sentence as a plain /v1/speak (its first
// audio: what any speech costs). Medians of BENCH_RUNS (default 60 messages).
// Prints one JSON line. Needs `npm run build` first.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, percentile, report, round, startVoxd, warmMcp } from './lib.mjs';

const RUNS = Math.max(20, Number(process.env.BENCH_RUNS ?? 60));
const HOOK_BUDGET_MS = 10;
const FIRST_AUDIO_BUDGET_MS = 150;
const { mcpToolHook } = await import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist/claude/hook-entries.js')).href);
const entry = mcpToolHook('MessageDisplay', 'vox');

const d = await startVoxd({
  audio: `file:${join(process.env.TMPDIR ?? '/tmp', `vox-bench-narr-${process.pid}`)}?realtime=0`,
});
const cwd = join(d.home, 'shop');
mkdirSync(join(cwd, '.vox'), { recursive: true });
writeFileSync(join(cwd, '.vox', 'config.md'), '---\nnarrate: stream\n---\n');
const env = { ...d.env, VOX_NO_AUTOSTART: '1' };
const mcp = await warmMcp({ cwd, env });
const { rpc } = mcp;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
try {
  const post = (path, body) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request(
        {
          host: '127.0.0.1',
          port: d.port,
          method: 'POST',
          path,
          agent,
          headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c) => (text += c));
          res.on('end', () =>
            res.statusCode < 300
              ? resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, body: JSON.parse(text) })
              : reject(new Error(`HTTP ${res.statusCode} ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  const batches = (n) => [
    `Reply number ${n} starts with this first sentence.\nThe second sentence of reply ${n} is`,
    ` still being written here.\n`,
    '',
  ];
  const hookBatch = async (session, message, index, delta, final) => {
    const args = {
      ...Object.fromEntries(Object.entries(entry.input).map(([k, v]) => [k, v])),
      event: 'MessageDisplay',
      session_id: session,
      cwd,
      message_id: message,
      index: String(index),
      final: String(final),
      delta,
    };
    const { result, ms } = await rpc('tools/call', { name: entry.tool, arguments: args });
    if (result.isError) throw new Error(`the hook tool failed: ${JSON.stringify(result.content)}`);
    return ms;
  };
  /** When the utterance's first PCM reached the sink, wall-clock ms, once it has played. */
  const settledFirstAudio = async (id) => {
    for (;;) {
      const h = (await d.api('GET', '/v1/status')).body.history.find((e) => e.id === id);
      if (h && h.outcome !== 'queued' && h.outcome !== 'playing') {
        if (h.outcome !== 'played') throw new Error(`utterance ${id} ended ${h.outcome}`);
        return Date.parse(h.acceptedAt) + h.firstAudioMs;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const idOf = async (session) => {
    for (let i = 0; i < 500; i++) {
      const id = (await d.api('GET', '/v1/status')).body.history.find(
        (e) => e.session?.startsWith('shop#') && e.session.endsWith(session.slice(0, 6)),
      )?.id;
      if (id) return id;
      await new Promise((r) => setTimeout(r, 5));
    }
    return undefined;
  };

  const t = { hookFirst: [], hookLater: [], direct: [], firstAudio: [], speakFirstAudio: [] };
  let n = 0;
  const one = async (warm) => {
    const i = n++;
    const session = `${String(i).padStart(6, '0')}-narr-bench`;
    const message = `msg-${i}`;
    const [b0, b1, b2] = batches(i);
    const calledAt = Date.now();
    const first = await hookBatch(session, message, 0, b0, false);
    const later = [await hookBatch(session, message, 1, b1, false), await hookBatch(session, message, 2, b2, true)];
    const id = await idOf(session);
    if (!id) throw new Error('the narration has no utterance');
    const audio = await settledFirstAudio(id);
    // The floor: the same batches straight to voxd.
    const direct = [];
    for (const [index, delta] of [b0, b1, b2].entries())
      direct.push(
        (await post('/v1/narration', { session: `direct#${i}`, message, index, final: index === 2, delta })).ms,
      );
    await d.idle();
    const speakAt = Date.now();
    const speak = await post('/v1/speak', {
      text: `Reply number ${i} starts with this first sentence.`,
      session: `speak#${i}`,
      priority: 'text',
    });
    const speakAudio = (await settledFirstAudio(speak.body.id)) - speakAt;
    await d.idle();
    if (warm) return;
    t.hookFirst.push(first);
    t.hookLater.push(...later);
    t.direct.push(...direct);
    t.firstAudio.push(audio - calledAt);
    t.speakFirstAudio.push(speakAudio);
  };
  for (let w = 0; w < 5; w++) await one(true);
  for (let r = 0; r < RUNS; r++) await one(false);
  // What every session pays where nothing is narrated (the default): the hook is called and answers at once.
  const quiet = join(d.home, 'quiet');
  mkdirSync(quiet, { recursive: true });
  const idle = [];
  for (let r = 0; r < RUNS * 3; r++) {
    const args = {
      event: 'MessageDisplay',
      session_id: `quiet-${r}`,
      cwd: quiet,
      message_id: `q${r}`,
      index: '0',
      final: 'true',
      delta: 'Some text.\n',
    };
    const { result, ms } = await rpc('tools/call', { name: entry.tool, arguments: args });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    if (r >= 10) idle.push(ms);
  }
  const hooks = [...t.hookFirst, ...t.hookLater];
  report({
    bench: 'narration',
    runs: RUNS,
    hookMedianMs: round(median(hooks)),
    hookP90Ms: round(percentile(hooks, 90)),
    hookFirstBatchMedianMs: round(median(t.hookFirst)),
    directPostMedianMs: round(median(t.direct)),
    hookRatioToDirectPost: round(median(hooks) / median(t.direct)),
    hookBudgetMs: HOOK_BUDGET_MS,
    hookWithinBudget: median(hooks) <= HOOK_BUDGET_MS,
    firstAudioMedianMs: round(median(t.firstAudio)),
    firstAudioP90Ms: round(percentile(t.firstAudio, 90)),
    speakFirstAudioMedianMs: round(median(t.speakFirstAudio)),
    firstAudioRatioToSpeak: round(median(t.firstAudio) / median(t.speakFirstAudio)),
    firstAudioBudgetMs: FIRST_AUDIO_BUDGET_MS,
    firstAudioWithinBudget: median(t.firstAudio) <= FIRST_AUDIO_BUDGET_MS,
    notNarratingHookMedianMs: round(median(idle)),
    notNarratingHookP90Ms: round(percentile(idle, 90)),
  });
} finally {
  agent.destroy();
  await mcp.close();
  await d.stop();
}
