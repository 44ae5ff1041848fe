#!/usr/bin/env node
// Runs every *.test.ts under packages/*/test and test/ with node:test, through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const roots = [join(root, 'test'), ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'test'))];
let files = roots.flatMap((d) => walk(d, [])).sort();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
console.log(`running ${files.length} test files`);
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files.map((f) => relative(root, f))],
  { stdio: 'inherit', cwd: root, env: { ...process.env, VOX_REPO_ROOT: root } },
);
process.exit(res.status ?? 1);
