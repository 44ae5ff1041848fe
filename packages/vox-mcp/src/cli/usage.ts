/**
 * Usage errors: what one is, the one line it is reported as, and the "did you
 * mean" that names the closest flag, command, action or value. Kept apart from
 * the definer (command.ts) so that `vox` itself (cli.ts) and the error report
 * (report.ts) use them without loading the parser.
 */
import { closest } from '@vox/protocol';
import { ClientError } from '../errors.js';

/** A bad flag, argument or value: reported as one line with the pointer to --help, exit 2. */
export class UsageError extends ClientError {
  constructor(message: string) {
    super('VOX_ERR_CLIENT_USAGE', message);
    this.name = 'UsageError';
  }
}

/** The one format of a usage error. */
export function usageLine(name: string, message: string): string {
  const text = message.trim();
  return `vox ${name}: ${text}${/[.?!]$/.test(text) ? '' : '.'} See "vox ${name} --help".\n`;
}

/** "; did you mean X?" for the candidate closest to `word` (a typo, or the start of only one), or "". */
export function suggestion(word: string, candidates: readonly string[], quote = false): string {
  const fold = (s: string) => s.toLowerCase().replace(/^-+/, '');
  const w = fold(word);
  const starting = w.length >= 2 ? candidates.filter((c) => fold(c).startsWith(w)) : [];
  const near = starting.length === 1 ? starting[0] : closest(word, candidates, fold);
  return near ? `; did you mean ${quote ? `"${near}"` : near}?` : '';
}

/** `text` wrapped at 78 columns, every line but the first indented by `indent` spaces. */
export function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > 78) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join(`\n${' '.repeat(indent)}`);
}
