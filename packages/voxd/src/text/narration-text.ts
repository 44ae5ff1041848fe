/**
 * A reply's markdown turned into sentences while it is being written, one
 * batch of lines at a time (MessageDisplay gives whole lines, the last batch
 * may end mid-line). Each sentence is given out once, as soon as it is
 * complete: the rest of its paragraph may still be on its way.
 *
 * Design notes:
 * - Blocks are found line by line, not by a markdown parser over the whole
 *   message: a parser needs the end of a block to know it is one, and a
 *   fenced code block or a table is only known once its last line came.
 *   Code blocks, diffs and tables are never read: each becomes one phrase
 *   ("A code block of 12 lines."), said where it ends. Prose is cleaned by
 *   the same rules as every other text (cleanup.ts: links, paths and ids
 *   shortened, emoji and markup gone).
 * - The open paragraph is cleaned again at each batch and its sentences past
 *   those already given are given out, all but the last unless its line
 *   ended in sentence punctuation (a sentence may go on in the next batch).
 * - The state is plain data (`NarrationState`): the journal keeps it with
 *   the message's utterance, so a restarted voxd carries on mid-paragraph.
 * - Bounded: a paragraph longer than MAX_PARAGRAPH_CHARS is closed where it
 *   is, and so is a line still open past it (cut at a word into a piece of
 *   the paragraph; in a code block or a table only its start is kept), so
 *   each batch costs at most that much work and the state stays that small
 *   however long a line without end runs.
 */
import { cleanForSpeech } from './cleanup.js';
import { splitSentences } from './sentences.js';

/** An open paragraph is closed once it holds this many characters. */
export const MAX_PARAGRAPH_CHARS = 4000;

export interface NarrationState {
  /** Text after the last newline: a line not yet complete. */
  carry: string;
  mode: 'prose' | 'code' | 'table';
  /** The fence that opened the code block (``` or ~~~, its length). */
  fence?: string;
  /** The code block's info string ("ts", "diff"). */
  lang?: string;
  /** Lines of the open code block, or rows of the open table. */
  count: number;
  /** Raw lines of the open paragraph. */
  para: string[];
  /** Sentences of the open paragraph already given out. */
  given: number;
  /** `carry` goes on a line whose start was already taken (a piece cut at MAX_PARAGRAPH_CHARS). */
  cont?: boolean;
}

export function initialState(): NarrationState {
  return { carry: '', mode: 'prose', count: 0, para: [], given: 0 };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const TABLE_ROW = /^\s*\|/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
/** A line that ends a sentence: punctuation, then only closers. */
const ENDS_SENTENCE = /[.!?…:;]["'’”)\]*_]*\s*$/;

/**
 * Feed one batch; returns the sentences it completed, in order. `final`
 * ends the message: everything still open is given out.
 */
export function narrate(state: NarrationState, delta: string, final: boolean): string[] {
  const out: string[] = [];
  const text = state.carry + delta;
  const lines = text.split('\n');
  state.carry = final ? '' : lines.pop()!;
  for (const line of lines) {
    if (state.cont) continueLine(state, line, out);
    else takeLine(state, line, out);
    state.cont = false;
  }
  while (state.carry.length > MAX_PARAGRAPH_CHARS) cutCarry(state, out);
  if (final) {
    closeBlock(state, out);
    flushParagraph(state, out, true);
  } else if (state.mode === 'prose') {
    flushParagraph(state, out, false);
  }
  return out;
}

function takeLine(state: NarrationState, line: string, out: string[]): void {
  if (state.mode === 'code') {
    const close = FENCE.exec(line);
    if (close && close[1]![0] === state.fence![0] && close[1]!.length >= state.fence!.length && close[2] === '') {
      closeBlock(state, out);
    } else state.count++;
    return;
  }
  if (state.mode === 'table') {
    if (TABLE_ROW.test(line)) {
      if (!TABLE_RULE.test(line)) state.count++;
      return;
    }
    closeBlock(state, out);
  }
  const fence = FENCE.exec(line);
  if (fence) {
    flushParagraph(state, out, true);
    state.mode = 'code';
    state.fence = fence[1]!;
    state.lang = fence[2]!.toLowerCase();
    state.count = 0;
    return;
  }
  if (TABLE_ROW.test(line)) {
    flushParagraph(state, out, true);
    state.mode = 'table';
    state.count = 1;
    return;
  }
  if (line.trim() === '') {
    flushParagraph(state, out, true);
    return;
  }
  state.para.push(line);
  if (paraChars(state) > MAX_PARAGRAPH_CHARS) flushParagraph(state, out, true);
}

/**
 * A line still open past MAX_PARAGRAPH_CHARS: in prose its head, cut at a
 * word, becomes part of the paragraph (and the paragraph is given out at its
 * cap as usual); in a code block or a table only the line's start matters (a
 * closing fence, a row), so the rest is let go.
 */
function cutCarry(state: NarrationState, out: string[]): void {
  if (state.mode !== 'prose') {
    state.carry = state.carry.slice(0, MAX_PARAGRAPH_CHARS);
    return;
  }
  const space = state.carry.lastIndexOf(' ', MAX_PARAGRAPH_CHARS);
  const at = space > MAX_PARAGRAPH_CHARS / 2 ? space + 1 : MAX_PARAGRAPH_CHARS;
  const head = state.carry.slice(0, at);
  state.carry = state.carry.slice(at);
  if (state.cont) continueLine(state, head, out);
  else takeLine(state, head, out);
  state.cont = true;
}

/** The rest of a line whose head was taken already: more of the paragraph, never a block's start. */
function continueLine(state: NarrationState, rest: string, out: string[]): void {
  // The head opened a block (a fence or a row of 4,000 characters): the rest of that line is not read.
  if (state.mode !== 'prose') return;
  state.para.push(rest);
  if (paraChars(state) > MAX_PARAGRAPH_CHARS) flushParagraph(state, out, true);
}

function paraChars(state: NarrationState): number {
  return state.para.reduce((n, l) => n + l.length + 1, 0);
}

/** The phrase for the code block or table that just ended. */
function closeBlock(state: NarrationState, out: string[]): void {
  if (state.mode === 'code') out.push(codePhrase(state.lang ?? '', state.count));
  else if (state.mode === 'table') out.push(tablePhrase(state.count));
  state.mode = 'prose';
  state.count = 0;
  delete state.fence;
  delete state.lang;
}

export function codePhrase(lang: string, lines: number): string {
  const what = lang === 'diff' || lang === 'patch' ? 'A diff' : 'A code block';
  return `${what} of ${lines === 1 ? 'one line' : `${lines} lines`}.`;
}

/** Rows counts the header too: a table of a header and three rows is "three rows". */
export function tablePhrase(rows: number): string {
  const body = Math.max(0, rows - 1);
  return body === 0 ? 'A table.' : `A table of ${body === 1 ? 'one row' : `${body} rows`}.`;
}

/** Give out the open paragraph's complete sentences; all of them when `closed`. */
function flushParagraph(state: NarrationState, out: string[], closed: boolean): void {
  if (state.para.length === 0) return;
  const spoken = cleanForSpeech(state.para.join('\n'), { maxChars: MAX_PARAGRAPH_CHARS * 2 });
  const sentences = spoken ? splitSentences(spoken) : [];
  const complete = closed || ENDS_SENTENCE.test(state.para.at(-1)!) ? sentences.length : sentences.length - 1;
  for (let i = state.given; i < complete; i++) out.push(sentences[i]!);
  if (closed) {
    state.para = [];
    state.given = 0;
  } else state.given = Math.max(state.given, complete);
}
