/**
 * The pronunciation matcher (@vox/protocol's util/pronunciation-matcher.ts)
 * against the one regular expression it replaced, kept here as the oracle of
 * the documented semantics (docs/config.md: whole words, any case, phrases
 * across white space, longest first, one pass): random tables and texts over
 * a small alphabet, so that words overlap, nest and touch, must give the same
 * text both ways. And the caps: a table over them is refused by the parser,
 * with its line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRONUNCIATION_LIMITS } from '../../src/project/config-schema.js';
import { applyPronunciations } from '@vox/protocol';
import { parsePronunciations, type Pronunciation } from '../../src/project/pronunciations.js';

/**
 * The implementation before the matcher: one alternation, longest first. One
 * change: it lower-cased a whole match to find its row, which makes a final
 * capital sigma a final small sigma, so "ΟΔΟΣ" matched the row "οδος" and was
 * then left as it was; here, as in the matcher, each letter folds alone.
 */
function byRegex(text: string, table: readonly Pronunciation[]): string {
  const normalize = (w: string) =>
    [...w.trim().replace(/\s+/g, ' ')].map((c) => (c === '\u03c2' ? '\u03c3' : c.toLowerCase())).join('');
  const says = new Map<string, string>();
  for (const p of table) {
    const key = normalize(p.word);
    if (key && !says.has(key)) says.set(key, p.say);
  }
  if (says.size === 0) return text;
  const alternatives = [...says.keys()]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, '\\s+'));
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  return text.replace(re, (match) => says.get(normalize(match)) ?? match);
}

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'b', 'A', 'B', ' ', ' ', '\n', '.', '+', '-', '_', '1', 'é', 'É', 'ß', 'σ', 'Σ', '😀'];

function pick(r: () => number, length: number, from = ALPHABET): string {
  let s = '';
  for (let i = 0; i < length; i++) s += from[Math.floor(r() * from.length)];
  return s;
}

test('the matcher gives the text the regular expression gave, on 3,000 random tables and texts', () => {
  for (let seed = 1; seed <= 3000; seed++) {
    const r = random(seed);
    const rows = 1 + Math.floor(r() * 6);
    const table: Pronunciation[] = [];
    for (let i = 0; i < rows; i++) {
      const word = pick(r, 1 + Math.floor(r() * 4), ['a', 'b', 'A', ' ', '.', '+', '1', 'é', 'ß', 'σ', '😀']).trim();
      if (word) table.push({ word, say: `<${i}>` });
    }
    const text = pick(r, Math.floor(r() * 30));
    assert.equal(
      applyPronunciations(text, table),
      byRegex(text, table),
      `seed ${seed}: ${JSON.stringify({ table, text })}`,
    );
  }
});

test('the documented cases, both ways', () => {
  const table: Pronunciation[] = [
    { word: 'kubectl', say: 'cube control' },
    { word: 'kubectl apply', say: 'cube control apply' },
    { word: 'C++', say: 'C plus plus' },
    { word: 'pull request', say: 'P R' },
  ];
  for (const text of ['Run KUBECTL apply -f x', 'kubectls stay; C++ too', 'a Pull\n  Request', 'xkubectl', 'C++C++']) {
    assert.equal(applyPronunciations(text, table), byRegex(text, table), text);
  }
  assert.equal(applyPronunciations('Run KUBECTL  apply now', table), 'Run cube control apply now');
  // Greek final sigma: the regular expression matched "ΟΔΟΣ" and then left it unreplaced.
  assert.equal(applyPronunciations('ΟΔΟΣ and οδος', [{ word: 'οδος', say: 'street' }]), 'street and street');
});

test('a table over the caps is refused with the line of the first row past them', () => {
  const L = PRONUNCIATION_LIMITS;
  const head = ['## Pronunciations', '| word | say as |', '| --- | --- |'];
  const many = [...head, ...Array.from({ length: L.rows + 5 }, (_, i) => `| w${i} | s |`)].join('\n');
  const rows = parsePronunciations(many, 1, L);
  assert.equal(rows.entries.length, L.rows);
  assert.deepEqual(
    rows.problems.map((p) => p.line),
    [4 + L.rows],
  );
  assert.match(rows.problems[0]!.message, new RegExp(`more than ${L.rows} rows`));

  const longWord = parsePronunciations([...head, `| ${'w'.repeat(L.wordChars + 1)} | s |`].join('\n'), 1, L);
  assert.deepEqual(longWord.entries, []);
  assert.match(longWord.problems[0]!.message, new RegExp(`is ${L.wordChars + 1} characters; at most ${L.wordChars}`));
  const longSay = parsePronunciations([...head, `| w | ${'s'.repeat(L.sayChars + 1)} |`].join('\n'), 1, L);
  assert.match(
    longSay.problems[0]!.message,
    new RegExp(`"say as" cell for "w" is ${L.sayChars + 1} characters; at most ${L.sayChars}`),
  );

  const perRow = L.wordChars + L.sayChars;
  const n = Math.ceil(L.chars / perRow) + 1;
  const big = [
    ...head,
    ...Array.from({ length: n }, (_, i) => `| ${String(i).padStart(L.wordChars, 'w')} | ${'s'.repeat(L.sayChars)} |`),
  ].join('\n');
  const chars = parsePronunciations(big, 1, L);
  assert.equal(chars.problems.length, 1);
  assert.match(chars.problems[0]!.message, new RegExp(`more than ${L.chars} characters in all`));
  assert.ok(chars.entries.reduce((s, e) => s + e.word.length + e.say.length, 0) <= L.chars);
});
