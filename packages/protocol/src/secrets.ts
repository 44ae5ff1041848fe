/**
 * Secrets in text that is spoken or kept: credentials are said as their kind
 * ("a bearer token") and never stored, so a command that holds one can still
 * be heard whole but for the secret's value. voxd redacts every request's
 * text before it is spoken, kept in history, journaled or logged; vox redacts
 * a voice question and its decision log line the same way.
 *
 * Design notes:
 * - Known shapes only: bearer and basic credentials, the API keys of the
 *   common providers (their documented prefixes), JSON web tokens, URL
 *   user:password, `NAME=value` and `--name value` where the name says key,
 *   token, secret, password or credential, and private key blocks. Entropy
 *   guesses would also hide commit hashes and ids the person must hear.
 * - Each pattern is linear (no nested quantifiers), so a 4 KB command costs
 *   well under a millisecond (bench/secrets.mjs).
 */

/** One secret found: where it is, and what it is said as. */
export interface SecretSpan {
  start: number;
  end: number;
  /** What is said instead, e.g. "a bearer token". */
  said: string;
}

interface Shape {
  re: RegExp;
  said: string;
  /** The capture group that is the secret (the rest of the match stays); 0: all of it. */
  group?: number;
}

/** A name that ends in what it holds: GITHUB_TOKEN, api_key, client-secret, DB_PASSWORD (not max_tokens, token_count). */
const SECRET_NAME = String.raw`(?:[A-Za-z0-9]{1,32}[_.-]){0,4}(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|token|password|passwd|pwd|credentials?|private[_-]?key)`;

const SHAPES: readonly Shape[] = [
  {
    re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,20000}?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)/g,
    said: 'a private key',
  },
  { re: /\bBearer\s+([A-Za-z0-9\-._~+/]{8,}=*)/gi, said: 'a bearer token', group: 0 },
  { re: /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})/g, said: 'basic credentials', group: 0 },
  { re: /\b(?:sk-ant-[A-Za-z0-9_-]{16,})/g, said: 'an Anthropic API key' },
  { re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, said: 'an OpenAI API key' },
  { re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g, said: 'a GitHub token' },
  { re: /\bglpat-[A-Za-z0-9_-]{20,}/g, said: 'a GitLab token' },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, said: 'an AWS key' },
  { re: /\bAIza[0-9A-Za-z_-]{35}/g, said: 'a Google API key' },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, said: 'a Slack token' },
  { re: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g, said: 'a Stripe key' },
  { re: /\bhf_[A-Za-z0-9]{30,}/g, said: 'a Hugging Face token' },
  { re: /\bnpm_[A-Za-z0-9]{36}\b/g, said: 'an npm token' },
  { re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, said: 'a JSON web token' },
  // https://user:password@host: the credentials, not the host.
  { re: /\b[a-z][a-z0-9+.-]{1,15}:\/\/([^\s/:@]{1,128}:[^\s/@]{1,256})@/gi, said: 'credentials', group: 1 },
  // NAME=value, NAME: value, "name": "value" where the name says what it is.
  {
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9_.-])"?${SECRET_NAME}"?\s{0,3}[=:]\s{0,3}("[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'&;|,}]{0,511}[^\s"'&;|,}.])`,
      'gi',
    ),
    said: 'a secret',
    group: 1,
  },
  // --password VALUE, --token=VALUE, -p is too ambiguous to take.
  {
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9_-])--?${SECRET_NAME}(?:=|\s{1,3})("[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'&;|]{0,511}[^\s"'&;|.])`,
      'gi',
    ),
    said: 'a secret',
    group: 1,
  },
];

/** The secrets in `text`, in order, not overlapping (the first found wins). */
export function findSecrets(text: string): SecretSpan[] {
  const found: Array<SecretSpan & { rank: number }> = [];
  for (const [rank, shape] of SHAPES.entries()) {
    shape.re.lastIndex = 0;
    for (let m = shape.re.exec(text); m; m = shape.re.exec(text)) {
      if (m[0].length === 0) {
        shape.re.lastIndex += 1;
        continue;
      }
      const g = shape.group ?? 0;
      const value = m[g];
      if (value === undefined) continue;
      const start = g === 0 ? m.index : m.index + m[0].lastIndexOf(value);
      found.push({ start, end: start + value.length, said: shape.said, rank });
    }
  }
  // Where two shapes find the same secret, the more specific (earlier in SHAPES) names it.
  found.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const spans: SecretSpan[] = [];
  for (const { rank: _, ...s } of found) if (!spans.length || s.start >= spans[spans.length - 1]!.end) spans.push(s);
  return spans;
}

/** `text` with each secret said as its kind; `kinds` lists what was hidden (for a log line), in order. */
export function redactSecrets(text: string): { text: string; kinds: string[] } {
  const spans = findSecrets(text);
  if (!spans.length) return { text, kinds: [] };
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${text.slice(at, s.start)}${s.said}`;
    at = s.end;
  }
  return { text: out + text.slice(at), kinds: spans.map((s) => s.said) };
}
