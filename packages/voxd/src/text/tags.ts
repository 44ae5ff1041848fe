/**
 * Expressive tags: bracketed moods and stage directions such as `[alert]`,
 * `[excited]` or `[whispers softly]`. Biff appends them to every wall; engines
 * like ElevenLabs v3 perform them, every other engine would read them aloud.
 *
 * A tag is one to three lowercase words in square brackets that stands alone:
 * preceded by the start of the text or whitespace, and not followed by a
 * letter, a digit, `(` or `[`. So `a[0]`, `arr[i]`, `[Draft]`, `[1, 2]` and
 * markdown links `[text](url)` / `[text][ref]` are never tags.
 */

const WORD = "[a-z][a-z'-]*";
const TAG_BODY = `\\[${WORD}(?: ${WORD}){0,2}\\]`;

/** One tag, standing alone (see the module note). */
export const TAG_SOURCE = `(?<=^|\\s)${TAG_BODY}(?![\\p{L}\\p{N}_(\\[])`;

/** Longest tag body we accept: longer bracketed phrases are prose, not moods. */
const MAX_TAG_LENGTH = 32;

const TAG_WITH_SPACE = new RegExp(`(?<![ \\t])[ \\t]*${TAG_SOURCE}`, 'gu');
const WHOLE_TAG = new RegExp(`^${TAG_BODY}$`, 'u');

/** Whether `text` (brackets included) is exactly one expressive tag. */
export function isTag(text: string): boolean {
  return text.length <= MAX_TAG_LENGTH && WHOLE_TAG.test(text);
}

/** Remove bracketed expressive/mood tags such as "[alert] [serious]" or "[excited]". */
export function stripTags(text: string): string {
  return text.replace(TAG_WITH_SPACE, (match) => (isTag(match.trimStart()) ? '' : match)).trim();
}

/**
 * Splits `text` into its body and the run of tags at its end, so punctuation
 * can be added to the body: `hold merges [alert]` → [`hold merges`, ` [alert]`].
 */
export function splitTrailingTags(text: string): [body: string, tags: string] {
  // Scanned from the end by hand: an end-anchored regex would retry from every
  // earlier tag and turn quadratic on a text full of tags.
  let cut = text.length;
  for (;;) {
    let end = cut;
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    if (text[end - 1] !== ']') break;
    const start = text.lastIndexOf('[', end - 1);
    if (start < 0 || !isTag(text.slice(start, end))) break;
    if (start > 0 && !/\s/.test(text[start - 1]!)) break;
    cut = start;
  }
  let bodyEnd = cut;
  while (bodyEnd > 0 && /\s/.test(text[bodyEnd - 1]!)) bodyEnd--;
  return cut === text.length ? [text, ''] : [text.slice(0, bodyEnd), text.slice(bodyEnd)];
}
