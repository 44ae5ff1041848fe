#!/usr/bin/env node
// What a hook costs each agent when it says nothing, and when it speaks
// (issue 34): the commands `vox hooks install --agent X` writes, run as the
// agents run them (`bash -c`, in the project's directory, the payload on
// stdin), against a warm voxd (null sink). Timed, interleaved, medians of
// BENCH_RUNS (default 30) each, in one run with the baselines:
// - `sh -c true`, `bash -c true`: a shell doing nothing (the least any
//   command hook costs); `node -e 0`: a Node process doing nothing;
// - per agent, `silent`: its SessionStart in a `notify: normal` project
//   (chatty only: the gate exits before node), and `silent, off`: its Stop
//   in a `notify: off` project; `spoken`: its Stop in the normal project
//   (the gate, then node and vox until voxd accepted the speech);
// - opencode, whose hook is a plugin inside opencode: its event handler for
//   session.idle called in this process, `silent, off` (the plugin's own
//   check, no process) and `spoken` (it spawns vox and waits for it).
// Budget: silent ≤ 1.5 × `sh -c true` + 5 ms. Prints one JSON line; needs
// `npm run build` first.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, percentile, report, round, startVoxd, timeRun } from './lib.mjs';

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 30));
const dist = (m) => import(pathToFileURL(join(ROOT, 'packages/vox-mcp/dist', m)).href);
const { addCodexHooks } = await dist('agents/codex-settings.js');
const { addGemini } = await dist('agents/gemini-settings.js');
const { addQwen } = await dist('agents/qwen-settings.js');
const { copilotHooks } = await dist('agents/copilot-settings.js');
const { opencodePlugin } = await dist('agents/opencode-plugin.js');

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-silent-'));
const project = (name, frontMatter) => {
  const p = join(dir, name);
  mkdirSync(join(p, '.vox'), { recursive: true });
  // The template's comments, as `vox init` writes them, with the one line set.
  const template = readFileSync(join(ROOT, 'config', 'config.md'), 'utf8');
  writeFileSync(join(p, '.vox', 'config.md'), template.replace('# notify: normal', frontMatter));
  return p;
};
const normal = project('shop', 'notify: normal');
const off = project('quiet', 'notify: off');
const payload = (fixture, cwd) => {
  const p = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'hooks', fixture), 'utf8'));
  return JSON.stringify({ ...p, cwd });
};

const json = (s) => s.hooks;
const last = (groups, e) => groups[e].at(-1).hooks[0].command;
const codex = json(addCodexHooks({}, {}).settings);
const gemini = json(addGemini({}, {}).settings);
const qwen = json(addQwen({}, {}).settings);
const copilot = copilotHooks({}).hooks;
/** Per agent: [SessionStart command, Stop command, Stop fixture]. */
const AGENTS = {
  codex: [last(codex, 'SessionStart'), last(codex, 'Stop'), 'codex-stop.json'],
  gemini: [last(gemini, 'SessionStart'), last(gemini, 'AfterAgent'), 'gemini-after-agent.json'],
  copilot: [copilot.sessionStart[0].bash, copilot.agentStop[0].bash, 'stop.json'],
  qwen: [last(qwen, 'SessionStart'), last(qwen, 'Stop'), 'qwen-stop.json'],
};

const d = await startVoxd({ audio: 'null' });
try {
  // HOME without a .bashrc: bash reads it when its stdin is a socket (node's pipes are), which no gate can help.
  const env = { ...d.clientEnv, VOX_NO_AUTOSTART: '1', PATH: '/usr/bin:/bin', HOME: dir };
  const run = (shell, command, cwd, input) => () =>
    timeRun(shell, ['-c', command], { env, cwd, input, quietStderr: true });
  const variants = {
    'sh -c true': run('/bin/sh', 'true', normal, '{}'),
    'bash -c true': run('/bin/bash', 'true', normal, '{}'),
    'node -e 0': () => timeRun(process.execPath, ['-e', '0'], { env, input: '{}' }),
  };
  for (const [agent, [start, stop, fixture]] of Object.entries(AGENTS)) {
    variants[`${agent}: silent`] = run('/bin/bash', start, normal, payload('session-start.json', normal));
    variants[`${agent}: silent, off`] = run('/bin/bash', stop, off, payload(fixture, off));
    variants[`${agent}: spoken`] = run('/bin/bash', stop, normal, payload(fixture, normal));
  }
  // opencode: the plugin as install writes it, loaded here, its handler timed.
  const pluginFile = join(dir, 'vox-plugin.mjs');
  writeFileSync(pluginFile, opencodePlugin({}));
  const { VoxPlugin } = await import(pathToFileURL(pluginFile).href);
  Object.assign(process.env, env);
  const handlers = { off: await VoxPlugin({ directory: off }), normal: await VoxPlugin({ directory: normal }) };
  const idle = async (which) => {
    const t0 = process.hrtime.bigint();
    await handlers[which].event({
      event: { type: 'session.idle', properties: { sessionID: 'ses_0123456789abXYZabc' } },
    });
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const times = Object.fromEntries(
    [...Object.keys(variants), 'opencode: silent, off', 'opencode: spoken'].map((n) => [n, []]),
  );
  const names = Object.keys(variants);
  for (let r = 0; r < RUNS + 2; r++) {
    for (let j = 0; j < names.length; j++) {
      const n = names[(r + j) % names.length];
      const ms = variants[n]();
      if (r >= 2) times[n].push(ms);
    }
    const a = await idle('off');
    const b = await idle('normal');
    if (r >= 2) (times['opencode: silent, off'].push(a), times['opencode: spoken'].push(b));
  }
  const m = (n) => median(times[n]);
  const budget = 1.5 * m('sh -c true') + 5;
  const figures = {};
  for (const n of Object.keys(times)) {
    figures[n] = { medianMs: round(m(n)), p90Ms: round(percentile(times[n], 90)) };
    if (n.includes('silent')) figures[n].withinBudget = m(n) <= budget;
  }
  report({ bench: 'silent-hook', runs: RUNS, silentBudgetMs: round(budget), ...figures });
} finally {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
}
