/**
 * One way to define a command (citty's defineCommand): a command declares its
 * name, help text, flags and how many arguments it takes, and gets the shared
 * parsing, `-h`/`--help` on stdout, and the same one-line usage errors as every
 * other command (an unknown flag names the closest known one).
 *
 * Design notes:
 * - The parser reads the tokens of node:util parseArgs in non-strict mode
 *   (`tokenize` below makes the same tokens): vox checks unknown flags,
 *   missing values and stray arguments itself, so the messages are vox's own
 *   and alike everywhere (parseArgs' strict errors are long and worded per
 *   case). `tokenize` is parseArgs' tokenizer rewritten, because loading
 *   parseArgs costs `vox say` and `vox hook`, which run this on every Claude
 *   Code hook, about 0.7 ms of their start (docs/benchmarks.md);
 *   test/command.test.ts checks it against parseArgs token for token.
 * - Help texts are written by hand (docs/cli.md shows them);
 *   test/command.test.ts checks that each names exactly the declared flags.
 * - A usage error is one line on stderr and exit 2, except in a `lenient`
 *   command (vox hook), where it is reported and ignored: Claude Code reads a
 *   hook's exit 2 as "block this action".
 */
import { closest } from '@vox/protocol';
import { EXIT, type CliContext, type Command } from './context.js';
import { ClientError } from '../errors.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** One-letter alias, e.g. `q` for `-q`. */
  short?: string;
}
export type FlagSpecs = Record<string, FlagSpec>;
export type FlagValues<F extends FlagSpecs> = { [K in keyof F]?: F[K]['type'] extends 'string' ? string : boolean };

export interface CommandSpec<F extends FlagSpecs> {
  /** As typed after `vox`: "say" makes messages start "vox say: ". */
  name: string;
  /** The `--help` text. */
  usage: string;
  /** Every flag but `-h`/`--help`, which every command has. */
  flags: F;
  /** How many positional arguments it accepts (default 0). */
  maxArgs?: number;
  /** Report usage errors and go on, exit code untouched (vox hook). */
  lenient?: boolean;
  run(input: { ctx: CliContext; flags: FlagValues<F>; args: string[] }): Promise<number>;
}

export interface DefinedCommand<F extends FlagSpecs = FlagSpecs> {
  spec: CommandSpec<F>;
  run: Command;
}

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

/** `args[0]` when it is one of `actions`; a UsageError naming the closest one otherwise. `what` names it in the message. */
export function pickAction<T extends string>(args: readonly string[], actions: readonly T[], what = 'action'): T {
  const [first] = args;
  if (first === undefined) throw new UsageError(`expected ${what === 'action' ? 'an action' : `a ${what}`}: ${actions.join(', ')}`);
  if (!(actions as readonly string[]).includes(first)) {
    throw new UsageError(`unknown ${what} "${first}"${suggestion(first, actions, true)} (one of ${actions.join(', ')})`);
  }
  return first as T;
}

const HELP: FlagSpec = { type: 'boolean', short: 'h' };

/** A token of parseArgs' `tokens` output, without its `index`. */
export type Token =
  | { kind: 'positional'; value: string }
  | { kind: 'option-terminator' }
  | { kind: 'option'; name: string; rawName: string; value: string | undefined; inlineValue: boolean | undefined };

/**
 * The tokens that node:util `parseArgs({ args, options, strict: false,
 * allowPositionals: true, tokens: true })` gives (Node 20 to 26 alike), in its
 * order and with its rules: `--` ends the options; `-abc` is a group of short
 * flags, split where a string flag takes the rest as its value; a string flag
 * takes the next argument as its value whatever it looks like; an unknown
 * flag is a boolean.
 */
