#!/usr/bin/env node
// The formatter's check (CONTRIBUTING.md, "The limits"): every code file of
// the repo is as Prettier writes it at the repo's settings (.prettierrc.json:
// 120 columns), so the 400-line limit measures code, not line length.
//
// `node scripts/check-format.mjs [ROOT]` prints each file that differs and
// exits 1; test/repo/format.test.ts runs checkFormat() on the repo and on a fixture.
// `npx prettier --write FILE` fixes a file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const CODE = /\.(?:ts|mts|cts|mjs|cjs|js)$/;
/** Where code lives; fixtures are data (some are malformed on purpose). */
const ROOTS = ['packages', 'test', 'bench', 'scripts'];

function walk(dir, out = []) {
  let names;
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The files under `root` that Prettier would change, as paths relative to `root`. */
export async function checkFormat(root) {
  root = resolve(root);
  const differ = [];
  for (const file of ROOTS.flatMap((d) => walk(join(root, d)))) {
    const options = (await prettier.resolveConfig(file, { editorconfig: false })) ?? {};
    const text = readFileSync(file, 'utf8');
    if (!(await prettier.check(text, { ...options, filepath: file })))
      differ.push(relative(root, file).split(sep).join('/'));
  }
  return differ;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const differ = await checkFormat(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'));
  for (const f of differ) console.log(`${f}: not formatted (npx prettier --write ${f})`);
  if (differ.length) {
    console.log(`\n${differ.length} files not formatted (Prettier, .prettierrc.json)`);
    process.exit(1);
  }
}
