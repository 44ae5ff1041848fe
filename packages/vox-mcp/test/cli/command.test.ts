/** The one command definer: parsing, usage errors with the closest flag, and help texts that match the flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  defineCommand,
  parseCommandLine,
  pickAction,
  tokenize,
  type DefinedCommand,
  type FlagSpecs,
} from '../../src/cli/command.js';
import { COMMANDS, commandNames, findCommand, usage } from '../../src/cli/command-table.js';
import type { CliContext } from '../../src/cli/context.js';
import { suggestion, UsageError } from '../../src/cli/usage.js';
import { ClientError } from '../../src/errors.js';
import { ConfigError } from '../../src/project/config-validation.js';

/** Every command of the table, loaded (an alias runs its command's module). */
const ALL: DefinedCommand[] = await Promise.all(COMMANDS.map(async (c) => (await c.load()).command));

const FLAGS = { voice: { type: 'string' }, wait: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' } } as const;

function ctxFor(argv: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const ctx: CliContext = { argv, env: {}, cwd: '/', stdin: new PassThrough(), stdout, stderr };
  return { ctx, out: () => out, err: () => err };
}

test('parseCommandLine: values, short aliases, inline values and arguments', () => {
  const p = parseCommandLine(['--voice=alba', '-q', 'hello', '--wait', 'world'], FLAGS, Infinity);
  assert.deepEqual(p.problems, []);
  assert.deepEqual(p.flags, { voice: 'alba', quiet: true, wait: true });
  assert.deepEqual(p.args, ['hello', 'world']);
  assert.deepEqual(parseCommandLine(['--', '--wait'], FLAGS, 1).args, ['--wait'], 'after -- a flag is text');
});

test('tokenize gives the tokens of parseArgs (non-strict, positionals allowed), for every command and shape of argument', () => {
  // parseArgs knows strings and booleans: every flag that takes a value is a string to it.
  const asParseArgs = (options: FlagSpecs) =>
    Object.fromEntries(
      Object.entries(options).map(([k, f]) => [
        k,
        { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.short ? { short: f.short } : {}) } as const,
      ]),
    );
  const reference = (args: string[], options: FlagSpecs) =>
    parseArgs({ args, options: asParseArgs(options), strict: false, allowPositionals: true, tokens: true }).tokens.map(
      ({ index: _index, ...t }) => t,
    );
  // Every shape parseArgs tells apart: lone and grouped shorts, a string short inside a group, inline values,
  // "=" in odd places, "--" and "-" alone, empty strings, values that look like flags, unknown flags, non-ASCII.
  const words = [
    'x',
    '-',
    '--',
    '',
    '-q',
    '-h',
    '-x',
    '-qh',
    '-qx',
    '-xq',
    '-qv',
    '-vq',
    '-qvalba',
    '-valba',
    '-v=a',
    '-5',
    '--wait',
    '--voice',
    '--voice=alba',
    '--voice=',
    '--voice=a=b',
    '--=x',
    '--=',
    '---',
    '---x',
    '--no-wait',
    '--wait=yes',
    '--bogus',
    '--bogus=1',
    '--help',
    '--toString',
    '--__proto__',
    '--constructor',
    'é',
    '-é',
    '--voix',
  ];
  const flagSets: FlagSpecs[] = [
    {
      voice: { type: 'string', short: 'v' },
      wait: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    },
    { x: { type: 'string' }, q: { type: 'boolean', short: 'x' }, help: { type: 'boolean', short: 'h' } },
    ...ALL.map((c) => ({ ...c.spec.flags, help: { type: 'boolean', short: 'h' } }) as FlagSpecs),
  ];
  let n = 0;
  for (const options of flagSets) {
    for (const a of words) {
      for (const b of words) {
        for (const c of ['x', '-q', '--voice', '']) {
          const args = [a, b, c];
          assert.deepEqual(tokenize(args, options), reference(args, options), JSON.stringify(args));
          n++;
        }
      }
    }
    assert.deepEqual(tokenize([], options), reference([], options));
  }
  assert.ok(n > 10_000, `${n} argument lists compared`);
});