export function tokenize(args: readonly string[], options: FlagSpecs): Token[] {
  const tokens: Token[] = [];
  const has = (name: string) => Object.hasOwn(options, name);
  const isString = (name: string) => has(name) && options[name]!.type === 'string';
  const longOf = (short: string) => {
    for (const name of Object.keys(options)) if (Object.hasOwn(options[name]!, 'short') && options[name]!.short === short) return name;
    return short;
  };
  const rest = [...args];
  while (rest.length > 0) {
    const arg = rest.shift()!;
    const next = rest[0];
    if (arg === '--') {
      tokens.push({ kind: 'option-terminator' });
      for (const value of rest) tokens.push({ kind: 'positional', value });
      break;
    }
    if (arg.length === 2 && arg[0] === '-' && arg[1] !== '-') {
      // -f, or -f VALUE
      const name = longOf(arg[1]!);
      const takes = isString(name) && next !== undefined;
      tokens.push({ kind: 'option', name, rawName: arg, value: takes ? rest.shift() : undefined, inlineValue: takes ? false : undefined });
      continue;
    }
    if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-') {
      if (!isString(longOf(arg[1]!))) {
        // -fXz: -f -X -z, with a string flag inside taking the rest (-abfFILE: -a -b -fFILE)
        const expanded: string[] = [];
        for (let i = 1; i < arg.length; i++) {
          if (!isString(longOf(arg[i]!)) || i === arg.length - 1) expanded.push(`-${arg[i]}`);
          else {
            expanded.push(`-${arg.slice(i)}`);
            break;
          }
        }
        rest.unshift(...expanded);
      } else {
        // -fVALUE
        tokens.push({ kind: 'option', name: longOf(arg[1]!), rawName: `-${arg[1]}`, value: arg.slice(2), inlineValue: true });
      }
      continue;
    }
    if (arg.length > 2 && arg.startsWith('--')) {
      if (!arg.includes('=', 3)) {
        // --foo, or --foo VALUE
        const name = arg.slice(2);
        const takes = isString(name) && next !== undefined;
        tokens.push({ kind: 'option', name, rawName: arg, value: takes ? rest.shift() : undefined, inlineValue: takes ? false : undefined });
      } else {
        // --foo=bar (split at the first "=", as parseArgs does)
        const eq = arg.indexOf('=');
        const name = arg.slice(2, eq);
        tokens.push({ kind: 'option', name, rawName: `--${name}`, value: arg.slice(eq + 1), inlineValue: true });
      }
      continue;
    }
    tokens.push({ kind: 'positional', value: arg });
  }
  return tokens;
}

export interface Parsed<F extends FlagSpecs> {
  flags: FlagValues<F>;
  args: string[];
  help: boolean;
  /** Usage problems, each one sentence; empty when the arguments are fine. */
  problems: string[];
}

/** Parse `argv` against `flags` (plus --help); never throws. */
export function parseCommandLine<F extends FlagSpecs>(argv: string[], flags: F, maxArgs = 0): Parsed<F> {
  const options = { ...flags, help: HELP };
  const tokens = tokenize(argv, options);
  const values: Record<string, string | boolean> = {};
  const args: string[] = [];
  const problems: string[] = [];
  let help = false;
  const known = Object.keys(options);
  const names = known.map((k) => `--${k}`);
  for (const t of tokens) {
    if (t.kind === 'positional') {
      args.push(t.value);
    } else if (t.kind === 'option') {
      const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
      if (!spec) {
        // A one-letter typo (-x) has too many neighbours to suggest one.
        problems.push(`unknown flag ${t.rawName}${t.rawName.startsWith('--') ? suggestion(t.rawName, names) : ''}`);
      } else if (t.name === 'help') {
        help = true;
      } else if (spec.type === 'boolean') {
        if (t.inlineValue) problems.push(`${t.rawName} takes no value`);
        else values[t.name] = true;
      } else if (t.value === undefined) {
        problems.push(`${t.rawName} needs a value`);
      } else if (!t.inlineValue && t.value.length > 1 && t.value.startsWith('-')) {
        // As parseArgs' strict mode: "--voice --wait" is a forgotten value, not the voice "--wait".
        problems.push(`${t.rawName} needs a value, not the flag ${t.value} (write ${t.rawName}=${t.value} if that is the value)`);
      } else {
        values[t.name] = t.value;
      }
    }
  }
  if (args.length > maxArgs) {
    const extra = args.slice(maxArgs).map((a) => `"${a}"`).join(' ');
    problems.push(maxArgs === 0 ? `takes no arguments, got ${extra}` : `unexpected argument ${extra}`);
  }
  return { flags: values as FlagValues<F>, args, help, problems };
}

export function defineCommand<const F extends FlagSpecs>(spec: CommandSpec<F>): DefinedCommand<F> {
  const run: Command = async (ctx) => {
    const parsed = parseCommandLine(ctx.argv, spec.flags, spec.maxArgs ?? 0);
    if (parsed.help) {
      ctx.stdout.write(spec.usage);
      return EXIT.OK;
    }
    if (parsed.problems.length) {
      if (!spec.lenient) {
        ctx.stderr.write(usageLine(spec.name, parsed.problems[0]!));
        return EXIT.USAGE;
      }
      for (const p of parsed.problems) ctx.stderr.write(usageLine(spec.name, `ignoring ${p}`));
    }
    try {
      return await spec.run({ ctx, flags: parsed.flags, args: parsed.args });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      ctx.stderr.write(usageLine(spec.name, err.message));
      return spec.lenient ? EXIT.OK : EXIT.USAGE;
    }
  };
  return { spec, run };
}
