/**
 * The first phrase of a sentence, for engines that render a whole sentence
 * before any of it can be heard (sherpa-onnx's VITS, Kokoro and Piper voices).
 * Rendering a short first phrase on its own lets the audio start after a
 * fraction of the sentence's work; the rest follows while it plays.
 *
 * The cost is prosody: the phrase is rendered without the rest of its
 * sentence. So a sentence is split only where a speaker would pause anyway
 * (after a comma, semicolon or colon, before a dash), or else before a word
 * that opens a clause ("and", "because", "which"...). Short sentences, and
 * sentences with no such place, are left whole. The words are English; in
 * other languages only the punctuation counts.
 */

/** Sentences shorter than this are rendered whole: they are quick anyway. */
export const MIN_SPLIT_CHARS = 40;
/** The first phrase has at least this many characters... */
const MIN_HEAD = 16;
/** ...and the rest at least this many. */
const MIN_REST = 12;
/** The first phrase is at most this share of the sentence: past it the gain is small. */
const MAX_HEAD_SHARE = 0.6;

const PAUSE = /[,;:](?=\s)|\s(?=[\u2013\u2014]\s)/g;
const CLAUSE_WORD =
  /\s(?=(?:and|but|or|so|yet|because|although|though|while|whereas|which|who|whose|where|when|whenever|after|before|since|until|unless|if|then)\b)/gi;

/**
 * Where `sentence` splits into a first phrase and the rest, as two trimmed
 * strings; undefined when it is better rendered whole.
 */
export function splitFirstPhrase(sentence: string): [string, string] | undefined {
  const text = sentence.trim();
  if (text.length < MIN_SPLIT_CHARS) return undefined;
  const maxHead = Math.floor(text.length * MAX_HEAD_SHARE);
  // A pause in the punctuation wins over a clause word: it is where the voice stops anyway.
  for (const pattern of [PAUSE, CLAUSE_WORD]) {
    for (const m of text.matchAll(pattern)) {
      // Punctuation stays with the phrase it ends; a dash or a space goes with neither.
      const end = m[0].trim() === '' ? m.index : m.index + 1;
      const head = text.slice(0, end).trim();
      const rest = text.slice(end).replace(/^[\s\u2013\u2014]+/, '');
      if (head.length < MIN_HEAD) continue;
      if (head.length > maxHead) break;
      if (rest.length < MIN_REST) break;
      return [head, rest];
    }
  }
  return undefined;
}
