/**
 * The pronunciation matcher: applies a `## Pronunciations` table (vox's
 * project/pronunciations.ts reads it from `.vox/config.md`) to text: vox
 * applies it before it sends a text to voxd, and voxd to the vox mod's
 * narration batches, with the table the session's `vox mcp` declared
 * (POST /v1/narration/session). One copy, here, for both.
 *
 * Design note: replacement is done in ONE pass over the text: from each place
 * a word may start, a trie's walk down the table's words (folded to lower
 * case, a run of spaces as one space; kept as one sorted array, see Compiled)
 * takes the longest word that ends there. One pass means a replacement is never replaced again (`vox` →
 * `vocks` cannot turn into something else through a second entry), and
 * longest first means `kubectl apply` wins over `kubectl`. "Whole word" is
 * judged with Unicode letters and digits rather than `\b`, so entries such as
 * `C++` or `k8s` work and `kubectl` does not match inside `kubectls`.
 * Rejected: one regular expression of every word, longest first (what this
 * module did): a table from a cloned repository set the cost of every call
 * (440 long rows: 1.2 s to compile per process, 43 s for a long text), and a
 * large one was not a valid regular expression at all. Rejected too: an
 * Aho-Corasick automaton, and a trie of nodes: failure links buy nothing
 * when the walk from a start is bounded by the longest word
 * (PRONUNCIATION_LIMITS.wordChars), and nodes cost more to build (a trie of
 * 20,000 characters took ~25 ms), which every `vox say` does. The table's size is capped
 * (PRONUNCIATION_LIMITS, checked by vox's parser and so by `vox config check`,
 * and by voxd's schema of a declared table), which bounds both the build and
 * the walk.
 *
 * This module imports nothing: `vox say` loads it on every run.
 */

/** One row of a table. */
export interface Pronunciation {
  /** The word or phrase as written. Matched whole, in any case. */
  word: string;
  /** What the engine is given instead. */
  say: string;
}

/** The caps on a table (PRONUNCIATION_LIMITS holds the values, docs/config.md states them). */
export interface PronunciationLimits {
  /** Rows in all the tables together. */
  rows: number;
  /** Characters of one word cell. */
  wordChars: number;
  /** Characters of one "say as" cell. */
  sayChars: number;
  /** Characters of every word and "say as" cell together. */
  chars: number;
}

/**
 * The caps on the pronunciations table (docs/config.md). A table is applied
 * to every text a project speaks, and a cloned repository chooses it: these
 * bound what it can cost each call (bench/pronunciations.mjs measures `vox
 * hook` with the largest table allowed). Real tables are tens of short rows.
 */
export const PRONUNCIATION_LIMITS: Readonly<PronunciationLimits> = Object.freeze({
  rows: 200,
  wordChars: 100,
  sayChars: 200,
  chars: 10_000,
});

/**
 * The compiled table: its words folded (lower case per code point, white
 * space runs as one space), sorted by UTF-16 units, with their spoken forms.
 * Sorted, the words that start with a prefix are one range of the array, so
 * the walk down them (a trie's walk) narrows a range by binary search instead
 * of following nodes: building it is one sort, which matters more here than a
 * trie's constant factor, since every `vox say` and `vox hook` builds it.
 */
interface Compiled {
  keys: string[];
  says: string[];
}

const SPACE = /\s/;
const WORD = /[\p{L}\p{N}_]/u;
const ASCII = /^[\x00-\x7f]*$/;

/** Whether the code point `c` (as a string) is a letter, digit or `_`: what "whole word" is judged by. */
function isWord(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128)
    return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  return WORD.test(c);
}

/** One code point, folded for matching: lower case (per code point, so a table and a text fold alike; final sigma as sigma). */
function fold(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 128) return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
  return c === '\u03c2' ? '\u03c3' : c.toLowerCase();
}

function isSpace(c: string): boolean {
  const code = c.charCodeAt(0);
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && SPACE.test(c));
}

/** The code point of `text` at `i` (one or two UTF-16 units). */
function codePointAt(text: string, i: number): string {
  const hi = text.charCodeAt(i);
  if (hi >= 0xd800 && hi <= 0xdbff && i + 1 < text.length) {
    const lo = text.charCodeAt(i + 1);
    if (lo >= 0xdc00 && lo <= 0xdfff) return text.slice(i, i + 2);
  }
  return text[i]!;
}

