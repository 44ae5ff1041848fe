/**
 * Word-level rewrites of one line of plain text, for the ear: addresses, ids
 * and paths shortened, emoji and emoticons dropped, expressive tags dropped
 * (unless kept), and any character an engine would read as markup removed.
 *
 * The order matters: URLs go before paths (a URL is full of slashes), paths
 * before hex ids (a path can hold a SHA), emoji before tags (so `🎉 [excited]`
 * leaves nothing behind), tags before brackets.
 *
 * Emoji are matched with Unicode property escapes (`\p{Extended_Pictographic}`)
 * rather than a library such as emoji-regex: V8 keeps the property tables up
 * to date with each Node release, there is nothing to install, and unlike
 * `\p{Emoji}` it does not match digits, `#` or `*`. The joiners, variation
 * selectors, skin tones, keycaps and flag letters that build sequences are
 * removed beside it.
 */
import { spokenLink, stripHtmlTags } from './markdown.js';
import { isTag, TAG_SOURCE } from './tags.js';

const ZERO_WIDTH = /[\u200B\u2060\uFEFF\u00AD]/g;

const URL_WITH_SCHEME = /\b(?:https?|ftp|wss?):\/\/[^\s<>"'`]+/gi;
/** A bare `host.tld/path` for common TLDs. Without a path, `example.com` is read as it is. */
const BARE_HOST_URL =
  /(?<![\p{L}\p{N}_.@/\\-])((?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|ai|sh|rs|co|gg|me|so|edu|gov|xyz))\/[^\s<>"'`]*/giu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]'"]+$/;

const UUID = /(?<![\p{L}\p{N}_-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\p{L}\p{N}_-])/giu;
/** A git SHA or similar: 12 or more hex digits with at least one digit and one letter (checked below). */
const HEX_ID = /(?<![\p{L}\p{N}_-])[0-9a-f]{12,}(?![\p{L}\p{N}_-])/giu;
/** Characters shown when a hex id is shortened: git's own abbreviation. */
const HEX_ID_KEEP = 7;

const PATH =
  /(?<![\p{L}\p{N}_.~/\\@+-])(?:[A-Za-z]:[\\/]|~[\\/]|\.{1,2}[\\/]|[\\/])?(?:[\p{L}\p{N}_@+.-]+[\\/])+[\p{L}\p{N}_@+.-]*(?::\d+(?::\d+)?)?/gu;
const PATH_PREFIX = /^(?:[A-Za-z]:[\\/]|~[\\/]|\.{1,2}[\\/]|[\\/])/;

const EMOJI =
  /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|[\u200D\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]/gu;
/** Symbols agents use as bullets and check marks that are not pictographic. */
const DECORATIONS = /[★☆✓✗✘☐•◦▪▫‣⁃]/gu;
/** Common text emoticons, standing alone. Engines read `:D` as "colon D". */
const EMOTICON = /(?<=^|\s)(?:[:;=]'?-?[)(DPpOo|]|<3|[xX]D|\^_?\^)(?=$|[\s.,!?;)])/g;

const TAG_WITH_SPACE = new RegExp(`(?<!\\s)\\s*${TAG_SOURCE}`, 'gu');
/** A bracketed group that is not an index (`a[0]`) nor directly after another bracket. */
const BRACKETED = /(?<![\p{L}\p{N}_\])])\[([^[\]]*)\]/gu;
/** `[text][label]` left as written by markdown (no such label): the text is read, the label is not. */
const REFERENCE = /(?<![\p{L}\p{N}_\])])\[([^[\]]*)\]\[[^[\]]*\]/gu;

