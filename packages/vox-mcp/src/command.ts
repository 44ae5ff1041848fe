/**
 * One way to define a command (citty's defineCommand): a command declares its
 * name, help text, flags and how many arguments it takes, and gets the shared
 * parsing, `-h`/`--help` on stdout, and the same one-line usage errors as every
 * other command (an unknown flag names the closest known one).
 *
 * Design notes:
 * - The parser is node:util parseArgs in non-strict mode, read through its
 *   tokens: vox checks unknown flags, missing values and stray arguments
 *   itself, so the messages are vox's own and alike everywhere (parseArgs'
 *   strict errors are long and worded per case). No dependency and no
 *   allocation worth measuring: `vox say` and `vox hook` run this on every
 *   Claude Code hook.
 * - Help texts are written by hand (docs/cli.md shows them);
 *   test/command.test.ts checks that each names exactly the declared flags.
 * - A usage error is one line on stderr and exit 2, except in a `lenient`
 *   command (vox hook), where it is reported and ignored: Claude Code reads a
 *   hook's exit 2 as "block this action".
 */
import { parseArgs } from 'node:util';
import { closest } from '@vox/protocol';
import { EXIT, type CliContext, type Command } from './context.js';
import { ClientError } from './errors.js';

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
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
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
