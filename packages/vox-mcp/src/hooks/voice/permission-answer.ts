/**
 * The spoken answer to a permission prompt: a small strict grammar, no
 * guessing. The transcript is normalised (case, punctuation, spacing, a
 * leading "please" or a trailing "please" / "thanks") and must then be one
 * of the phrases below, exactly. Anything else is no answer, and the prompt
 * stays for the keyboard: a transcriber's near miss ("a low", "hello") must
 * never allow a tool.
 *
 * Rejected: fuzzy matching (edit distance, "contains allow"). "Don't allow"
 * contains "allow"; a misheard word is exactly the case to leave alone.
 */

export type PermissionAnswer = 'allow' | 'always' | 'deny';

/** Phrases that allow this once. */
export const ALLOW_PHRASES: readonly string[] = [
  'allow',
  'allow it',
  'allow once',
  'allow it once',
  'yes',
  'yes allow',
  'yes allow it',
  'approve',
  'approved',
];
/** Phrases that allow and keep the prompt's own suggestion ("always allow"), where it offers one. */
export const ALWAYS_PHRASES: readonly string[] = [
  'always',
  'always allow',
  'allow always',
  'always allow it',
  'yes always',
];
/** Phrases that deny. */
export const DENY_PHRASES: readonly string[] = [
  'deny',
  'deny it',
  'no',
  'no deny',
  'reject',
  'refuse',
  'do not allow',
  'dont allow',
];

/** Longest transcript considered: an answer is a few words; a paragraph is not one. */
export const MAX_ANSWER_CHARS = 80;

/** Lower case, letters and spaces only, single spaces, courtesy words at the ends dropped. */
export function normaliseAnswer(transcript: string): string {
  let s = transcript
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2019']/g, '')
    .replace(/[^a-z]+/g, ' ')
    .trim();
  s = s.replace(/^please /, '').replace(/ (?:please|thanks|thank you)$/, '');
  return s;
}

/**
 * The answer a transcript gives, or undefined when it is not one of the
 * phrases. "always" counts only where the prompt offers it (`offersAlways`);
 * elsewhere it is no answer, not a quiet downgrade to "allow".
 */
export function matchAnswer(transcript: string, offersAlways: boolean): PermissionAnswer | undefined {
  if (transcript.length > MAX_ANSWER_CHARS) return undefined;
  const s = normaliseAnswer(transcript);
  if (!s) return undefined;
  if (DENY_PHRASES.includes(s)) return 'deny';
  if (ALLOW_PHRASES.includes(s)) return 'allow';
  if (ALWAYS_PHRASES.includes(s)) return offersAlways ? 'always' : undefined;
  return undefined;
}
