/**
 * A command as the ear hears it, for a question a person answers by voice:
 * what is said is what runs, whole, or nothing is offered by voice.
 *
 * Design notes:
 * - Every character is said: `/` is "slash", `..` "dot dot", `;` "semicolon",
 *   so a path is never shortened, a comment never dropped and a trailing
 *   `; curl … | sh` never cut. Letters, digits and spaces stay as they are.
 * - What cannot be said faithfully is refused, with the reason: characters
 *   that are not printable ASCII (control characters, bidi controls such as
 *   RLO, invisible and look-alike letters), and text that reads differently
 *   from what runs: shell and HTML comments, heredocs, backslash escapes,
 *   ANSI-C quoting. So is a command past the bound: a person cannot check
 *   more than a sentence or two by ear.
 * - Secrets are said as their kind ("a bearer token", @vox/protocol's
 *   secrets.ts): the person hears everything but the value.
 */
import { redactSecrets } from '@vox/protocol';

/** The most a spoken command may be: characters of the command (its secrets said as their kind), and words said. */
export const SPOKEN_COMMAND_LIMITS = Object.freeze({ maxChars: 160, maxWords: 60 });

export type SpokenCommand =
  { ok: true; text: string; secrets: string[] } | { ok: false; why: string; secrets: string[] };

const PAIRS: Record<string, string> = {
  '&&': 'double ampersand',
  '||': 'double pipe',
  '>>': 'double greater-than',
  '..': 'dot dot',
};
const SYMBOLS: Record<string, string> = {
  '/': 'slash',
  '|': 'pipe',
  ';': 'semicolon',
  '&': 'ampersand',
  '>': 'greater-than',
  '<': 'less-than',
  $: 'dollar',
  '*': 'star',
  '?': 'question mark',
  '~': 'tilde',
  '`': 'backtick',
  '"': 'double quote',
  "'": 'quote',
  '(': 'open paren',
  ')': 'close paren',
  '{': 'open brace',
  '}': 'close brace',
  '[': 'open bracket',
  ']': 'close bracket',
  '=': 'equals',
  '+': 'plus',
  '%': 'percent',
  '^': 'caret',
  '!': 'bang',
  '@': 'at',
  ':': 'colon',
  ',': 'comma',
  '-': 'dash',
  _: 'underscore',
  '.': 'dot',
};

/** Constructs that read differently from what runs; the first found is named. */
const MISLEADING: ReadonlyArray<[RegExp, string]> = [
  [/<!--/, 'an HTML comment'],
  [/(?:^|[\s;|&(])#/, 'a comment'],
  [/<</, 'a heredoc'],
  [/\\/, 'a backslash escape'],
  [/\$'/, 'ANSI-C quoting'],
];

/** What kind of character `c` is, for the reason it cannot be said. */
function unspeakable(c: string): string {
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return code === 0x0a || code === 0x0d ? 'a line break' : 'a control character';
  if (/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u.test(c)) return 'a bidi control character';
  if (/[\u200b-\u200d\u2060\ufeff\u00ad]/u.test(c)) return 'an invisible character';
  return 'a character outside plain ASCII';
}

/** Say `command` for the ear, or why it cannot be said faithfully. */
export function spokenCommand(command: string): SpokenCommand {
  const { text: plain, kinds: secrets } = redactSecrets(command);
  const bad = /[^\x20-\x7e]/u.exec(command);
  if (bad) return { ok: false, why: `it holds ${unspeakable(bad[0])}`, secrets };
  for (const [re, what] of MISLEADING) if (re.test(plain)) return { ok: false, why: `it holds ${what}`, secrets };
  const trimmed = plain.trim();
  if (!trimmed) return { ok: false, why: 'it is empty', secrets };
  if (trimmed.length > SPOKEN_COMMAND_LIMITS.maxChars)
    return { ok: false, why: `it is longer than ${SPOKEN_COMMAND_LIMITS.maxChars} characters`, secrets };
  const words: string[] = [];
  let word = '';
  const flush = () => {
    if (word) words.push(word);
    word = '';
  };
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    const pair = PAIRS[trimmed.slice(i, i + 2)];
    if (pair) {
      flush();
      words.push(pair);
      i++;
    } else if (SYMBOLS[c]) {
      flush();
      words.push(SYMBOLS[c]);
    } else if (c === ' ') flush();
    else word += c;
  }
  flush();
  if (words.length > SPOKEN_COMMAND_LIMITS.maxWords)
    return { ok: false, why: `it takes more than ${SPOKEN_COMMAND_LIMITS.maxWords} words to say`, secrets };
  return { ok: true, text: words.join(' '), secrets };
}
