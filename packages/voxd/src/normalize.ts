/**
 * The duplicate key of a text. Two requests are the same announcement when
 * they differ only in case, whitespace, trailing punctuation or bracketed
 * expressive tags (Biff appends `[alert] [serious]`). Voice and rate are not
 * part of the key: eight sessions in eight voices still say one thing.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/\[[^\][]{1,40}\]/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!?…,;:]+$/u, '')
    .trim();
}

/**
 * One namespace for texts and caller keys: a client that announced or re-spelled
 * its text sends the original as `dedupKey`, and must still match a client that
 * sent the original as plain text.
 */
export function dedupKeyFor(text: string, dedupKey?: string): string {
  return normalizeText(dedupKey ?? text);
}
