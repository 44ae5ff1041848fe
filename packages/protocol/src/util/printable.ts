/**
 * Quoting untrusted text in a message: a key, a value or a path read from a
 * file (a cloned repository's `.vox/config.md`, a catalogue, an archive) or
 * from input must never reach a terminal raw, or the file could move the
 * cursor, retitle the window or hide text (ANSI escapes, 8-bit CSI, bidi
 * overrides). Every message that quotes such text passes it through
 * `printable` once, at the point of quoting.
 *
 * Design note: control characters are shown as JSON-like escapes (`\x1b`,
 * `\n`, `\u202e`) rather than dropped, so the reader sees that the file holds
 * them and where. Printable text, including non-Latin letters, is left alone.
 */

// C0 controls and DEL, C1 controls (U+009B is CSI on 8-bit terminals), the
// line and paragraph separators, bidi embeddings, overrides and isolates, and
// the BOM / zero-width no-break space.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character escaped (`\x1b[31m` becomes the eight
 * characters `\x1b[31m`), safe to print to a terminal.
 *
 * @example printable('a\u001b[2Jb') // 'a\\x1b[2Jb'
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escapeOne);
}

/**
 * A JSON text with every such character but JSON's own whitespace (tab, CR,
 * LF: harmless, and legal between tokens) written as a `\\uXXXX` escape: the
 * same JSON (the others can only stand inside strings), safe for a terminal.
 * For output that promises the JSON as written (`vox logs --json`).
 */
export function printableJson(json: string): string {
  return json.replace(UNPRINTABLE, (c) =>
    c === '\t' || c === '\r' || c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Whether `text` holds a character `printable` would escape. */
export function hasUnprintable(text: string): boolean {
  UNPRINTABLE.lastIndex = 0;
  const found = UNPRINTABLE.test(text);
  UNPRINTABLE.lastIndex = 0;
  return found;
}

/**
 * What a name shown to people (a session label) may not hold: Unicode's
 * controls (Cc, C0 and C1), format characters (Cf: bidi controls such as
 * U+202E, zero-width characters, the BOM), the line and paragraph separators
 * (Zl, Zp), lone surrogates (Cs) and private use (Co). Wider than what
 * `printable` escapes in messages, which keeps format characters that join
 * emoji; a label has no use for any of them.
 */
const INVISIBLE_CLASS = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Co}';
const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');

/** A JSON schema `pattern` for a string of visible characters only (ajv compiles patterns with the `u` flag). */
export const VISIBLE_PATTERN = `^[^${INVISIBLE_CLASS}]*$`;

/** `text` with every character VISIBLE_PATTERN refuses escaped (as `printable` writes them): a label voxd accepts. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, escapeOne);
}