/** The code point that ends just before `i`. */
function codePointBefore(text: string, i: number): string {
  const lo = text.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1]!;
}

/** A word as the walk reads text: folded per code point, trimmed, each run of white space one space. */
function foldWord(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase().trim().replace(/\s+/g, ' ');
  let out = '';
  let space = false;
  for (let i = 0; i < word.length;) {
    const c = codePointAt(word, i);
    i += c.length;
    if (isSpace(c)) space = out.length > 0;
    else {
      out += space ? ` ${fold(c)}` : fold(c);
      space = false;
    }
  }
  return out;
}

function compile(table: readonly Pronunciation[]): Compiled {
  const rows = table.map((p, i) => ({ key: foldWord(p.word), say: p.say, i })).filter((r) => r.key !== '');
  rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  const keys: string[] = [];
  const says: string[] = [];
  for (const r of rows) {
    // The first row of a word wins (a later one folding alike is a duplicate the parser reports).
    if (keys.length && keys[keys.length - 1] === r.key) continue;
    keys.push(r.key);
    says.push(r.say);
  }
  return { keys, says };
}

// Compiled once per table: by identity (one ResolvedConfig used again), and
// by content for the last table seen, since `vox mcp` reads the config again
// on every call and gets an equal table in a new array.
const byIdentity = new WeakMap<readonly Pronunciation[], Compiled>();
let last: { key: string; compiled: Compiled } | undefined;

function compiledOf(table: readonly Pronunciation[]): Compiled {
  let c = byIdentity.get(table);
  if (c) return c;
  let key = '';
  for (const p of table) key += `${p.word}\u0000${p.say}\u0000`;
  if (last?.key === key) c = last.compiled;
  else {
    c = compile(table);
    last = { key, compiled: c };
  }
  byIdentity.set(table, c);
  return c;
}

/** The first index in [lo, hi) whose key's unit at `depth` is not below `unit` (`above`: above it); keys shorter than depth+1 sort first. */
function bound(keys: string[], lo: number, hi: number, depth: number, unit: number, above: boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    const u = depth < k.length ? k.charCodeAt(depth) : -1;
    if (above ? u <= unit : u < unit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The longest word of the table that starts at `start` and ends a whole word:
 * its end in `text` and its index, or -1. A run of white space in the text
 * matches the one space of a phrase.
 */
function longestAt(text: string, start: number, keys: string[]): { end: number; index: number } | undefined {
  let lo = 0;
  let hi = keys.length;
  let depth = 0;
  let found: { end: number; index: number } | undefined;
  for (let i = start; i < text.length && lo < hi;) {
    const c = codePointAt(text, i);
    let f: string;
    if (isSpace(c)) {
      f = ' ';
      i += c.length;
      while (i < text.length && isSpace(codePointAt(text, i))) i += codePointAt(text, i).length;
    } else {
      f = fold(c);
      i += c.length;
    }
    for (let u = 0; u < f.length && lo < hi; u++, depth++) {
      const unit = f.charCodeAt(u);
      lo = bound(keys, lo, hi, depth, unit, false);
      hi = bound(keys, lo, hi, depth, unit, true);
    }
    // The shortest key of the range sorts first: it ends here when its length is the depth.
    if (lo < hi && f !== ' ' && keys[lo]!.length === depth && (i >= text.length || !isWord(codePointAt(text, i))))
      found = { end: i, index: lo };
  }
  return found;
}

/**
 * Replaces each whole-word, case-insensitive occurrence of a table's words by
 * its spoken form, longest words first, in one pass.
 *
 * Cost: linear in the text for a given table: from each place a word may
 * start, one walk down the sorted words, at most as deep as the longest
 * (PRONUNCIATION_LIMITS.wordChars), each step two binary
 * searches; the table is compiled once (compiledOf).
 *
 * @example applyPronunciations('run kubectl', [{ word: 'kubectl', say: 'cube control' }]) // 'run cube control'
 */
export function applyPronunciations(text: string, table: readonly Pronunciation[]): string {
  if (table.length === 0 || text.length === 0) return text;
  const { keys, says } = compiledOf(table);
  if (keys.length === 0) return text;
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length;) {
    if (i > 0 && isWord(codePointBefore(text, i))) {
      i += codePointAt(text, i).length;
      continue;
    }
    const hit = longestAt(text, i, keys);
    if (hit) {
      out += text.slice(copied, i) + says[hit.index]!;
      copied = i = hit.end;
    } else i += codePointAt(text, i).length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
