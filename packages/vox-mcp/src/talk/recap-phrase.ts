/**
 * "What did I miss?" said or typed to `vox talk` with no session named runs
 * `vox recap` (docs/attention.md). The whole text must be one of a few exact
 * phrases, case and punctuation aside: a message that merely contains the
 * words ("api: what did I miss in the logs") is a session's, never a recap.
 */
const PHRASES = new Set(['what did i miss', 'what have i missed', "what'd i miss"]);

/** The text without case, outer punctuation, or runs of blanks; straight apostrophes for curly ones. */
function normal(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether the whole text asks for a recap. */
export function isRecapPhrase(text: string): boolean {
  return PHRASES.has(normal(text));
}
