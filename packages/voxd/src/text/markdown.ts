/**
 * Markdown to speakable blocks, through marked's lexer (GFM on: tables, task
 * lists, strikethrough, bare URLs). Only the token tree is used, never the
 * HTML renderer: each block-level element becomes one block of plain lines,
 * and each code block becomes a `code` block for the caller to replace with
 * a short phrase.
 *
 * Why marked rather than mdast-util-from-markdown + the GFM extensions: one
 * package with no dependencies that imports in ~10 ms (the micromark stack is
 * ~50 packages and ~80 ms), typed tokens, GFM built in, and it is much faster
 * on large or hostile input (measured on Node 20: a 940 KB agent-style message
 * lexes in ~0.5 s with marked and ~60 s with micromark; 40,000 `*a` pairs take
 * 1.6 s and 25 s). Its lexer leaves entities such as `&amp;` undecoded, so
 * text is decoded here.
 */
import { Lexer, type Token, type Tokens } from 'marked';

export type Block = { kind: 'text'; lines: string[] } | { kind: 'code' };

/**
 * marked's emphasis scan costs about (number of `*` and `_`) × (paragraph
 * length): 1,000 delimiters in a 100 KB paragraph take ~250 ms. Past this
 * product (~50 ms), delimiters next to text are escaped before lexing, so no
 * emphasis is parsed; the markers are then dropped as stray markup, which
 * reads the same. No real message comes near it; a hostile one would stall
 * the daemon.
 */
const EMPHASIS_BUDGET = 20_000_000;

/**
 * GFM's e-mail autolink lookaheads (`[local-part chars]+@`) scan a whole run
 * of such characters at every position of it: 20,000 `!` took ~0.5 s with
 * marked 18. An address's local part is at most 64 characters (RFC 5321), so
 * bounding the run keeps every real address and makes the scan linear. The
 * patched rules are checked by a test (`INLINE_RULES_PATCHED`): if marked
 * changes its rules, the test says so instead of the daemon slowing down.
 */
/** marked keeps its rules on the lexer's (private) tokenizer; they are read at every token. */
type WithRules = { tokenizer: { rules: { inline: Record<string, RegExp> } } };

const inlineRules = (() => {
  const rules = (new Lexer({ gfm: true }) as unknown as WithRules).tokenizer.rules.inline;
  const patched: Record<string, RegExp> = { ...rules };
  let count = 0;
  for (const name of ['text', 'url']) {
    const rule = rules[name];
    if (!(rule instanceof RegExp)) continue;
    // `]+@` and `]+(@)` end a local-part class in these two rules, and nothing else does.
    const source = rule.source.replace(/\]\+(?=\(?@)/g, () => {
      count++;
      return ']{1,64}';
    });
    patched[name] = new RegExp(source, rule.flags);
  }
  return { patched, count };
})();

/** How many e-mail runs were bounded in marked's inline rules (a test expects all of them). */
export const INLINE_RULES_PATCHED = inlineRules.count;

function lexer(): Lexer {
  const lex = new Lexer({ gfm: true });
  (lex as unknown as WithRules).tokenizer.rules.inline = inlineRules.patched;
  return lex;
}

/**
 * A line opening 64 or more nested quotes or lists. No agent writes one; marked
 * recurses once per level (re-scanning the rest each time) and overflows its
 * stack near 5,000, so such text skips the parser.
 */
const DEEP_NESTING = /^[ \t]*(?:>[ \t]*|(?:[*+-]|\d{1,9}[.)])[ \t]+){64}/m;

/**
 * Splits markdown into blocks of plain text (one entry per source line) and
 * code blocks. Never throws: if marked fails (deep nesting such as 5,000
 * `> ` overflows its recursion), the text is taken as plain lines.
 */
export function markdownToBlocks(markdown: string): Block[] {
  try {
    if (DEEP_NESTING.test(markdown)) throw new RangeError('nesting too deep for markdown');
    const blocks: Block[] = [];
    walkBlocks(lexer().lex(guardEmphasis(markdown)), blocks);
    return blocks;
  } catch {
    // Plain lines, without the quote and list markers that made them too deep.
    const blocks: Block[] = [];
    pushText(blocks, markdown.replace(/^[ \t]*(?:(?:>|[*+-]|\d{1,9}[.)])(?=[ \t>]|$)[ \t]*)+/gm, ''));
    return blocks;
  }
}

function guardEmphasis(markdown: string): string {
  let delimiters = 0;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown.charCodeAt(i);
    if (c === 42 /* * */ || c === 95 /* _ */) delimiters++;
  }
  if (delimiters * markdown.length <= EMPHASIS_BUDGET) return markdown;
  return markdown.replace(/(?<=\S)[*_]|[*_](?=\S)/g, '\\$&');
}

function pushText(blocks: Block[], text: string): void {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length > 0) blocks.push({ kind: 'text', lines });
}

