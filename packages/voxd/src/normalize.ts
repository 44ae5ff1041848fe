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

export function dedupKeyFor(text: string, dedupKey?: string): string {
  return dedupKey !== undefined ? `key:${dedupKey}` : `text:${normalizeText(text)}`;
}
