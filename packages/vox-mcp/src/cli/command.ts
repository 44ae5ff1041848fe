/**
 * One way to define a command (citty's defineCommand): a command declares its
 * name, help text, flags (and the values they take) and how many arguments it
 * takes, and gets the shared parsing, `-h`/`--help` on stdout, the same
 * one-line usage errors as every other command (an unknown flag names the
 * closest known one), and the same report of whatever it throws.
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
 * - A flag's value is checked by its type (number, duration, enum) before the
 *   command runs, in the order the flags are declared, and a bad one reads the
 *   same for every flag: `--rate must be a number from 80 to 500, got "fast"`.
 *   A duration is a plain number in the unit its help names (seconds or
 *   milliseconds, as vox has always taken them); the command gets it in ms.
 * - Help texts are written by hand (docs/cli.md shows them);
 *   test/command.test.ts checks that each names exactly the declared flags.
 * - Whatever `run` throws is reported here (report.ts: the cause and its fix
 *   on one line, the exit code by the error's kind), so a command catches
 *   only what it reports differently.
 * - A usage error is one line on stderr and exit 2, except in a `lenient`
 *   command (vox hook), where it is reported and ignored, and so is anything
 *   the command throws (one line, exit 0): Claude Code reads a hook's exit 2
 *   as "block this action", and a hook that fails disturbs its session.
 */
import { EXIT, type CliContext, type Command } from './context.js';
import { reportThrown, warnThrown } from './report.js';
import { suggestion, UsageError, usageLine } from './usage.js';

/** A flag and the value it takes; `short` is a one-letter alias, e.g. `q` for `-q`. */
export type FlagSpec = { short?: string } & (
  | { type: 'string' | 'boolean' }
  /** `positive`: above 0; `integer`: a whole number. */
  | { type: 'number'; min?: number; max?: number; integer?: boolean; positive?: boolean }
  /** A number of `unit` (bounds in that unit too), handed to the command in milliseconds. */
  | { type: 'duration'; unit: 's' | 'ms'; min?: number; max?: number; positive?: boolean }
  | { type: 'enum'; values: readonly string[] }
);
export type FlagSpecs = Record<string, FlagSpec>;
type ValueOf<S> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'number' | 'duration' }
    ? number
    : S extends { values: readonly (infer V)[] }
      ? V
      : string;
export type FlagValues<F extends FlagSpecs> = { [K in keyof F]?: ValueOf<F[K]> };

export interface CommandSpec<F extends FlagSpecs> {
  /** As typed after `vox`: "say" makes messages start "vox say: ". */
  name: string;
  /** The `--help` text. */
  usage: string;
  /** Every flag but `-h`/`--help`, which every command has. */
  flags: F;
  /** How many positional arguments it accepts (default 0). */
  maxArgs?: number;
  /** Report usage errors and go on (the exit code is run's); report what run throws and exit 0 (vox hook). */
  lenient?: boolean;
  /** The boolean flag that leaves the exit code as the only report of a bad value or a throw (vox say -q). */
  quiet?: keyof F;
  run(input: { ctx: CliContext; flags: FlagValues<F>; args: string[] }): Promise<number>;
}

/** A command as the command table and the tests see it, whatever its flags. */
export interface DefinedCommand {
  spec: Pick<CommandSpec<FlagSpecs>, 'name' | 'usage' | 'flags' | 'maxArgs' | 'lenient'>;
  run: Command;
}