test('parseCommandLine: each kind of mistake is one sentence', () => {
  assert.deepEqual(parseCommandLine(['--vocie', 'x'], FLAGS, 5).problems, [
    'unknown flag --vocie; did you mean --voice?',
  ]);
  assert.deepEqual(
    parseCommandLine(['--qu'], FLAGS).problems,
    ['unknown flag --qu; did you mean --quiet?'],
    'the start of one flag',
  );
  assert.deepEqual(
    parseCommandLine(['--kubernetes'], FLAGS).problems,
    ['unknown flag --kubernetes'],
    'nothing close: no guess',
  );
  assert.deepEqual(parseCommandLine(['-x'], FLAGS).problems, ['unknown flag -x']);
  assert.deepEqual(parseCommandLine(['--voice'], FLAGS).problems, ['--voice needs a value']);
  assert.match(
    parseCommandLine(['--voice', '--wait'], FLAGS).problems[0]!,
    /^--voice needs a value, not the flag --wait/,
  );
  assert.deepEqual(parseCommandLine(['--wait=yes'], FLAGS).problems, ['--wait takes no value']);
  assert.deepEqual(parseCommandLine(['a', 'b'], FLAGS, 1).problems, ['unexpected argument "b"']);
  assert.deepEqual(parseCommandLine(['a'], FLAGS, 0).problems, ['takes no arguments, got "a"']);
  assert.equal(parseCommandLine(['--bogus', '--help'], FLAGS).help, true, '--help wins over a bad flag');
});

test('suggestion and pickAction', () => {
  assert.equal(suggestion('sya', ['say', 'stop', 'status'], true), '; did you mean "say"?');
  assert.equal(suggestion('zzzz', ['say', 'stop']), '');
  assert.equal(pickAction(['install'], ['install', 'uninstall'] as const), 'install');
  assert.throws(
    () => pickAction(['instal'], ['install', 'uninstall']),
    (e: Error) => e instanceof UsageError && /did you mean "install"\?/.test(e.message),
  );
  assert.throws(() => pickAction([], ['install', 'uninstall']), /expected an action: install, uninstall/);
});

test('defineCommand: --help on stdout, one usage line on stderr with exit 2, UsageError from run alike', async () => {
  let ran = 0;
  const c = defineCommand({
    name: 'demo',
    usage: 'Usage: vox demo [--voice NAME] [--wait] [-q|--quiet]\n',
    flags: FLAGS,
    async run({ flags }) {
      ran++;
      if (flags.voice === 'bad') throw new UsageError('--voice must be a real voice');
      return 0;
    },
  });
  let io = ctxFor(['--help']);
  assert.equal(await c.run(io.ctx), 0);
  assert.match(io.out(), /^Usage: vox demo/);
  assert.equal(io.err(), '');
  io = ctxFor(['--vioce', 'x']);
  assert.equal(await c.run(io.ctx), 2);
  assert.equal(io.err(), 'vox demo: unknown flag --vioce; did you mean --voice? See "vox demo --help".\n');
  assert.equal(io.out(), '');
  io = ctxFor(['--voice', 'bad']);
  assert.equal(await c.run(io.ctx), 2);
  assert.equal(io.err(), 'vox demo: --voice must be a real voice. See "vox demo --help".\n');
  assert.equal(ran, 1, 'run is not called when the flags are wrong');
});

test('defineCommand lenient (vox hook): the problem is reported, the command still runs and its exit code stands', async () => {
  const c = defineCommand({
    name: 'hookish',
    usage: 'Usage: vox hookish\n',
    flags: {},
    lenient: true,
    run: async () => 0,
  });
  const io = ctxFor(['--bogus']);
  assert.equal(await c.run(io.ctx), 0);
  assert.equal(io.err(), 'vox hookish: ignoring unknown flag --bogus. See "vox hookish --help".\n');
});

