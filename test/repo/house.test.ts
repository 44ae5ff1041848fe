/**
 * The house limits (CONTRIBUTING.md, "The limits"): scripts/check-house.mjs
 * on this repo finds nothing, and on small trees written here it finds each
 * kind of problem, naming the file.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// @ts-expect-error: a plain .mjs script, without types
import { checkHouse } from '../../scripts/check-house.mjs';
import { ROOT } from '../helpers/daemon.js';

const check = checkHouse as (root: string, allowances?: object[]) => string[];

test('this repo keeps the house limits', () => {
  const problems = check(ROOT);
  assert.equal(problems.length, 0, `node scripts/check-house.mjs finds:\n${problems.join('\n')}`);
});

describe('the checker, on fixture trees', () => {
  const base = mkdtempSync(join(tmpdir(), 'vox-house-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  let n = 0;
  /** A repo with packages `a` (exports `.`) and `b` (exports `.` and `./util`), plus `files`. */
  function tree(files: Record<string, string>, packageJson: Record<string, object> = {}): string {
    const root = join(base, String(n++));
    const all: Record<string, string> = {
      'packages/a/package.json': JSON.stringify(packageJson.a ?? { name: 'a', exports: { '.': './dist/index.js' } }),
      'packages/a/src/index.ts': 'export const a = 1;\n',
      'packages/b/package.json': JSON.stringify(
        packageJson.b ?? {
          name: '@x/b',
          exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './util': './dist/util.js' },
        },
      ),
      'packages/b/src/index.ts': 'export const b = 1;\n',
      'packages/b/src/util.ts': 'export const u = 1;\n',
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }
  const lines = (k: number, line = 'export const x = 1;') => `${Array.from({ length: k }, () => line).join('\n')}\n`;

  test('a tree within the limits has no problem, at exactly 400 lines a file and 300 a class', () => {
    const cls = `export class Fits {\n${lines(298, '  x = 1;')}}\n`;
    assert.deepEqual(
      check(
        tree({
          'packages/a/src/full.ts': lines(400),
          'packages/a/src/fits.ts': cls,
          'packages/a/src/uses.ts':
            "import { b } from '@x/b';\nimport { u } from '@x/b/util';\nexport const c = b + u;\n",
        }),
      ),
      [],
    );
  });

  test('a file over 400 lines, named with its count and the limit', () => {
    assert.deepEqual(check(tree({ 'packages/a/src/long.ts': lines(401) })), [
      'packages/a/src/long.ts: 401 lines, limit 400',
    ]);
  });

  test('a class over 300 lines, named with its file, line, count and the limit', () => {
    const cls = `// a comment\nexport class Big {\n${lines(299, '  x = 1;')}}\n`;
    assert.deepEqual(check(tree({ 'packages/a/src/big.ts': cls })), [
      'packages/a/src/big.ts:2: class Big 301 lines, limit 300',
    ]);
  });

  test('an import cycle in a package, and one across packages through their names', () => {
    const problems = check(
      tree({
        'packages/a/src/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
        'packages/a/src/y.ts': "import type { x } from './x.js';\nexport const y = 1 as unknown as typeof x;\n",
        'packages/a/src/index.ts': "export { u } from '@x/b/util';\n",
        'packages/b/src/util.ts': "export const u = 1;\nexport const load = () => import('a');\n",
      }),
    );
    assert.deepEqual(problems.sort(), [
      'import cycle: packages/a/src/index.ts -> packages/b/src/util.ts -> packages/a/src/index.ts',
      'import cycle: packages/a/src/x.ts -> packages/a/src/y.ts -> packages/a/src/x.ts',
    ]);
  });

  test('a wildcard export, and a package without exports', () => {
    const problems = check(
      tree(
        {},
        {
          a: { name: 'a', exports: { '.': './dist/index.js', './*': './dist/*.js' } },
          b: { name: '@x/b', main: './dist/index.js' },
        },
      ),
    );
    assert.deepEqual(problems, [
      'packages/a/package.json: wildcard export "./*"; list each subpath the package offers',
      'packages/b/package.json: no "exports"; list the package\'s entry points explicitly',
    ]);
  });

  test('deep imports: a subpath not exported, a relative path into another package, also in require.resolve and new URL(..., import.meta.url); root test/ and bench/ may reach in', () => {
    const problems = check(
      tree({
        'packages/a/src/deep.ts': "import { b } from '@x/b/dist/index.js';\nexport const d = b;\n",
        'packages/a/src/rel.ts': "export { u } from '../../b/src/util.js';\n",
        'packages/a/test/deep.test.ts': "import '@x/b/src/util.js';\nimport '../../b/src/util.js';\n",
        'test/internals.test.ts': "import '../../packages/b/src/util.js';\nimport '../../packages/a/src/index.js';\n",
        'bench/x.mjs': "await import('../../packages/b/src/util.js');\n",
        'packages/a/src/spawn.ts':
          "import { createRequire } from 'node:module';\nexport const p = [createRequire(import.meta.url).resolve('@x/b/main'), new URL('../../b/dist/main.js', import.meta.url), require.resolve('@x/b/util')];\n",
      }),
    );
    assert.deepEqual(problems, [
      'packages/a/src/deep.ts: deep import "@x/b/dist/index.js": @x/b does not export "./dist/index.js" (it exports ., ./util)',
      'packages/a/src/rel.ts: deep import "../../b/src/util.js" reaches into packages/b by relative path; go through the package\'s name and an exported subpath',
      'packages/a/src/spawn.ts: deep import "@x/b/main": @x/b does not export "./main" (it exports ., ./util)',
      'packages/a/src/spawn.ts: deep import "../../b/dist/main.js" reaches into packages/b by relative path; go through the package\'s name and an exported subpath',
      'packages/a/test/deep.test.ts: deep import "@x/b/src/util.js": @x/b does not export "./src/util.js" (it exports ., ./util)',
      'packages/a/test/deep.test.ts: deep import "../../b/src/util.js" reaches into packages/b by relative path; go through the package\'s name and an exported subpath',
    ]);
  });

  test('a cycle between two folders, with no cycle between files: the folders and one import each way', () => {
    const problems = check(
      tree({
        'packages/a/src/x/one.ts': "import { two } from '../y/two.js';\nexport const one = two;\n",
        'packages/a/src/x/four.ts': 'export const four = 4;\n',
        'packages/a/src/y/two.ts': 'export const two = 2;\n',
        'packages/a/src/y/three.ts': "import type { four } from '../x/four.js';\nexport type Three = typeof four;\n",
      }),
    );
    assert.deepEqual(problems, [
      'folder cycle in packages/a/src: x/ -> y/ -> x/ (x/one.ts imports y/two.ts; y/three.ts imports x/four.ts)',
    ]);
  });

  test('a cycle through three folders, from a nested file and by a dynamic import, named once', () => {
    const problems = check(
      tree({
        'packages/a/src/x/deep/one.ts': "export const one = () => import('../../y/two.js');\n",
        'packages/a/src/y/two.ts': "export { three } from '../z/three.js';\n",
        'packages/a/src/z/three.ts': "import { four } from '../x/four.js';\nexport const three = four;\n",
        'packages/a/src/x/four.ts': 'export const four = 4;\n',
      }),
    );
    assert.deepEqual(problems, [
      'folder cycle in packages/a/src: x/ -> y/ -> z/ -> x/ (x/deep/one.ts imports y/two.ts; y/two.ts imports z/three.ts; z/three.ts imports x/four.ts)',
    ]);
  });

  test('folders that import one way only pass; a file in src is a folder of its own, and a folder may import itself', () => {
    assert.deepEqual(
      check(
        tree({
          'packages/a/src/main.ts': "import { one } from './x/one.js';\nexport const m = one;\n",
          'packages/a/src/errors.ts': 'export const e = 1;\n',
          'packages/a/src/x/one.ts':
            "import { two } from '../y/two.js';\nimport { e } from '../errors.js';\nimport { s } from './sub/s.js';\nexport const one = two + e + s;\n",
          'packages/a/src/x/sub/s.ts': "import { three } from '../three.js';\nexport const s = three;\n",
          'packages/a/src/x/three.ts': 'export const three = 3;\n',
          'packages/a/src/y/two.ts': "import { e } from '../errors.js';\nexport const two = e;\n",
        }),
      ),
      [],
    );
  });

  test('a folder cycle whose folders are all in an allowance passes; one that holds another folder does not', () => {
    const files = {
      'packages/a/src/x/one.ts': "import { two } from '../y/two.js';\nexport const one = two;\n",
      'packages/a/src/y/two.ts': "import { z } from '../z/z.js';\nexport const two = z;\n",
      'packages/a/src/z/z.ts': "export const z = 1;\nexport const x = () => import('../x/other.js');\n",
      'packages/a/src/x/other.ts': 'export const other = 1;\n',
    };
    const allow = (folders: string[]) => [{ package: 'packages/a', folders, why: 'being moved' }];
    assert.deepEqual(check(tree(files), allow(['x/', 'y/', 'z/'])), []);
    assert.deepEqual(check(tree(files), allow(['x/', 'y/'])), [
      'folder cycle in packages/a/src: x/ -> y/ -> z/ -> x/ (x/one.ts imports y/two.ts; y/two.ts imports z/z.ts; z/z.ts imports x/other.ts)',
    ]);
  });
});
