/**
 * The CLI as people expect it (issue 9, item 7): every command, run through the
 * real `vox` binary, answers a wrong flag with one line naming the closest
 * flag, and a mistyped command gets the closest command.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { commandNames } from '../../packages/vox-mcp/src/cli/command-table.js';
import { CLIENT_ERRORS } from '../../packages/vox-mcp/src/errors.js';
import { cleanEnv, removeDir, tempDir, vox, writeConfig } from '../helpers/daemon.js';

const home = tempDir();
after(() => removeDir(home));
// Nothing here may reach a voxd: none is started, and none may be.
// Nor may a command here touch the user's settings (vox daemon config, vox hooks).
const env = cleanEnv(home, {
  VOX_NO_AUTOSTART: '1',
  VOXD_PORT: '9',
  VOX_CONFIG_HOME: join(home, 'config'),
  HOME: home,
  CLAUDE_CONFIG_DIR: join(home, 'claude'),
});

/** A typo of one flag of each command (by its name or alias) and the flag it should suggest. */
const TYPOS: Record<string, [typo: string, meant: string | undefined]> = {
  say: ['--vioce', '--voice'],
  unmute: ['--onec', '--once'],
  stop: ['--al', '--all'],
  status: ['--wacth', '--watch'],
  voices: ['--lang', '--language'],
  chime: ['--wiat', '--wait'],
  listen: ['--slience', '--silence'],
  mcp: ['--stdio', undefined],
  hook: ['--dryrun', '--dry-run'],
  hooks: ['--projcet', '--project'],
  config: ['--jsn', '--json'],
  init: ['--forse', '--force'],
  daemon: ['--timout', '--timeout'],
  setup: ['--remvoe', '--remove'],
  doctor: ['--josn', '--json'],
  logs: ['--follwo', '--follow'],
  talk: ['--jsn', '--json'],
  remote: ['--ass', '--as'],
  focus: ['--jsn', '--json'],
  recap: ['--wiat', '--wait'],
  replay: ['--sesion', '--session'],
  history: ['--lnes', '--lines'],
};
/** Every command of the table (src/cli/command-table.ts), with its typo. */
const COMMANDS = commandNames().map((name): [string, string, string | undefined] => [
  name,
  ...(TYPOS[name] ?? ['', undefined]),
]);

test('every command in the table has a typo here', () => {
  assert.deepEqual(
    commandNames().filter((n) => !TYPOS[n]),
    [],
  );
});

// `vox unmute` is `vox say` under Biff's name, and speaks as it.
const shown = (name: string) => (name === 'unmute' ? 'say' : name);