test('every command help names exactly the flags it parses', () => {
  assert.equal(ALL.length, COMMANDS.length);
  for (const { spec } of ALL) {
    const shown = new Set(spec.usage.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []);
    shown.delete('--help');
    const declared = new Set(Object.keys(spec.flags).map((f) => `--${f}`));
    assert.deepEqual([...shown].sort(), [...declared].sort(), `vox ${spec.name}: help and flags differ`);
    for (const [name, f] of Object.entries(spec.flags)) {
      if (f.short)
        assert.match(
          spec.usage,
          new RegExp(`-${f.short}[ ,|]`),
          `vox ${spec.name}: -${f.short} (--${name}) is not in its help`,
        );
    }
  }
});

test('typed flags: numbers, durations and enums are checked before run, in one wording, in the order declared', () => {
  const typed = {
    rate: { type: 'number', min: 80, max: 500 },
    lines: { type: 'number', short: 'n', integer: true, min: 0 },
    timeout: { type: 'duration', unit: 's', positive: true },
    'max-age': { type: 'duration', unit: 'ms', max: 1000 },
    type: { type: 'enum', values: ['mcp_tool', 'command'] },
    priority: { type: 'enum', values: ['important', 'message', 'text'] },
  } as const;
  const ok = parseCommandLine(
    ['--rate=120', '-n', '3', '--timeout', '1.5', '--max-age', '250', '--type', 'command'],
    typed,
  );
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.invalid, []);
  assert.deepEqual(
    ok.flags,
    { rate: 120, lines: 3, timeout: 1500, 'max-age': 250, type: 'command' },
    'a duration comes in ms, given in its unit',
  );
  const bad = (args: string[]) => parseCommandLine(args, typed).invalid;
  assert.deepEqual(bad(['--rate', 'fast']), ['--rate must be a number from 80 to 500, got "fast"']);
  assert.deepEqual(bad(['--rate', '501']), ['--rate must be a number from 80 to 500, got "501"']);
  assert.deepEqual(bad(['-n', '1.5']), ['-n must be a whole number of at least 0, got "1.5"'], 'named as typed');
  assert.deepEqual(bad(['--lines=']), ['--lines must be a whole number of at least 0, got ""'], 'a blank is no number');
  assert.deepEqual(bad(['--timeout', '0']), ['--timeout must be a positive number of seconds, got "0"']);
  assert.deepEqual(bad(['--max-age', 'Infinity']), [
    '--max-age must be a number of milliseconds of at most 1000, got "Infinity"',
  ]);
  assert.deepEqual(bad(['--type', 'http']), ['--type must be mcp_tool or command, got "http"']);
  assert.deepEqual(bad(['--priority', 'mesage']), [
    '--priority must be important, message or text, got "mesage"; did you mean "message"?',
  ]);
  assert.deepEqual(
    bad(['--type', 'x', '--rate', 'x']),
    ['--rate must be a number from 80 to 500, got "x"', '--type must be mcp_tool or command, got "x"'],
    'declared order',
  );
  const p = parseCommandLine(['--rate', 'x'], typed);
  assert.equal(p.flags.rate, undefined, 'a bad value is left out');
  assert.deepEqual(
    parseCommandLine(['--rate'], typed).problems,
    ['--rate needs a value'],
    'a typed flag takes a value as a string flag does',
  );
});

