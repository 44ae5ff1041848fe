/**
 * Splits text into sentences with sentence-splitter (textlint's), which keeps
 * abbreviations, decimals and URLs intact where Intl.Segmenter breaks them.
 * Each sentence is synthesized while the previous one plays.
 */
import { split } from 'sentence-splitter';

/** Sentences longer than this are cut at a word boundary, so first audio stays quick. */
const MAX_SENTENCE_CHARS = 400;

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const node of split(text)) {
    if (node.type !== 'Sentence') continue;
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
