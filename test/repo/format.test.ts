/**
 * The formatter's check (CONTRIBUTING.md, "The limits"): every code file is
 * as Prettier writes it at 120 columns (scripts/check-format.mjs), so the
 * 400-line limit measures code, not line length. On this repo it finds
 * nothing; on a fixture tree with the repo's settings, a line over the width
 * fails and the same code within it passes.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script, without types
import { checkFormat } from '../../scripts/check-format.mjs';
import { ROOT } from '../helpers/daemon.js';

const check = checkFormat as (root: string) => Promise<string[]>;
const base = mkdtempSync(join(tmpdir(), 'vox-format-'));
after(() => rmSync(base, { recursive: true, force: true }));

/** A tree with the repo's Prettier settings and one source file. */
function tree(name: string, source: string): string {
  const root = join(base, name);
  mkdirSync(join(root, 'packages/a/src'), { recursive: true });
  copyFileSync(join(ROOT, '.prettierrc.json'), join(root, '.prettierrc.json'));
  writeFileSync(join(root, 'packages/a/src/index.ts'), source);
  return root;
}

const args = Array.from({ length: 12 }, (_, i) => `'argument-${i}'`);

test('this repo is formatted (npx prettier --write FILE fixes a file)', { timeout: 600_000 }, async () => {
  const differ = await check(ROOT);
  assert.deepEqual(differ, [], `node scripts/check-format.mjs finds:\n${differ.join('\n')}`);
});

test('a line over 120 columns fails, naming its file', async () => {
  const line = `export const x = [${args.join(', ')}];\n`;
  assert.ok(line.length > 121, `the fixture line is ${line.length - 1} columns`);
  assert.deepEqual(await check(tree('wide', line)), ['packages/a/src/index.ts']);
});

test('the same code within 120 columns passes', async () => {
  const lines = `export const x = [\n${args.map((a) => `  ${a},`).join('\n')}\n];\n`;
  assert.deepEqual(await check(tree('narrow', lines)), []);
});
