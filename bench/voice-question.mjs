#!/usr/bin/env node
// Budget (issue "Hardening, round three"): the permission question's
// preparation (rendering for the ear, the secret scan) at most 2 ms for a
// 4 KB command.
//
// In this process, on the built modules: askText (hooks/voice/voice-decision)
// for a 4 KB Bash command with secrets scattered through it (refused: past
// the bound, after its secrets are found), for a 150-character one with a
// bearer token (said whole), and redactSecrets (@vox/protocol) alone on 4 KB.
// Baseline in the same run: the old preparation's text work on the same 4 KB
// (whitespace folded to one line and cut at 120 characters). Medians of
// BENCH_RUNS (default 2000) calls after a warm-up (p99 and max are reported:
// on a shared machine they carry its pauses). Prints JSON lines.
// Needs `npm run build` first.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, percentile, report, ROOT, round } from './lib.mjs';

const RUNS = Math.max(100, Number(process.env.BENCH_RUNS ?? 2000));
const BUDGET_MS = 2;
const load = (p) => import(pathToFileURL(join(ROOT, p)).href);
const { askText } = await load('packages/vox-mcp/dist/hooks/voice/voice-decision.js');
const { redactSecrets } = await load('packages/protocol/dist/index.js');

const chunk = 'npm run build && curl -H "Authorization: Bearer abcdefghijklmnopqrstuv" https://x.example/a/b ; ';
const big = chunk.repeat(Math.ceil(4096 / chunk.length)).slice(0, 4096);
const small = 'curl -s -H "Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz" https://api.example.io/v1/x';
const ask = (command) => ({ projectName: 'api', tool: 'Bash', toolInput: { command } });
const oldPrep = (s) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 120 ? `${one.slice(0, 119).replace(/\s+\S*$/, '')}…` : one;
};

function time(fn) {
  for (let i = 0; i < 200; i++) fn();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return { medianMs: round(median(ms), 4), p99Ms: round(percentile(ms, 99), 4), maxMs: round(Math.max(...ms), 3) };
}

const baseline = time(() => oldPrep(big));
const refused = askText(ask(big));
if (refused.ok) throw new Error('a 4 KB command was said');
const said = askText(ask(small));
if (!said.ok || /sk-ant/.test(said.text)) throw new Error(`not said faithfully: ${JSON.stringify(said)}`);
for (const [name, fn] of [
  ['4 KB command with secrets (refused)', () => askText(ask(big))],
  ['150-character command with a bearer token (said)', () => askText(ask(small))],
  ['redactSecrets alone, 4 KB', () => redactSecrets(big)],
]) {
  const t = time(fn);
  report({
    bench: 'voice-question-preparation',
    case: name,
    runs: RUNS,
    ...t,
    budgetMs: BUDGET_MS,
    withinBudget: t.medianMs <= BUDGET_MS,
    baselineMedianMs: baseline.medianMs,
    ratioToBaseline: round(t.medianMs / baseline.medianMs, 2),
    note: 'baseline: the old preparation (one line, cut at 120 characters) of the same 4 KB',
  });
}
