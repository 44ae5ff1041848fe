/** The one command definer: parsing, usage errors with the closest flag, and help texts that match the flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { defineCommand, parseCommandLine, pickAction, suggestion, tokenize, UsageError, type DefinedCommand, type FlagSpecs } from '../../src/cli/command.js';
import type { CliContext } from '../../src/cli/context.js';
import * as chime from '../../src/cli/commands/chime.js';
import * as config from '../../src/cli/commands/config.js';
import * as daemon from '../../src/cli/commands/daemon.js';
import * as doctor from '../../src/cli/commands/doctor.js';
import * as hook from '../../src/cli/commands/hook.js';
import * as hooks from '../../src/cli/commands/hooks.js';
import * as init from '../../src/cli/commands/init.js';
import * as logs from '../../src/cli/commands/logs.js';
import * as mcp from '../../src/cli/commands/mcp.js';
import * as say from '../../src/cli/commands/say.js';
import * as status from '../../src/cli/commands/status.js';
import * as stop from '../../src/cli/commands/stop.js';
import * as voices from '../../src/cli/commands/voices.js';

const ALL: DefinedCommand[] = [chime, config, daemon, doctor, hook, hooks, init, logs, mcp, say, status, stop, voices].map((m) => m.command as unknown as DefinedCommand);

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
  const reference = (args: string[], options: FlagSpecs) =>
    parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true }).tokens.map(({ index: _index, ...t }) => t);
  // Every shape parseArgs tells apart: lone and grouped shorts, a string short inside a group, inline values,
  // "=" in odd places, "--" and "-" alone, empty strings, values that look like flags, unknown flags, non-ASCII.
  const words = ['x', '-', '--', '', '-q', '-h', '-x', '-qh', '-qx', '-xq', '-qv', '-vq', '-qvalba', '-valba', '-v=a', '-5', '--wait', '--voice', '--voice=alba',
    '--voice=', '--voice=a=b', '--=x', '--=', '---', '---x', '--no-wait', '--wait=yes', '--bogus', '--bogus=1', '--help', '--toString', '--__proto__', '--constructor', 'é', '-é', '--voix'];
  const flagSets: FlagSpecs[] = [
    { voice: { type: 'string', short: 'v' }, wait: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, help: { type: 'boolean', short: 'h' } },
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
  assert.deepEqual(parseCommandLine(['--vocie', 'x'], FLAGS, 5).problems, ['unknown flag --vocie; did you mean --voice?']);
  assert.deepEqual(parseCommandLine(['--qu'], FLAGS).problems, ['unknown flag --qu; did you mean --quiet?'], 'the start of one flag');
  assert.deepEqual(parseCommandLine(['--kubernetes'], FLAGS).problems, ['unknown flag --kubernetes'], 'nothing close: no guess');
  assert.deepEqual(parseCommandLine(['-x'], FLAGS).problems, ['unknown flag -x']);
  assert.deepEqual(parseCommandLine(['--voice'], FLAGS).problems, ['--voice needs a value']);
  assert.match(parseCommandLine(['--voice', '--wait'], FLAGS).problems[0]!, /^--voice needs a value, not the flag --wait/);
  assert.deepEqual(parseCommandLine(['--wait=yes'], FLAGS).problems, ['--wait takes no value']);
  assert.deepEqual(parseCommandLine(['a', 'b'], FLAGS, 1).problems, ['unexpected argument "b"']);
  assert.deepEqual(parseCommandLine(['a'], FLAGS, 0).problems, ['takes no arguments, got "a"']);
  assert.equal(parseCommandLine(['--bogus', '--help'], FLAGS).help, true, '--help wins over a bad flag');
});

test('suggestion and pickAction', () => {
  assert.equal(suggestion('sya', ['say', 'stop', 'status'], true), '; did you mean "say"?');
  assert.equal(suggestion('zzzz', ['say', 'stop']), '');
  assert.equal(pickAction(['install'], ['install', 'uninstall'] as const), 'install');
  assert.throws(() => pickAction(['instal'], ['install', 'uninstall']), (e: Error) => e instanceof UsageError && /did you mean "install"\?/.test(e.message));
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
  const c = defineCommand({ name: 'hookish', usage: 'Usage: vox hookish\n', flags: {}, lenient: true, run: async () => 0 });
  const io = ctxFor(['--bogus']);
  assert.equal(await c.run(io.ctx), 0);
  assert.equal(io.err(), 'vox hookish: ignoring unknown flag --bogus. See "vox hookish --help".\n');
});

test('every command help names exactly the flags it parses', () => {
  assert.equal(ALL.length, 13);
  for (const { spec } of ALL) {
    const shown = new Set(spec.usage.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []);
    shown.delete('--help');
    const declared = new Set(Object.keys(spec.flags).map((f) => `--${f}`));
    assert.deepEqual([...shown].sort(), [...declared].sort(), `vox ${spec.name}: help and flags differ`);
    for (const [name, f] of Object.entries(spec.flags)) {
      if (f.short) assert.match(spec.usage, new RegExp(`-${f.short}[ ,|]`), `vox ${spec.name}: -${f.short} (--${name}) is not in its help`);
    }
  }
});
