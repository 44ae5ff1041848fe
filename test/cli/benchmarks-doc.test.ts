/**
 * docs/benchmarks.md keeps up with bench/: every bench script has a section
 * (its budget, latest figure, command and what it measures), no section
 * names a bench that is gone, the history stays newest first, and the links
 * into both pages (and out of them) name headings that exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/daemon.js';

const DOCS = join(ROOT, 'docs');
const read = (file: string) => readFileSync(file, 'utf8');
const reference = read(join(DOCS, 'benchmarks.md'));
const history = read(join(DOCS, 'benchmarks-history.md'));

/** Scripts of bench/ that measure nothing themselves: shared code, the runners, the remote set-up. */
const HELPERS = ['lib.mjs', 'run.mjs', 'compare.mjs', 'remote-lib.mjs'];
const benches = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.mjs') && !HELPERS.includes(f))
  .sort();

/** The headings of a Markdown text, outside fenced code blocks. */
function headings(text: string): { level: number; title: string }[] {
  const out: { level: number; title: string }[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push({ level: m[1]!.length, title: m[2]! });
  }
  return out;
}

/** GitHub's anchors for a page's headings (github-slugger: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { title } of headings(text)) {
    const base = title
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The figure sections of the reference: each `###` heading that names a bench script, with its text. */
function sections(): { title: string; body: string }[] {
  const parts = reference.split(/^### /m).slice(1);
  return parts
    .map((p) => ({ title: p.slice(0, p.indexOf('\n')), body: p.split(/^## /m)[0]! }))
    .filter((s) => /bench\/[\w-]+\.mjs/.test(s.title));
}

test('every bench script has a section of its own in docs/benchmarks.md', () => {
  assert.ok(benches.length > 20, `only ${benches.length} bench scripts found`);
  const titles = sections().map((s) => s.title);
  for (const b of benches)
    assert.ok(
      titles.some((t) => t.includes(`\`bench/${b}\``)),
      `bench/${b} has no "### ... (\`bench/${b}\`)" section in docs/benchmarks.md`,
    );
});

test('the helpers and the floors are named in docs/benchmarks.md', () => {
  const others = readdirSync(join(ROOT, 'bench')).filter((f) => HELPERS.includes(f) || f.endsWith('.cjs'));
  assert.ok(others.length >= HELPERS.length + 2);
  for (const f of others) assert.ok(reference.includes(`bench/${f}`), `bench/${f} is not named in docs/benchmarks.md`);
});

test('every section names a bench that exists, and gives its budget, latest value, command and what it measures', () => {
  for (const { title, body } of sections()) {
    for (const [, name] of title.matchAll(/bench\/([\w-]+\.mjs)/g))
      assert.ok(existsSync(join(ROOT, 'bench', name!)), `"${title}" names bench/${name}, which does not exist`);
    for (const field of ['**Budget**', '**Latest**', '**Command**', '**Measures**'])
      assert.ok(body.includes(field), `"${title}" has no ${field}`);
  }
});

test('the history is newest first, every entry dated', () => {
  const entries = headings(history).filter((h) => h.level === 2);
  assert.ok(entries.length > 10, 'the history has almost no entries');
  let previous = '9999-99-99';
  for (const { title } of entries) {
    const date = /\d{4}-\d{2}-\d{2}/.exec(title)?.[0];
    assert.ok(date, `history entry "${title}" has no date`);
    assert.ok(date <= previous, `history entry "${title}" is older than the one before it (${previous})`);
    previous = date;
  }
  assert.ok(reference.includes('](benchmarks-history.md)'), 'docs/benchmarks.md does not link to its history');
});

test('links into and out of the benchmark pages name headings that exist', () => {
  const pages = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!pages.has(file)) pages.set(file, anchors(read(file)));
    return pages.get(file)!;
  };
  const linking = [
    ...readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(DOCS, f)),
    join(ROOT, 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
  ];
  let checked = 0;
  for (const file of linking) {
    const own = /benchmarks(-history)?\.md$/.test(file);
    for (const [, target, anchor] of read(file).matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
      const into = /(^|\/)benchmarks(-history)?\.md$/.test(target!);
      if (!own && !into) continue;
      const dest = target ? join(file, '..', target) : file;
      assert.ok(existsSync(dest), `${file}: link to ${target}, which does not exist`);
      assert.ok(anchorsOf(dest).has(anchor!), `${file}: no heading for #${anchor} in ${target || 'the same page'}`);
      checked += 1;
    }
  }
  assert.ok(checked > 50, `only ${checked} links checked`);
});
