/**
 * The Stop summary: the first sentences of Claude's last message, cut here,
 * not in voxd, so what is spoken is predictable (hook.ts's design notes).
 * Code blocks, headings and tables are skipped; voxd cleans the rest
 * (markdown, inline code, URLs).
 */

/** Longest Stop summary, in characters. */
export const SUMMARY_MAX_CHARS = 200;
/** Sentences in a Stop summary. */
export const SUMMARY_SENTENCES = 2;

// Abbreviations whose period does not end a sentence.
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|St|No|Fig)\.$/i;

/** Splits prose into sentences at . ! ? followed by white space (or the end). */
function sentencesOf(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /[.!?]+(?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(paragraph))) {
    const end = m.index + m[0].length;
    const candidate = paragraph.slice(start, end).trim();
    if (m[0] === '.' && ABBREVIATION.test(paragraph.slice(0, end))) continue;
    // "v1.2" or "index.ts" never match (no white space after the dot); a lone number like "1." in "step 1. Then" does: keep it.
    if (candidate) out.push(candidate);
    start = end;
  }
  const tail = paragraph.slice(start).trim();
  if (tail) out.push(tail);
  return out;
}

/**
 * The prose blocks of a markdown message, in order: paragraphs and list items,
 * joined within a block; code fences, headings, tables, rules and quotes skipped.
 */
function proseBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    if (current.length) blocks.push(current.join(' '));
    current = [];
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (f) {
      flush();
      fence = f[1]!;
      continue;
    }
    if (line === '' || /^#{1,6}\s/.test(line) || /^\|/.test(line) || /^(?:[-*_]\s*){3,}$/.test(line)) {
      flush();
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      current.push(item[1]!);
      continue;
    }
    current.push(line.replace(/^>\s?/, ''));
  }
  flush();
  return blocks;
}

/** A sentence that ends without punctuation (a list item, a line) gets a period. */
function closed(sentence: string): string {
  return /[.!?\u2026:;]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Cuts at a word boundary within `max` characters and adds an ellipsis. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/**
 * The start of Claude's last message, for a Stop hook: its first `sentences`
 * sentences of prose, or fewer when they would pass `maxChars`; the first
 * sentence alone is clipped at a word. Empty when the message has no prose.
 */
export function summarize(message: string, options: { sentences?: number; maxChars?: number } = {}): string {
  const want = options.sentences ?? SUMMARY_SENTENCES;
  const max = options.maxChars ?? SUMMARY_MAX_CHARS;
  const picked: string[] = [];
  for (const block of proseBlocks(message)) {
    for (const s of sentencesOf(block)) {
      picked.push(closed(s));
      if (picked.length >= want) break;
    }
    if (picked.length >= want) break;
  }
  if (picked.length === 0) return '';
  let out = picked[0]!;
  for (const s of picked.slice(1)) {
    if (out.length + 1 + s.length > max) break;
    out = `${out} ${s}`;
  }
  return clip(out, max);
}