test('defineCommand: a bad value is one usage line, exit 2; the quiet flag leaves only the exit code', async () => {
  const c = defineCommand({
    name: 'demo',
    usage: 'Usage: vox demo [--rate N] [-q|--quiet]\n',
    flags: { rate: { type: 'number', min: 1, max: 9 }, quiet: { type: 'boolean', short: 'q' } },
    quiet: 'quiet',
    run: async ({ flags }) => (flags.rate === 5 ? 0 : 1),
  });
  let io = ctxFor(['--rate', '5']);
  assert.equal(await c.run(io.ctx), 0);
  io = ctxFor(['--rate', '10']);
  assert.equal(await c.run(io.ctx), 2);
  assert.equal(io.err(), 'vox demo: --rate must be a number from 1 to 9, got "10". See "vox demo --help".\n');
  io = ctxFor(['-q', '--rate', '10']);
  assert.equal(await c.run(io.ctx), 2);
  assert.equal(io.err(), '');
  io = ctxFor(['-q', '--bogus']);
  assert.equal(await c.run(io.ctx), 2);
  assert.match(io.err(), /unknown flag --bogus/, 'a line that does not parse is reported even with -q');
});

test('defineCommand reports whatever run throws: the cause on one line, the exit code by kind', async () => {
  const throwing = (err: unknown, lenient = false) =>
    defineCommand({
      name: 'demo',
      usage: 'Usage: vox demo [-q]\n',
      flags: { quiet: { type: 'boolean', short: 'q' } },
      quiet: 'quiet',
      lenient,
      run: async () => {
        throw err;
      },
    });
  const cases: [unknown, number, string][] = [
    [
      new ClientError('VOX_ERR_CLIENT_DAEMON_UNREACHABLE', 'voxd is not running; start it with "vox daemon start"'),
      3,
      'vox demo: VOX_ERR_CLIENT_DAEMON_UNREACHABLE: voxd is not running; start it with "vox daemon start"\n',
    ],
    [
      new ClientError('VOX_ERR_CLIENT_USAGE', 'VOX_HOME is not absolute'),
      2,
      'vox demo: VOX_ERR_CLIENT_USAGE: VOX_HOME is not absolute\n',
    ],
    [
      new UsageError('--voice must be a real voice'),
      2,
      'vox demo: --voice must be a real voice. See "vox demo --help".\n',
    ],
    [new ConfigError('/p/.vox/config.md', [{ key: 'rate', message: 'must be a number' }] as never), 7, ''],
    [new Error('boom'), 1, 'vox demo: unexpected error: boom\n'],
  ];
  for (const [err, code, line] of cases) {
    let io = ctxFor([]);
    assert.equal(await throwing(err).run(io.ctx), code, String(err));
    if (line) assert.equal(io.err(), line);
    else assert.match(io.err(), /^vox demo: .*config\.md/);
    io = ctxFor(['-q']);
    assert.equal(await throwing(err).run(io.ctx), code);
    assert.equal(io.err(), '', 'quiet: the exit code alone');
  }
  // Lenient (vox hook): one line, whatever the error, and exit 0.
  let io = ctxFor([]);
  assert.equal(
    await throwing(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9\n  at x'), { code: 'ECONNREFUSED' }),
      true,
    ).run(io.ctx),
    0,
  );
  assert.equal(io.err(), 'vox demo: connect ECONNREFUSED 127.0.0.1:9 at x\n');
  io = ctxFor([]);
  assert.equal(await throwing(new ClientError('VOX_ERR_CLIENT_NOT_VOXD', 'not voxd'), true).run(io.ctx), 0);
  assert.equal(io.err(), 'vox demo: VOX_ERR_CLIENT_NOT_VOXD: not voxd\n');
});

test('the command table: each entry loads the command of its name, and vox --help lists them all', async () => {
  for (const [i, entry] of COMMANDS.entries()) {
    assert.equal(ALL[i]!.spec.name, entry.name);
    for (const alias of entry.aliases ?? []) assert.equal(findCommand(alias), entry);
    assert.match(usage(), new RegExp(`^  ${entry.synopsis.replace(/[|[\]]/g, '\\$&')}( {3,}|$)`, 'm'), entry.name);
  }
  assert.equal(new Set(commandNames()).size, commandNames().length, 'no name twice');
  assert.equal(findCommand('toString'), undefined);
  assert.equal(findCommand('unmute')?.name, 'say');
});
