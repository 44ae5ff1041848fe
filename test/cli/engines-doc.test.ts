/** docs/engines.md and @vox/protocol's table of engines (ENGINES) stay in step, as errors-doc.test.ts does for the error codes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES, type EngineInfo } from '@vox/protocol';
import { ROOT } from '../helpers/daemon.js';

const doc = readFileSync(join(ROOT, 'docs/engines.md'), 'utf8');
const table: readonly EngineInfo[] = ENGINES;

/** The rows of the engine table at the top: name to its cells. */
function rows(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`([a-z-]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m)
      out.set(
        m[1]!,
        m[2]!.split('|').map((c) => c.trim()),
      );
  }
  return out;
}

/** The text of a `## ` section, up to the next one. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/engines.md has no "## ${title}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

test('the table of docs/engines.md has one row per engine, and no other', () => {
  const documented = rows();
  for (const e of table) assert.ok(documented.has(e.name), `${e.name} is missing from docs/engines.md's table`);
  for (const name of documented.keys())
    assert.ok(
      table.some((e) => e.name === name),
      `${name} is in docs/engines.md but not in ENGINES`,
    );
});

test("a cloud engine's row and the Keys section name its key; a local engine needs none", () => {
  const documented = rows();
  const keys = section('Keys');
  for (const e of table) {
    assert.equal(e.kind === 'cloud', e.key !== undefined, `${e.name}: a key exactly when cloud`);
    if (!e.key) continue;
    assert.match(documented.get(e.name)![1]!, new RegExp(`\`${e.key}\``), `${e.name}'s row does not name ${e.key}`);
    assert.ok(keys.includes(e.key), `the Keys section does not name ${e.key}`);
  }
});

test("the docs give auto's order as the table ranks it", () => {
  const bullet = /- \*\*`auto`\*\* picks[\s\S]*?(?=\n- )/.exec(section('Choosing an engine'));
  assert.ok(bullet, 'the `auto` bullet of "Choosing an engine"');
  const order = [...bullet[0].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!).filter((n) => n !== 'auto');
  const named = order.filter((n, i) => order.indexOf(n) === i && table.some((e) => e.name === n));
  const ranked = [...table].sort((a, b) => a.rank - b.rank).map((e) => e.name);
  assert.deepEqual(named, ranked);
});
