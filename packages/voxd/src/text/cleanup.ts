/**
 * Text cleaned for speech: what an agent wrote, turned into what a listener
 * should hear. Agents write markdown for a screen (code fences, paths, SHAs,
 * links, emoji, tables); read aloud as it is, that is minutes of noise.
 *
 * Design note (the rules themselves are listed in docs/text-cleanup.md):
 * - Markdown is parsed, never pattern-matched: marked's lexer gives the
 *   blocks, each block becomes one or more sentences.
 * - Code is never read. Each run of adjacent code blocks becomes one
 *   "Code omitted." sentence, so the listener knows something is on screen.
 * - Each line is then rewritten word by word (`rewrite.ts`): links become
 *   "link to <host>", long ids and paths are shortened, emoji and emoticons
 *   go, expressive tags go unless the engine performs them.
 * - Blocks and lines that were separate on screen are separate sentences in
 *   speech: a period is added where one ends without punctuation.
 * - The result is a single line of plain text, at most `maxChars` long, cut
 *   at a sentence boundary. It is not escaped for SSML: an engine that wraps
 *   text in SSML escapes `&`, `<` and `>` itself.
 */
import { markdownToBlocks } from './markdown.js';
import { speakableLine, trimEnd } from './rewrite.js';
import { splitTrailingTags } from './tags.js';
import { truncateAtSentence } from './truncate.js';

export { stripTags } from './tags.js';

export interface CleanupOptions {
  /** Keep bracketed expressive tags like [excited] (for engines that perform them). Default false: tags are removed. */
  keepTags?: boolean;
  /** Truncate at a sentence boundary at or before this many characters (default 2000). */
  maxChars?: number;
}

/** Default for `CleanupOptions.maxChars`, in characters (UTF-16 code units). */
export const DEFAULT_MAX_CHARS = 2000;

/** What is said in place of one or more adjacent code blocks. */
export const CODE_OMITTED = 'Code omitted.';

/** A line that began with an emoji or a bullet symbol is an item of its own. */
const ITEM_START = /^\s*(?:\p{Extended_Pictographic}|[★☆✓✗✘☐•◦▪▫‣⁃])/u;
const SENTENCE_END = '.!?…:;';
const CLOSERS = ')]"\'’”»';
/** A line ending in one of these words is a wrapped sentence, whatever the next line starts with. */
const CONTINUES =
  /\b(?:a|an|the|and|or|but|nor|to|of|in|on|at|for|with|from|by|as|that|which|than|if|so|into|is|are|was|were|be|has|have|had|will|would|can|could|should|this|these|those|my|your|our|their|its)$/i;

export function cleanForSpeech(text: string, options: CleanupOptions = {}): string {
  const keepTags = options.keepTags ?? false;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!(maxChars >= 1)) throw new RangeError(`maxChars must be a positive number of characters, got ${maxChars}`);

  const pieces: string[] = [];
  let lastWasCode = false;
  for (const block of markdownToBlocks(limitSource(text, maxChars))) {
    if (block.kind === 'code') {
      if (!lastWasCode) pieces.push(CODE_OMITTED);
      lastWasCode = true;
      continue;
    }
    const spoken = joinLines(block.lines, keepTags);
    if (spoken === '') continue; // a block of nothing but emoji or tags: code on both sides still merges
    pieces.push(spoken);
    lastWasCode = false;
  }

  const joined = pieces.map((piece, i) => (i < pieces.length - 1 ? endSentence(piece) : piece)).join(' ');
  return truncateAtSentence(joined, maxChars);
}

/**
 * Markdown read per character of speech allowed, and at least this many
 * characters: enough for prose after a long code block, while bounding the
 * work done on a huge message whose speech is cut to `maxChars` anyway.
 */
const SOURCE_PER_OUTPUT_CHAR = 50;
const MIN_SOURCE_CHARS = 100_000;

/** `text` cut at a line break near the source limit (see above); untouched when `maxChars` is Infinity. */
function limitSource(text: string, maxChars: number): string {
  const limit = Math.max(maxChars * SOURCE_PER_OUTPUT_CHAR, MIN_SOURCE_CHARS);
  if (text.length <= limit) return text;
  const lineEnd = text.lastIndexOf('\n', limit);
  return text.slice(0, lineEnd > limit / 2 ? lineEnd : limit);
}

/**
 * Lines of one block (a paragraph's soft breaks) joined: a line that ends
 * without punctuation and is followed by one that starts a new thought (an
 * emoji or bullet the agent used as a marker, or a capital letter after a
 * line that does not end in "and", "the", ...) ends a sentence; otherwise
 * the lines are one wrapped sentence.
 */
function joinLines(lines: readonly string[], keepTags: boolean): string {
  const out: string[] = [];
  for (const raw of lines) {
    const line = speakableLine(raw, keepTags);
    if (line === '') continue;
    const last = out.length - 1;
    if (last >= 0 && (ITEM_START.test(raw) || (/^\p{Lu}/u.test(line) && !CONTINUES.test(out[last]!.slice(-16))))) {
      out[last] = endSentence(out[last]!);
    }
    out.push(line);
  }
  return out.join(' ');
}

/** `text` ending in sentence punctuation: a period is added, or replaces a trailing comma or dash. */
function endSentence(text: string): string {
  const [body, tags] = splitTrailingTags(text);
  const core = trimEnd(body, CLOSERS);
  const last = core.at(-1);
  if (last === undefined || SENTENCE_END.includes(last)) return text;
  const closers = body.slice(core.length);
  if (',–—-'.includes(last)) return `${trimEnd(core.slice(0, -1), ' ')}.${closers}${tags}`;
  return `${body}.${tags}`;
}
