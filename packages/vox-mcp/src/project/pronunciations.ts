/**
 * Pronunciations: the `## Pronunciations` table in the body of `.vox/config.md`,
 * read and checked against its caps. @vox/protocol's pronunciation matcher
 * applies it to text before it is sent to voxd.
 *
 * ```markdown
 * ## Pronunciations
 *
 * | word    | say as       |
 * | ------- | ------------ |
 * | kubectl | cube control |
 * ```
 *
 * The table's size is capped (PRONUNCIATION_LIMITS of @vox/protocol,
 * checked here by the parser and so by `vox config check`), which bounds both
 * the matcher's build and its walk.
 */

import type { Pronunciation, PronunciationLimits } from '@vox/protocol';

// One row and the caps are @vox/protocol's: voxd applies a declared table too.
export type { Pronunciation, PronunciationLimits };

/** A malformed row, with its line in the file. */
export interface PronunciationProblem {
  line: number;
  message: string;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DELIMITER_CELL = /^:?-+:?$/;

/**
 * Reads the tables under every heading named "Pronunciations" (any level, any
 * case) of a markdown body. Prose around the tables is ignored, and so is
 * anything inside fenced code blocks.
 *
 * @param body the markdown after the front matter
 * @param firstLine the line number, in the file, of the body's first line (1-based)
 */
export function parsePronunciations(
  body: string,
  firstLine = 1,
  limits?: PronunciationLimits,
): { entries: Pronunciation[]; problems: PronunciationProblem[] } {
  const entries: Pronunciation[] = [];
  const problems: PronunciationProblem[] = [];
  let chars = 0;
  let overRows = false;
  let overChars = false;
  const seen = new Map<string, number>();
  const lines = body.split(/\r?\n/);

  let fence: string | undefined;
  /** Level of the Pronunciations heading we are under, or 0. */
  let sectionLevel = 0;
  /** Where we are in the current table: none, after its header row, in its rows. */
  let table: 'none' | 'header' | 'rows' = 'none';

  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const line = firstLine + i;

    const fenceMatch = text.includes('```') || text.includes('~~~') ? FENCE.exec(text) : null;
    if (fence) {
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      table = 'none';
      continue;
    }

    const heading = text.includes('#') ? HEADING.exec(text) : null;
    if (heading) {
      const level = heading[1]!.length;
      const title = heading[2]!.replace(/[ \t]+#+[ \t]*$/, '').trim();
      if (/^pronunciations?$/i.test(title)) sectionLevel = level;
      else if (sectionLevel && level <= sectionLevel) sectionLevel = 0;
      table = 'none';
      continue;
    }
    if (!sectionLevel) continue;

    if (!text.includes('|')) {
      table = 'none';
      continue;
    }
    const cells = splitRow(text);
    if (table === 'none') {
      // A header row: its names are free ("word | say as", "Wort | sprich").
      if (cells.length !== 2) {
        problems.push({
          line,
          message: `a pronunciations table has two columns, "| word | say as |"; this header has ${cells.length}`,
        });
      }
      table = 'header';
      continue;
    }
    if (table === 'header') {
      table = 'rows';
      if (!cells.every((c) => DELIMITER_CELL.test(c))) {
        problems.push({
          line,
          message: 'the second line of a pronunciations table must be its delimiter row, "| --- | --- |"',
        });
      }
      continue;
    }
    if (cells.length !== 2) {
      problems.push({
        line,
        message: `a pronunciation row has two cells, "| word | say as |"; this one has ${cells.length}`,
      });
      continue;
    }
    const [word, say] = cells as [string, string];
    if (!word) {
      problems.push({ line, message: 'the word cell is empty' });
      continue;
    }
    if (!say) {
      problems.push({ line, message: `the "say as" cell for "${word}" is empty` });
      continue;
    }
    if (limits) {
      if (word.length > limits.wordChars) {
        problems.push({
          line,
          message: `the word "${word.slice(0, 40)}…" is ${word.length} characters; at most ${limits.wordChars} are allowed`,
        });
        continue;
      }
      if (say.length > limits.sayChars) {
        problems.push({
          line,
          message: `the "say as" cell for "${word.slice(0, 40)}" is ${say.length} characters; at most ${limits.sayChars} are allowed`,
        });
        continue;
      }
      if (entries.length >= limits.rows) {
        if (!overRows)
          problems.push({
            line,
            message: `the table has more than ${limits.rows} rows, the most allowed; keep the words that need it`,
          });
        overRows = true;
        continue;
      }
      if (chars + word.length + say.length > limits.chars) {
        if (!overChars)
          problems.push({
            line,
            message: `the table's cells hold more than ${limits.chars} characters in all, the most allowed; shorten or drop rows`,
          });
        overChars = true;
        continue;
      }
    }
    const key = normalize(word);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({ line, message: `"${word}" is listed twice (lines ${earlier} and ${line}); keep one` });
      continue;
    }
    seen.set(key, line);
    chars += word.length + say.length;
    entries.push({ word, say });
  }
  return { entries, problems };
}

/** Splits `| a | b |` into trimmed cells; `\|` is a literal bar and `` `x` `` is x. */
function splitRow(text: string): string[] {
  let row = text.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  // The plain split and no code match unless the row needs them: a table is read on every call.
  const escaped = row.includes('\\');
  return (escaped ? row.split(/(?<!\\)\|/) : row.split('|')).map((cell) => {
    const c = escaped ? cell.trim().replace(/\\\|/g, '|') : cell.trim();
    if (!c.includes('`')) return c;
    const code = /^`+([^`].*?)`+$/.exec(c);
    return (code ? code[1]! : c).trim();
  });
}

function normalize(word: string): string {
  return word.trim().replace(/\s+/g, ' ').toLowerCase();
}
