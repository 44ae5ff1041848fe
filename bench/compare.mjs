#!/usr/bin/env node
// Before and after in one run: the same benches, alternately in another
// checkout (the base, built) and in this one, so that both see the same
// drift of a shared machine's load. Each tree runs its own bench scripts
// against its own build, so a change that moves internal modules is still
// compared like for like.
//
//   node bench/compare.mjs --base DIR [--repeat N] [--node PATH] NAME...
//
// NAME...     the bench files to run (as bench/run.mjs takes them: say, mcp,
//             daemon, first-audio ...); at least one.
// --base DIR  a checkout of vox with `npm run build` done (for example a
//             `git worktree add ../base main`).
// --repeat N  rounds, base then head then head then base... (default 3).
// --node PATH the Node binary for both sides (default: this one).
//
// Prints, for every bench, figure and Node version, one JSON line: the median
// of each numeric field over the rounds for base and head, and head/base.
// Every process runs with bench/lib.mjs's clean environment. Never fails on a
// figure.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cleanEnv, jsonLines, median, round } from './lib.mjs';

const head = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals: names } = parseArgs({
  allowPositionals: true,
  options: { base: { type: 'string' }, repeat: { type: 'string' }, node: { type: 'string' } },
});
if (!values.base || names.length === 0) {
  process.stderr.write('usage: node bench/compare.mjs --base DIR [--repeat N] [--node PATH] NAME...\n');
  process.exit(2);
}
const base = resolve(values.base);
const node = values.node ?? process.execPath;
const repeat = Math.max(1, Number(values.repeat ?? 3) || 1);
const files = names.map((n) => (n.endsWith('.mjs') ? n : `${n}.mjs`));
for (const tree of [base, head]) {
  for (const f of files) {
    if (!existsSync(join(tree, 'bench', f))) {
      process.stderr.write(`bench/compare: ${join(tree, 'bench', f)} is missing\n`);
      process.exit(2);
    }
  }
}

/** figure key -> { base: {field: number[]}, head: {field: number[]} } */
const figures = new Map();
const env = cleanEnv();
let failed = 0;
function runIn(side, tree, file) {
  process.stderr.write(`# ${side}: ${file}\n`);
  const r = spawnSync(node, [join(tree, 'bench', file)], {
    cwd: tree,
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    failed += 1;
    process.stderr.write(`# ${side}: ${file} exited with ${r.status}\n`);
  }
  for (const j of jsonLines(r.stdout)) {
    if (typeof j.bench !== 'string') continue;
    // A bench may print several lines of one name (variants): the label fields tell them apart.
    const label = ['figure', 'variant', 'chars', 'flags']
      .filter((k) => j[k] !== undefined)
      .map((k) => `${k}=${Array.isArray(j[k]) ? j[k].join(',') : j[k]}`)
      .join(' ');
    const key = `${j.bench}${label ? ` ${label}` : ''} @${j.node}`;
    if (!figures.has(key)) figures.set(key, { base: {}, head: {} });
    const into = figures.get(key)[side];
    for (const [k, v] of Object.entries(j)) if (typeof v === 'number') (into[k] ??= []).push(v);
  }
}

for (let rep = 0; rep < repeat; rep++) {
  // ABBA order: neither side always goes first.
  const order =
    rep % 2 === 0
      ? [
          ['base', base],
          ['head', head],
        ]
      : [
          ['head', head],
          ['base', base],
        ];
  for (const file of files) for (const [side, tree] of order) runIn(side, tree, file);
}

for (const [key, { base: b, head: h }] of figures) {
  const fields = {};
  for (const k of Object.keys(h)) {
    if (!b[k]) continue;
    const mb = median(b[k]);
    const mh = median(h[k]);
    fields[k] = { base: round(mb, 3), head: round(mh, 3), ...(mb !== 0 ? { ratio: round(mh / mb, 3) } : {}) };
  }
  process.stdout.write(`${JSON.stringify({ compare: key, rounds: repeat, fields })}\n`);
}
process.exit(failed ? 1 : 0);