function walkBlocks(tokens: readonly Token[], blocks: Block[]): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
      case 'hr':
      case 'def':
        break;
      case 'code':
        blocks.push({ kind: 'code' });
        break;
      case 'heading':
      case 'paragraph':
        pushText(blocks, inline((token as Tokens.Heading | Tokens.Paragraph).tokens));
        break;
      case 'text': {
        // Block-level text appears in tight list items.
        const t = token as Tokens.Text;
        pushText(blocks, t.tokens ? inline(t.tokens) : decodeEntities(t.text));
        break;
      }
      case 'blockquote':
        walkBlocks((token as Tokens.Blockquote).tokens, blocks);
        break;
      case 'list':
        for (const item of (token as Tokens.List).items) walkBlocks(item.tokens, blocks);
        break;
      case 'table': {
        const table = token as Tokens.Table;
        for (const row of [table.header, ...table.rows]) {
          const cells = row.map((cell) => inline(cell.tokens).replace(/\s+/g, ' ').trim()).filter(Boolean);
          pushText(blocks, cells.join(', '));
        }
        break;
      }
      case 'html': {
        const html = (token as Tokens.HTML).text;
        if (/^\s*<(pre|code)\b/i.test(html)) blocks.push({ kind: 'code' });
        else pushText(blocks, htmlToText(html));
        break;
      }
      default: {
        // Tokens from future marked versions or extensions: keep their text.
        const t = token as { tokens?: Token[]; text?: unknown };
        if (t.tokens) walkBlocks(t.tokens, blocks);
        else if (typeof t.text === 'string') pushText(blocks, decodeEntities(t.text));
      }
    }
  }
}

/** Inline tokens to plain text. Soft and hard line breaks stay as `\n`. */
function inline(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text': {
        const t = token as Tokens.Text;
        out += t.tokens ? inline(t.tokens) : decodeEntities(t.text);
        break;
      }
      case 'escape':
        out += (token as Tokens.Escape).text;
        break;
      case 'codespan':
        // Kept as written: later passes shorten paths and ids inside it.
        out += (token as Tokens.Codespan).text.replace(/\s+/g, ' ');
        break;
      case 'br':
        out += '\n';
        break;
      case 'link':
        out += linkText(token as Tokens.Link);
        break;
      case 'image':
        out += decodeEntities((token as Tokens.Image).text);
        break;
      case 'html':
        out += htmlToText((token as Tokens.Tag).text);
        break;
      case 'checkbox':
        // Task list markers `[x]` / `[ ]`: not read.
        break;
      default: {
        // strong, em, del and anything unknown: their text.
        const t = token as { tokens?: Token[]; text?: unknown };
        if (t.tokens) out += inline(t.tokens);
        else if (typeof t.text === 'string') out += decodeEntities(t.text);
      }
    }
  }
  return out;
}

/** A link reads as its text, unless its text is the address itself. */
function linkText(link: Tokens.Link): string {
  const text = inline(link.tokens).trim();
  const href = link.href.trim();
  if (text === '' || looksLikeAddress(text, href)) return spokenLink(href, text);
  return text;
}

function looksLikeAddress(text: string, href: string): boolean {
  if (text === href || /^(https?|ftp|wss?):\/\//i.test(text) || /^www\./i.test(text)) return true;
  return href.replace(/^[a-z][\w+.-]*:\/\//i, '') === text.replace(/^[a-z][\w+.-]*:\/\//i, '');
}

/**
 * How an address is read: "link to github.com" for web addresses, the address
 * itself for e-mail, otherwise "a link". `fallback` is the link's own text.
 */
export function spokenLink(href: string, fallback = ''): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    // A relative link: its text if it has one, else nothing worth saying.
    return fallback && !looksLikeAddress(fallback, href) ? fallback : 'a link';
  }
  if (url.protocol === 'mailto:') return decodeURIComponent(url.pathname);
  if (url.hostname && /^(https?|ftp|wss?):$/.test(url.protocol)) {
    return `link to ${url.hostname.replace(/^www\./i, '')}`;
  }
  return 'a link';
}

/** Elements whose tags are dropped with nothing said: HTML and SSML. */
const KNOWN_TAGS = new Set(
  (
    'a abbr b blockquote br caption cite code dd del details div dl dt em figcaption figure h1 h2 h3 h4 h5 h6 hr ' +
    'i img ins kbd li mark ol p pre q s samp small span strong sub summary sup table tbody td tfoot th thead tr u ul ' +
    'var wbr speak break prosody emphasis say-as voice audio phoneme lang lexicon'
  ).split(' '),
);

/**
 * Strips HTML/SSML-looking tags, keeping text between them. A tag that is not
 * a known element (`Promise<void>`, `Map<string, number>`) is probably a
 * generic type, so what is inside its angle brackets is kept as words.
 */
export function htmlToText(html: string): string {
  return decodeEntities(stripHtmlTags(html));
}

/** Removes comments and tag-shaped `<...>` runs (see `htmlToText`), decoding nothing. */
export function stripHtmlTags(text: string): string {
  let out = text.replace(/<!--[\s\S]*?(?:-->|$)/g, ' ');
  // Nested generics (`Map<string, Set<number>>`) unwrap from the inside, one level a pass.
  for (let pass = 0; pass < 4; pass++) {
    const next = out.replace(/<\/?([A-Za-z][\w:-]*)(?:[\s,][^<>]*)?\/?>/g, (match, name: string) =>
      KNOWN_TAGS.has(name.toLowerCase()) ? ' ' : ` ${match.slice(1, -1).replace(/^\/|\/$/g, '')} `,
    );
    if (next === out) break;
    out = next;
  }
  return out;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  rarr: '→',
  larr: '←',
  times: '×',
};

/** Decodes the character references agents actually write; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (match, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? match;
  });
}
