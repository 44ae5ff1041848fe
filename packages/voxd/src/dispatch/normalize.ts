import { createHash } from 'node:crypto';
import { redactSecrets } from '@vox/protocol';

/**
 * The duplicate key of a text. Two requests are the same announcement when
 * they differ only in case, whitespace, trailing punctuation or bracketed
 * expressive tags (Biff appends `[alert] [serious]`). Voice and rate are not
 * part of the key: eight sessions in eight voices still say one thing.
 */
export function normalizeText(text: string): string {
  const key = text
    .normalize('NFKC')
    .replace(/\[[^\][]{1,40}\]/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
  // A loop, not `/[…]+$/`: an end-anchored run is retried from every position (quadratic).
  let end = key.length;
  while (end > 0 && TRAILING.includes(key[end - 1]!)) end--;
  return key.slice(0, end).trim();
}

const TRAILING = ' \t\n\r.!?…,;:';

/**
 * One namespace for texts and caller keys: a client that announced or re-spelled
 * its text sends the original as `dedupKey`, and must still match a client that
 * sent the original as plain text.
 */
export function dedupKeyFor(text: string, dedupKey?: string): string {
  return normalizeText(dedupKey ?? text);
}

/**
 * A duplicate key as the filter and the journal keep it: short keys as they
 * are, long ones (a text can be 20,000 characters) as a digest, so that
 * neither grows with the texts.
 */
export function storedKey(key: string): string {
  return key.length <= 64 ? key : `#${createHash('sha256').update(key).digest('base64url')}`;
}

/** The request with every secret in its text and duplicate key said as its kind (@vox/protocol secrets.ts). */
export function withoutSecrets<T extends { text: string; dedupKey?: string | undefined }>(input: T): T {
  const text = redactSecrets(input.text).text;
  const dedupKey = input.dedupKey === undefined ? undefined : redactSecrets(input.dedupKey).text;
  if (text === input.text && dedupKey === input.dedupKey) return input;
  return { ...input, text, ...(dedupKey !== undefined ? { dedupKey } : {}) };
}
