/**
 * Every text transformation voxd runs on a request is linear in the text's
 * length: adversarial inputs at the request maximum (20,000 characters) must
 * not stall the event loop (issue: ten such requests kept /v1/health waiting
 * 12 s).
 *
 * The check is on growth, not on time: each input is run at half the maximum
 * and at twice it, and the CPU time may grow by at most GROWTH (linear work
 * grows 4x, quadratic 16x). Both sizes are past the size-triggered guards
 * (the emphasis budget), so a guard switching on does not read as growth. The best of several runs is taken,
 * and a shape is measured again before it is called superlinear, so a busy
 * machine does not fail the test; a quadratic pattern fails every time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MAX_TEXT_CHARS } from '@vox/protocol';

import { normalizeText } from '../../src/dispatch/normalize.js';
import { sentenceRanges, splitSentences } from '../../src/text/sentences.js';
import { cleanForSpeech } from '../../src/text/cleanup.js';
import { INLINE_RULES_PATCHED } from '../../src/text/markdown.js';
import { stripTags } from '../../src/text/tags.js';
import { truncateAtSentence } from '../../src/text/truncate.js';

const GROWTH = 8;
const SMALL = MAX_TEXT_CHARS / 2;
const LARGE = MAX_TEXT_CHARS * 2;

/** Shapes that were quadratic or worse before (each named by what made it so), and generic ones. */
const SHAPES: Array<[name: string, unit: string]> = [
  ['e-mail local-part run (marked autolink lookahead)', '!'],
  ['plus signs (path pattern started inside a run)', '+1'],
  ['headings of nothing (a run of spaces before a pipe pattern)', '# '],
  ['empty brackets (spaces left before closers)', '[]'],
  ['reversed parentheses', ')('],
  ['arrows', 'a→'],
  ['pipes after hashes', '#|'],
  ['quote and question mark (sentence-splitter)', '"?'],
  ['exclamation and quote (sentence-splitter)', '!"'],
  ['abbreviations (sentence-splitter)', 'Mr. '],
  ['emphasis markers', '*a'],
  ['underscores', '_a'],
  ['backslash underscores', '\\_'],
  ['slashes', 'a/'],
  ['dots', 'a.'],
  ['hyphens', '-'],
  ['colons', ':'],
  ['commas and spaces', ', '],
  ['backticks', '`a'],
  ['tildes', '~'],
  ['angle brackets', '<a'],
  ['ampersands', '&a'],
  ['bracketed words (tags)', '[a] '],
  ['lines', 'a\n'],
  ['quotes', '> '],
  ['list items', '- a\n'],
  ['table cells', '|a'],
  ['spaces', ' '],
  ['words', 'word '],
  ['hex ids', 'ab12cd34ef56 '],
  ['html comments', '<!--'],
  ['entities', '&amp;'],
];

/** `unit` repeated to `length` characters, with an ending that defeats end-anchored patterns. */
function input(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length - 1) + 'x';
}

function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function best(fn: () => unknown, runs: number): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) min = Math.min(min, cpuMs(fn));
  return min;
}

/** The growth of `transform`'s CPU time from SMALL to LARGE characters, best of three tries. */
function growth(transform: (text: string) => unknown, unit: string): { ratio: number; small: number; large: number } {
  const small = input(unit, SMALL);
  const large = input(unit, LARGE);
  let last = { ratio: Infinity, small: 0, large: 0 };
  for (let attempt = 0; attempt < 3; attempt++) {
    transform(small); // warm up: compile the regular expressions, fill caches
    const s = best(() => transform(small), 3);
    const l = best(() => transform(large), 2);
    // Below a millisecond, timer resolution is the ratio; such a run is linear enough.
    last = { ratio: l < 2 ? 1 : l / Math.max(s, 0.25), small: s, large: l };
    if (last.ratio <= GROWTH) return last;
  }
  return last;
}

const TRANSFORMS: Array<[name: string, fn: (text: string) => unknown]> = [
  // Infinity keeps the truncation step out, so a size that crosses maxChars does not skew the ratio; truncation is measured on its own.
  ['cleanForSpeech', (t) => cleanForSpeech(t, { maxChars: Infinity })],
  ['cleanForSpeech keeping tags', (t) => cleanForSpeech(t, { maxChars: Infinity, keepTags: true })],
  ['normalizeText (the duplicate key)', normalizeText],
  ['splitSentences', splitSentences],
  ['truncateAtSentence', (t) => truncateAtSentence(t, t.length - 100)],
  ['stripTags', stripTags],
];

describe('text transformations are linear in the length of the text', () => {
  it("bounds the e-mail runs in all five of marked's autolink patterns", () => {
    // If marked changes its rules, this says so before the daemon slows down.
    assert.equal(INLINE_RULES_PATCHED, 5);
  });

  for (const [name, fn] of TRANSFORMS) {
    it(`${name}: CPU time grows at most ${GROWTH}x from ${SMALL} to ${LARGE} characters`, () => {
      const slow: string[] = [];
      for (const [shape, unit] of SHAPES) {
        const g = growth(fn, unit);
        if (g.ratio > GROWTH)
          slow.push(
            `${shape} (${JSON.stringify(unit)}): ${g.small.toFixed(1)} ms -> ${g.large.toFixed(1)} ms, ${g.ratio.toFixed(1)}x`,
          );
      }
      assert.deepEqual(slow, [], `superlinear on:\n${slow.join('\n')}`);
    });
  }
});

describe('sentence windows', () => {
  it('finds the same sentences as one pass on ordinary text', () => {
    const text = Array.from(
      { length: 60 },
      (_, i) => `Sentence number ${i + 1} says e.g. that Mr. Smith paid 3.50 dollars.`,
    ).join(' ');
    const ranges = sentenceRanges(text);
    assert.equal(ranges.length, 60);
    for (const r of ranges) assert.equal(text.slice(r.range[0], r.range[1]), r.raw);
    assert.ok(
      ranges.every((r) => /^Sentence number \d+ says e\.g\. that Mr\. Smith paid 3\.50 dollars\.$/.test(r.raw.trim())),
    );
  });

  it('cuts a text without any sentence end at spaces, keeping every word', () => {
    const text = 'word '.repeat(2000).trim();
    const sentences = splitSentences(text);
    assert.ok(sentences.length > 1);
    assert.equal(sentences.join(' '), text);
  });
});
