#!/usr/bin/env node
// The Node lines CI tests (scripts/ci/node-lines) and the `engines.node` every
// package.json claims must agree: each package says "^A || ^B || ...", exactly
// the lines CI runs. Otherwise CI could pass on lines nobody claims, or a
// claimed line (an odd, short-lived one, or a future one) could go untested. `check-engines.mjs [ROOT]` checks another
// tree (test/repo/ci-scripts.test.ts gives it one that disagrees).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const lines = readFileSync(join(root, 'scripts/ci/node-lines'), 'utf8')
  .split('\n')
  .map((l) => l.replace(/#.*/, '').trim())
  .filter(Boolean)
  .map(Number);
if (lines.length === 0 || lines.some((n) => !Number.isInteger(n))) {
  console.error('check-engines: scripts/ci/node-lines must list Node majors, one a line');
  process.exit(1);
}
const want = [...lines]
  .sort((a, b) => a - b)
  .map((n) => `^${n}`)
  .join(' || ');
const files = ['package.json', ...readdirSync(join(root, 'packages')).map((p) => join('packages', p, 'package.json'))];
let bad = 0;
for (const f of files) {
  const got = JSON.parse(readFileSync(join(root, f), 'utf8')).engines?.node;
  if (got !== want) {
    console.error(
      `check-engines: ${f} has engines.node ${JSON.stringify(got)}; CI tests Node ${lines.join(', ')}, so it must be "${want}"`,
    );
    bad++;
  }
}
if (bad) process.exit(1);
console.log(`engines.node "${want}" in ${files.length} package.json files; CI tests Node ${lines.join(', ')}`);
