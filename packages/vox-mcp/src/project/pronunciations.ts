/**
 * Pronunciations: the `## Pronunciations` table in the body of `.vox/config.md`,
 * and the function that applies it to text before it is sent to voxd.
 *
 * ```markdown
 * ## Pronunciations
 *
 * | word    | say as       |
 * | ------- | ------------ |
 * | kubectl | cube control |
 * ```
 *
 * Design note: replacement is done in ONE pass with one regular expression whose
 * alternatives are sorted longest first. One pass means a replacement is never
 * replaced again (`vox` → `vocks` cannot turn into something else through a second
 * entry), and longest first means `kubectl apply` wins over `kubectl`. "Whole word"
 * is judged with Unicode letters and digits rather than `\b`, so entries such as
 * `C++` or `k8s` work and `kubectl` does not match inside `kubectls`.
 *
 * This module imports nothing: `vox say` loads it on every run.
 */

/** One row of the table. */
export interface Pronunciation {
  /** The word or phrase as written. Matched whole, in any case. */
  word: string;
  /** What the engine is given instead. */
  say: string;
}

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
): { entries: Pronunciation[]; problems: PronunciationProblem[] } {
  const entries: Pronunciation[] = [];
  const problems: PronunciationProblem[] = [];
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

    const fenceMatch = FENCE.exec(text);
    if (fence) {
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      table = 'none';
      continue;
    }

    const heading = HEADING.exec(text);
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
        problems.push({ line, message: `a pronunciations table has two columns, "| word | say as |"; this header has ${cells.length}` });
      }
      table = 'header';
      continue;
    }
    if (table === 'header') {
      table = 'rows';
      if (!cells.every((c) => DELIMITER_CELL.test(c))) {
        problems.push({ line, message: 'the second line of a pronunciations table must be its delimiter row, "| --- | --- |"' });
      }
      continue;
    }
    if (cells.length !== 2) {
      problems.push({ line, message: `a pronunciation row has two cells, "| word | say as |"; this one has ${cells.length}` });
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
    const key = normalize(word);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({ line, message: `"${word}" is listed twice (lines ${earlier} and ${line}); keep one` });
      continue;
    }
    seen.set(key, line);
    entries.push({ word, say });
  }
  return { entries, problems };
}

/** Splits `| a | b |` into trimmed cells; `\|` is a literal bar and `` `x` `` is x. */
function splitRow(text: string): string[] {
  let row = text.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => {
    const c = cell.trim().replace(/\\\|/g, '|');
    const code = /^`+([^`].*?)`+$/.exec(c);
    return (code ? code[1]! : c).trim();
  });
}

function normalize(word: string): string {
  return word.trim().replace(/\s+/g, ' ').toLowerCase();
}

interface Compiled {
  re: RegExp;
  says: Map<string, string>;
}

const compiled = new WeakMap<readonly Pronunciation[], Compiled>();

function compile(table: readonly Pronunciation[]): Compiled {
  let c = compiled.get(table);
  if (c) return c;
  const says = new Map<string, string>();
  for (const p of table) {
    const key = normalize(p.word);
    if (key && !says.has(key)) says.set(key, p.say);
  }
  // Escape only syntax characters: under the `u` flag any other escape is an error.
  const alternatives = [...says.keys()]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&').replace(/ /g, '\\s+'));
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  c = { re, says };
  compiled.set(table, c);
  return c;
}

/**
 * Replaces each whole-word, case-insensitive occurrence of a table's words by
 * its spoken form, longest words first, in one pass.
 *
 * @example applyPronunciations('run kubectl', [{ word: 'kubectl', say: 'cube control' }]) // 'run cube control'
 */
export function applyPronunciations(text: string, table: readonly Pronunciation[]): string {
  if (table.length === 0 || text.length === 0) return text;
  const { re, says } = compile(table);
  if (says.size === 0) return text;
  return text.replace(re, (match) => says.get(normalize(match)) ?? match);
}