/** `args[0]` when it is one of `actions`; a UsageError naming the closest one otherwise. `what` names it in the message. */
export function pickAction<T extends string>(args: readonly string[], actions: readonly T[], what = 'action'): T {
  const [first] = args;
  if (first === undefined)
    throw new UsageError(`expected ${what === 'action' ? 'an action' : `a ${what}`}: ${actions.join(', ')}`);
  if (!(actions as readonly string[]).includes(first)) {
    throw new UsageError(
      `unknown ${what} "${first}"${suggestion(first, actions, true)} (one of ${actions.join(', ')})`,
    );
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
  // parseArgs' "string" flags: every flag that takes a value.
  const isString = (name: string) => has(name) && options[name]!.type !== 'boolean';
  const longOf = (short: string) => {
    for (const name of Object.keys(options))
      if (Object.hasOwn(options[name]!, 'short') && options[name]!.short === short) return name;
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
      tokens.push({
        kind: 'option',
        name,
        rawName: arg,
        value: takes ? rest.shift() : undefined,
        inlineValue: takes ? false : undefined,
      });
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
        tokens.push({
          kind: 'option',
          name: longOf(arg[1]!),
          rawName: `-${arg[1]}`,
          value: arg.slice(2),
          inlineValue: true,
        });
      }
      continue;
    }
    if (arg.length > 2 && arg.startsWith('--')) {
      if (!arg.includes('=', 3)) {
        // --foo, or --foo VALUE
        const name = arg.slice(2);
        const takes = isString(name) && next !== undefined;
        tokens.push({
          kind: 'option',
          name,
          rawName: arg,
          value: takes ? rest.shift() : undefined,
          inlineValue: takes ? false : undefined,
        });
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
  /** Values their flag does not take, each one sentence, in the order the flags are declared (such a flag is left out of `flags`). */
  invalid: string[];
}

/** What a flag takes, in words: "a number from 80 to 500", "a positive number of seconds", "mcp_tool or command". */
function allowed(spec: FlagSpec): string {
  if (spec.type === 'enum')
    return spec.values.length > 1
      ? `${spec.values.slice(0, -1).join(', ')} or ${spec.values.at(-1)}`
      : String(spec.values[0]);
  if (spec.type !== 'number' && spec.type !== 'duration') return 'a value';
  let noun = `a ${spec.positive ? 'positive ' : ''}${spec.type === 'number' && spec.integer ? 'whole number' : 'number'}`;
  if (spec.type === 'duration') noun += spec.unit === 's' ? ' of seconds' : ' of milliseconds';
  const { min, max } = spec;
  if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
  if (min !== undefined) return `${noun} of at least ${min}`;
  return max !== undefined ? `${noun} of at most ${max}` : noun;
}

/** The value of a flag that takes `text`, or undefined when it does not take it. */
function convert(spec: FlagSpec, text: string): string | number | undefined {
  if (spec.type === 'enum') return spec.values.includes(text) ? text : undefined;
  if (spec.type !== 'number' && spec.type !== 'duration') return text;
  // Number() as vox always read these ("1e3", " 5 "), but a blank is no number (Number("") is 0).
  const n = Number(text);
  const ok =
    text.trim() !== '' &&
    Number.isFinite(n) &&
    !(spec.type === 'number' && spec.integer && !Number.isInteger(n)) &&
    !(spec.positive && n <= 0) &&
    !(spec.min !== undefined && n < spec.min) &&
    !(spec.max !== undefined && n > spec.max);
  if (!ok) return undefined;
  return spec.type === 'duration' && spec.unit === 's' ? n * 1000 : n;
}

/** Parse `argv` against `flags` (plus --help); never throws. */
export function parseCommandLine<F extends FlagSpecs>(argv: string[], flags: F, maxArgs = 0): Parsed<F> {
  const options = { ...flags, help: HELP };
  const tokens = tokenize(argv, options);
  const values: Record<string, string | boolean | number> = {};
  /** Each flag's name as typed, for its message ("-n" or "--lines"). */
  const typed: Record<string, string> = {};
  const args: string[] = [];
  const problems: string[] = [];
  const invalid: string[] = [];
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
        problems.push(
          `${t.rawName} needs a value, not the flag ${t.value} (write ${t.rawName}=${t.value} if that is the value)`,
        );
      } else {
        values[t.name] = t.value;
        typed[t.name] = t.rawName;
      }
    }
  }
  for (const [name, spec] of Object.entries(flags)) {
    if (spec.type === 'boolean' || typeof values[name] !== 'string') continue;
    const text = values[name];
    const value = convert(spec, text);
    if (value !== undefined) {
      values[name] = value;
      continue;
    }
    delete values[name];
    const hint = spec.type === 'enum' ? suggestion(text, spec.values, true) : '';
    invalid.push(`${typed[name]} must be ${allowed(spec)}, got ${JSON.stringify(text)}${hint}`);
  }
  if (args.length > maxArgs) {
    const extra = args
      .slice(maxArgs)
      .map((a) => `"${a}"`)
      .join(' ');
    problems.push(maxArgs === 0 ? `takes no arguments, got ${extra}` : `unexpected argument ${extra}`);
  }
  return { flags: values as FlagValues<F>, args, help, problems, invalid };
}

export function defineCommand<const F extends FlagSpecs>(spec: CommandSpec<F>): { spec: CommandSpec<F>; run: Command } {
  const run: Command = async (ctx) => {
    const parsed = parseCommandLine(ctx.argv, spec.flags, spec.maxArgs ?? 0);
    if (parsed.help) {
      ctx.stdout.write(spec.usage);
      return EXIT.OK;
    }
    const quiet = spec.quiet !== undefined && parsed.flags[spec.quiet] === true;
    if (spec.lenient) {
      for (const p of [...parsed.problems, ...parsed.invalid]) ctx.stderr.write(usageLine(spec.name, `ignoring ${p}`));
    } else if (parsed.problems.length) {
      ctx.stderr.write(usageLine(spec.name, parsed.problems[0]!));
      return EXIT.USAGE;
    } else if (parsed.invalid.length) {
      // A bad value is the command's own usage error, which --quiet silences; a line that does not parse is not.
      return reportThrown(ctx, spec.name, new UsageError(parsed.invalid[0]!), { quiet });
    }
    try {
      return await spec.run({ ctx, flags: parsed.flags, args: parsed.args });
    } catch (err) {
      if (!spec.lenient) return reportThrown(ctx, spec.name, err, { quiet });
      if (err instanceof UsageError) ctx.stderr.write(usageLine(spec.name, err.message));
      else warnThrown(ctx, spec.name, err);
      return EXIT.OK;
    }
  };
  return { spec, run };
}
