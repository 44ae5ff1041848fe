/**
 * Splits text into sentences with sentence-splitter (textlint's), which keeps
 * abbreviations, decimals and URLs intact where Intl.Segmenter breaks them.
 * Each sentence is synthesized while the previous one plays.
 *
 * Design note: sentence-splitter is worse than quadratic on some shapes
 * (measured with 5.0.1: 20,000 characters of `!"` take 8.6 s, of `Mr. ` 0.9 s),
 * and it runs on voxd's event loop. So it is only ever given windows of at
 * most WINDOW characters, cut where sentence-splitter itself saw a sentence
 * end, else at a space. The cost is then linear in the text's length. A cut
 * inside a sentence only happens in a window where no sentence ends, and such
 * a "sentence" is longer than MAX_SENTENCE_CHARS and would be cut at a word
 * anyway. A window where no separator occurs at all is not given to it:
 * it is one sentence (a reply that runs on without punctuation costs nothing).
 */
import { split } from 'sentence-splitter';

/** Sentences longer than this are cut at a word boundary, so first audio stays quick. */
const MAX_SENTENCE_CHARS = 400;

/** The most text sentence-splitter sees at once (see the design note). */
const WINDOW = 600;

export interface SentenceRange {
  /** The sentence as written. */
  raw: string;
  /** Offsets in the text: [start, end). */
  range: [number, number];
}

/**
 * Sentence ranges of `text`, found window by window (see the design note).
 * In each window every sentence but the last is kept; the last may run on
 * past the window, so the next window starts where it starts.
 */
export function sentenceRanges(text: string): SentenceRange[] {
  const out: SentenceRange[] = [];
  let start = 0;
  while (start < text.length) {
    const whole = text.length - start <= WINDOW;
    let end = whole ? text.length : start + WINDOW;
    let nodes = sentencesIn(text.slice(start, end));
    if (!whole) {
      if (nodes.length >= 2) {
        nodes = nodes.slice(0, -1);
        end = start + nodes.at(-1)!.range[1];
      } else {
        // No sentence ends in the window: cut at its last space.
        const space = text.lastIndexOf(' ', end - 1);
        if (space > start) end = space + 1;
        nodes = sentencesIn(text.slice(start, end));
      }
    }
    for (const node of nodes) out.push({ raw: node.raw, range: [start + node.range[0], start + node.range[1]] });
    start = Math.max(end, start + 1);
  }
  return out;
}

/** What sentence-splitter ends a sentence at (its separators, and a line break). */
const SEPARATOR = /[.．。?!？！\r\n]/;

function sentencesIn(text: string): SentenceRange[] {
  // Nothing can end a sentence here: it is one, as sentence-splitter would find it (its leading space apart), for no work.
  if (!SEPARATOR.test(text)) {
    const lead = /^\s*/.exec(text)![0].length;
    return lead === text.length ? [] : [{ raw: text.slice(lead), range: [lead, text.length] }];
  }
  const out: SentenceRange[] = [];
  for (const node of split(text))
    if (node.type === 'Sentence') out.push({ raw: node.raw, range: [node.range[0], node.range[1]] });
  return out;
}

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const node of sentenceRanges(text)) {
    let s = node.raw.replace(/\s+/g, ' ').trim();
    while (s.length > MAX_SENTENCE_CHARS) {
      let cut = s.lastIndexOf(' ', MAX_SENTENCE_CHARS);
      if (cut <= 0) cut = MAX_SENTENCE_CHARS;
      out.push(s.slice(0, cut).trim());
      s = s.slice(cut).trim();
    }
    if (s) out.push(s);
  }
  return out.length > 0 ? out : [text.trim()].filter(Boolean);
}