/** Rewrites one line (see the module note). The result has no leading or trailing space. */
export function speakableLine(line: string, keepTags: boolean): string {
  // Whitespace is squeezed between steps that may leave gaps: a long run of
  // spaces would make the `\s*` patterns below quadratic.
  let s = squeeze(line.replace(ZERO_WIDTH, ''));
  s = s.replace(URL_WITH_SCHEME, (url) => withTrailing(url, (u) => spokenLink(u)));
  s = s.replace(BARE_HOST_URL, (match, host: string) =>
    withTrailing(match, () => `link to ${host.replace(/^www\./i, '')}`),
  );
  s = s.replace(PATH, (match) => withTrailing(match, shortenPath, /\.+$/));
  s = s.replace(UUID, 'an id');
  s = s.replace(HEX_ID, (id) => (/\d/.test(id) && /[a-f]/i.test(id) ? id.slice(0, HEX_ID_KEEP) : id));
  s = squeeze(s.replace(EMOJI, ' ').replace(DECORATIONS, ' '));
  s = squeeze(s.replace(EMOTICON, ' '));
  if (!keepTags) s = squeeze(s.replace(TAG_WITH_SPACE, (match) => (isTag(match.trim()) ? ' ' : match)));
  s = s.replace(REFERENCE, ' $1 ');
  s = s.replace(BRACKETED, (match, inner: string) => (keepTags && isTag(match) ? match : ` ${inner} `));
  return tidy(removeMarkup(squeeze(s)));
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Applies `rewrite` to `match` without the sentence punctuation that follows it. */
function withTrailing(match: string, rewrite: (core: string) => string, trailing = TRAILING_PUNCTUATION): string {
  const tail = trailing.exec(match)?.[0] ?? '';
  const core = match.slice(0, match.length - tail.length);
  return core ? rewrite(core) + tail : match;
}

/**
 * Paths keep their last two components: `/home/dev/shop/src/checkout/refund.ts`
 * → `checkout/refund.ts`, and `:42` becomes "line 42". A path without a
 * leading `/`, `~/`, `./` or drive is only shortened when it has three or more
 * components and ends in a file name with an extension, so `and/or`,
 * `feature/refunds` and `origin/feature/x` are left alone. Paths of digits
 * only (dates, fractions) are never touched.
 */
function shortenPath(path: string): string {
  if (!/\p{L}/u.test(path)) return path;
  let line = '';
  const lineMatch = /:(\d+)(?::\d+)?$/.exec(path);
  let rest = path;
  if (lineMatch) {
    line = ` line ${lineMatch[1]}`;
    rest = path.slice(0, lineMatch.index);
  }
  const prefix = PATH_PREFIX.exec(rest)?.[0] ?? '';
  const parts = rest
    .slice(prefix.length)
    .split(/[\\/]/)
    .filter((part) => part !== '' && part !== '.');
  const isFile = /\.[\p{L}\p{N}]+$/u.test(parts.at(-1) ?? '');
  const endsWithSeparator = /[\\/]$/.test(rest);
  if (!prefix && !(parts.length >= 3 && (isFile || endsWithSeparator))) return rest + line;
  return parts.slice(-2).join('/') + line;
}

/**
 * Removes what an engine could read as markup, or would read out as symbols.
 * Patterns that repeat a character (`#+`, `[*_]+`) may only start at the
 * beginning of a run, or a long run would make them quadratic.
 */
function removeMarkup(text: string): string {
  return squeeze(stripHtmlTags(text))
    .replace(/`+/g, ' ')
    .replace(/~~+/g, '')
    .replace(/(?<!\s)\s*[→⇒⟶]\s*/g, ' to ')
    .replace(/(?<=\s)(?:->|=>|-->)(?=\s)/g, 'to')
    .replace(/(?<![\p{L}\p{N}*_])[*_]+(?=[\p{L}\p{N}])|(?<=[\p{L}\p{N}])[*_]+(?![\p{L}\p{N}])/gu, '')
    .replace(/(?<![\p{L}\p{N}_&#])#+(?=[\p{L}\p{N}])/gu, '')
    .replace(/(?<=^|\s)#+(?=\s|$)/g, ' ')
    .replace(/(?<!\s)\s*\|+\s*/g, ', ')
    .replace(/\\+/g, ' ')
    .replace(/^\s*>+\s/, '');
}

/** Collapses whitespace and the punctuation left dangling by removals. */
function tidy(text: string): string {
  // Patterns that start with `\s` may only start at the beginning of a run
  // of spaces (`(?<!\s)`), or a long run would make them quadratic.
  const tidied = squeeze(squeeze(text).replace(/\(\s*\)|\[\s*\]|\{\s*\}/g, ' '))
    .replace(/([([])\s+/g, '$1')
    .replace(/(?<!\s)\s+([)\]])/g, '$1')
    .replace(/(?<!\s)\s+([.,!?;:…]+)(?=\s|$)/g, '$1')
    .replace(/([,;:])(?:\s*[,;:])+/g, '$1')
    .replace(/([.!?…])(?:\s*[,;:])+/g, '$1')
    .replace(/^[\s,;:]+/, '')
    .replace(/^\.+(?=\s|$)/, '')
    .replace(/^[\s,;:]+/, '')
    .replace(/ {2,}/g, ' ');
  return trimEnd(tidied, ' ,;');
}

/** `text` without any of `chars` at its end (a loop: `/[...]+$/` is quadratic on long runs). */
export function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}