test('every command answers an unknown flag with one line, exit 2, nothing on stdout (vox hook: reported, exit 0)', async () => {
  for (const [name] of COMMANDS) {
    const r = await vox([name, '--bogus-flag'], { env, cwd: home, input: '' });
    const prefix = `vox ${shown(name)}: `;
    if (name === 'hook') {
      assert.equal(r.code, 0, `vox hook must exit 0: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`${prefix}ignoring unknown flag --bogus-flag. See "vox hook --help".\n`), r.stderr);
      continue;
    }
    assert.equal(r.code, 2, `vox ${name}: ${r.stderr}`);
    assert.equal(r.stdout, '', `vox ${name} wrote to stdout`);
    assert.equal(r.stderr, `${prefix}unknown flag --bogus-flag. See "vox ${shown(name)} --help".\n`, `vox ${name}`);
  }
});

test('a mistyped flag names the closest one, for every command alike', async () => {
  for (const [name, typo, meant] of COMMANDS) {
    const args = name === 'hook' ? [name, 'Stop', typo, '--dry-run'] : [name, typo];
    const r = await vox(args, { env, cwd: home, input: name === 'hook' ? '{}' : '' });
    const hint = meant ? `; did you mean ${meant}?` : '';
    const line = `vox ${shown(name)}: ${name === 'hook' ? 'ignoring ' : ''}unknown flag ${typo}${hint}${hint ? '' : '.'} See "vox ${shown(name)} --help".\n`;
    assert.equal(r.stderr, line, `vox ${args.join(' ')}`);
    if (name === 'hook') {
      assert.equal(r.code, 0);
      assert.match(r.stdout, /"route":"\/v1\/speak"/, 'vox hook went on with the flags it knows (--dry-run)');
    } else {
      assert.equal(r.code, 2);
    }
  }
});

test('a mistyped command suggests the closest command and runs nothing', async () => {
  const r = await vox(['sya', 'hello'], { env, cwd: home });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'vox: unknown command "sya"; did you mean "say"? See "vox --help".\n');
  const far = await vox(['frobnicate'], { env, cwd: home });
  assert.equal(far.code, 2);
  assert.equal(far.stderr, 'vox: unknown command "frobnicate". See "vox --help".\n');
});

test('a mistyped action, a missing value or a value the flag does not take gets the same one line', async () => {
  const cases: [string[], string][] = [
    [
      ['hooks', 'instal'],
      'vox hooks: unknown action "instal"; did you mean "install"? (one of install, uninstall, status). See "vox hooks --help".\n',
    ],
    [
      ['daemon', 'restrat'],
      'vox daemon: unknown action "restrat"; did you mean "restart"? (one of install, uninstall, start, stop, restart, status, config). See "vox daemon --help".\n',
    ],
    [
      ['daemon', 'config', 'sett', 'audio', 'null'],
      'vox daemon: config: expected get, set or unset, not "sett"; did you mean "set"? (keys: audio, engine, port, host, logLevel, listen.recorder, listen.vad, listen.bargeIn, transcriber.kind, transcriber.url, transcriber.model, transcriber.timeoutMs, sherpa.idleUnloadMs, attention, digestMs, quiet.hours, quiet.microphone). Usage: vox daemon config [get KEY | set KEY VALUE | unset KEY] [--json]. See "vox daemon --help".\n',
    ],
    [
      ['chime', 'dnoe'],
      'vox chime: unknown signal "dnoe"; did you mean "done"? (one of done, prompt, error, attention). See "vox chime --help".\n',
    ],
    [['say', 'hi', '--voice'], 'vox say: --voice needs a value. See "vox say --help".\n'],
    [
      ['say', '--rate', 'fast', 'hi'],
      'vox say: --rate must be a number from 80 to 500, got "fast". See "vox say --help".\n',
    ],
    [['stop', 'now'], 'vox stop: takes no arguments, got "now". See "vox stop --help".\n'],
    [
      ['say', '--priority', 'improtant', 'hi'],
      'vox say: --priority must be important, message, text, notification or progress, got "improtant"; did you mean "important"? See "vox say --help".\n',
    ],
    [
      ['say', '--timeout', '10s', 'hi'],
      'vox say: --timeout must be a number of seconds from 0.1 to 86400, got "10s". See "vox say --help".\n',
    ],
    [['logs', '-n', 'ten'], 'vox logs: -n must be a whole number of at least 0, got "ten". See "vox logs --help".\n'],
    [['listen', '--max', 'ten'], 'vox listen: --max must be a number, got "ten". See "vox listen --help".\n'],
    [
      ['daemon', 'status', '--timeout', 'soon'],
      'vox daemon: --timeout must be a positive number of seconds, got "soon". See "vox daemon --help".\n',
    ],
    [
      ['hooks', 'install', '--type', 'http'],
      'vox hooks: --type must be mcp_tool or command, got "http". See "vox hooks --help".\n',
    ],
  ];
  for (const [args, line] of cases) {
    const r = await vox(args, { env, cwd: home });
    assert.equal(r.stderr, line, args.join(' '));
    assert.equal(r.code, 2, args.join(' '));
  }
});

test('vox unmute --help is on stdout and shows --once (Biff probes it)', async () => {
  const r = await vox(['unmute', '--help'], { env, cwd: home });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /--once N/);
  assert.equal(r.stderr, '');
});

test('a broken .vox/config.md is one line: the code, the first problem at file:line, and "vox config check" for the rest', async () => {
  const project = join(home, 'broken');
  writeConfig(project, 'rate: 9999\nnotify: loud\nvoise: alba');
  const file = join(project, '.vox', 'config.md');
  const code = 'VOX_ERR_CLIENT_CONFIG_INVALID';
  assert.ok(Object.hasOwn(CLIENT_ERRORS, code));
  for (const name of ['say', 'unmute']) {
    const r = await vox([name, 'hello'], { env, cwd: project });
    assert.equal(r.code, 7, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `vox say: ${code}: ${file}:2: rate: 9999 is not allowed; use a number of words per minute from 80 to 500 (2 more: run "vox config check" for every problem)\n`,
    );
  }
  // The rest is where the line says: every problem, each with its line.
  const check = await vox(['config', 'check'], { env, cwd: project });
  assert.equal(check.code, 7);
  for (const line of [2, 3, 4]) assert.ok(check.stderr.includes(`${file}:${line}: `), check.stderr);
});
