/**
 * Cutting spoken text to a length. Whole sentences are kept (found with
 * sentenceRanges, which knows abbreviations such as "e.g." and "Mr." and
 * is what the rest of voxd uses to split text); when even the first sentence
 * is too long, the cut falls at the last space that fits, never inside a word.
 */
import { sentenceRanges } from './sentences.js';
import { trimEnd } from './rewrite.js';

/**
 * How far past `maxChars` the sentence splitter looks, so that a sentence
 * ending right at the limit is still recognised as ended (abbreviation checks
 * look at the next word).
 */
const LOOKAHEAD = 200;

/** `text` cut to at most `maxChars` characters at a sentence, else a word, boundary. */
export function truncateAtSentence(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = 0;
  for (const node of sentenceRanges(text.slice(0, maxChars + LOOKAHEAD))) {
    if (node.range[1] > maxChars) break;
    end = node.range[1];
  }
  if (end > 0) return text.slice(0, end).trim();
  return cutAtWord(text, maxChars);
}

function cutAtWord(text: string, maxChars: number): string {
  // The character at maxChars decides whether the word before it is whole.
  const head = text.slice(0, maxChars + 1);
  const space = head.search(/\s\S*$/);
  if (space <= 0) return text.slice(0, maxChars); // one word longer than the limit: nothing better exists
  return trimEnd(text.slice(0, space), ' \t\n,;:–—-').trim();
}
