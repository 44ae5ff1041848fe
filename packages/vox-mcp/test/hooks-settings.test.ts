import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VERSION } from '@vox/protocol';
import {
  HOOK_EVENTS,
  HOOK_TIMEOUT_SECONDS,
  SettingsError,
  hookCommand,
  hooksInstalled,
  inspectHooks,
  installHooks,
  isVoxHookCommand,
  settingsPath,
  uninstallHooks,
  voxHookEntries,
} from '../src/hooks-settings.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cliJs = join(repo, 'packages', 'vox-mcp', 'dist', 'vox.cjs');

const tmp = mkdtempSync(join(tmpdir(), 'vox-hooks-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function dir(): string {
  const d = join(tmp, String(n++));
  mkdirSync(d, { recursive: true });
  return d;
}

/** A settings file as a user might have it: other keys, other hooks, some on vox's events. */
const ORIGINAL = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard.sh' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    Notification: [{ matcher: '', hooks: [{ type: 'command', command: 'say "needs you"', timeout: 5 }] }],
  },
};
const ORIGINAL_TEXT = `${JSON.stringify(ORIGINAL, null, 2)}\n`;
const OPTS = { node: '/opt/node 20/bin/node', cli: '/home/u/vox/packages/vox-mcp/dist/cli.js' };

describe('hook commands', () => {
  test('absolute command runs node on the built cli, shell-quoted', () => {
    assert.equal(hookCommand('Stop', OPTS), `'/opt/node 20/bin/node' /home/u/vox/packages/vox-mcp/dist/cli.js hook Stop`);
    assert.equal(hookCommand('Stop', { portable: true }), 'vox hook Stop');
  });

  test('recognises vox entries of any install, and nothing else', () => {
    for (const e of HOOK_EVENTS) {
      assert.ok(isVoxHookCommand(hookCommand(e, OPTS)), e);
      assert.ok(isVoxHookCommand(hookCommand(e, { portable: true })), e);
    }
    assert.ok(isVoxHookCommand('/usr/bin/node /usr/lib/node_modules/vox-mcp/dist/cli.js hook Stop'));
    assert.ok(isVoxHookCommand('/usr/bin/node /usr/lib/node_modules/vox-mcp/dist/vox.cjs hook Stop'));
    assert.ok(isVoxHookCommand('/usr/local/bin/vox hook SessionStart'));
    for (const other of ['notify-send done', 'myvox hook Stop', 'vox hook Stop --quiet', 'vox say done', '/x/other/dist/cli.js hook Stop', 42]) {
      assert.equal(isVoxHookCommand(other), false, String(other));
    }
  });

  test('one group per event with an empty matcher and a timeout', () => {
    const entries = voxHookEntries(OPTS);
    assert.deepEqual(Object.keys(entries), [...HOOK_EVENTS]);
    for (const e of HOOK_EVENTS) {
      assert.deepEqual(entries[e], [{ matcher: '', hooks: [{ type: 'command', command: hookCommand(e, OPTS), timeout: HOOK_TIMEOUT_SECONDS }] }]);
    }
  });

  test('settings paths per scope', () => {
    assert.equal(settingsPath('user', { env: { HOME: '/h' }, cwd: '/p' }), '/h/.claude/settings.json');
    assert.equal(settingsPath('user', { env: { HOME: '/h', CLAUDE_CONFIG_DIR: '/c' }, cwd: '/p' }), '/c/settings.json');
    assert.equal(settingsPath('project', { env: {}, cwd: '/p' }), '/p/.claude/settings.json');
    assert.equal(settingsPath('local', { env: {}, cwd: '/p' }), '/p/.claude/settings.local.json');
  });
});

describe('settings.json round trip', () => {
  test('install adds vox entries and keeps the rest; again is identical; uninstall restores the original', () => {
    const path = join(dir(), 'settings.json');
    writeFileSync(path, ORIGINAL_TEXT);
    assert.equal(hooksInstalled(path), false);

    assert.equal(installHooks(path, OPTS).changed, true);
    const first = readFileSync(path, 'utf8');
    const s = JSON.parse(first);
    assert.equal(s.model, 'opus');
    assert.deepEqual(s.permissions, ORIGINAL.permissions);
    assert.deepEqual(s.hooks.PreToolUse, ORIGINAL.hooks.PreToolUse);
    // The user's own Stop and Notification hooks come first, untouched; vox's follow.
    assert.deepEqual(s.hooks.Stop[0], ORIGINAL.hooks.Stop[0]);
    assert.deepEqual(s.hooks.Notification[0], ORIGINAL.hooks.Notification[0]);
    for (const e of HOOK_EVENTS) {
      assert.deepEqual(s.hooks[e].at(-1), voxHookEntries(OPTS)[e][0], e);
    }
    assert.ok(first.startsWith('{\n  "model": "opus",'), 'two-space JSON, key order kept');
    assert.ok(first.endsWith('}\n'));
    assert.equal(hooksInstalled(path), true);
    assert.deepEqual(inspectHooks(path).missing, []);

    assert.equal(installHooks(path, OPTS).changed, false);
    assert.equal(readFileSync(path, 'utf8'), first, 'installing twice gives the same file');

    const res = uninstallHooks(path);
    assert.equal(res.removed, HOOK_EVENTS.length);
    assert.equal(readFileSync(path, 'utf8'), ORIGINAL_TEXT, 'uninstall leaves exactly the original');
    assert.equal(hooksInstalled(path), false);
    assert.equal(uninstallHooks(path).changed, false);
  });

  test('install into a missing file creates it; uninstall deletes it again (and the emptied directory only when asked)', () => {
    const base = dir();
    const path = join(base, '.claude', 'settings.json');
    installHooks(path, OPTS);
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(path, 'utf8')).hooks), [...HOOK_EVENTS]);
    assert.deepEqual(uninstallHooks(path), { path, changed: true, removed: HOOK_EVENTS.length, deleted: true });
    assert.equal(existsSync(path), false);
    assert.equal(existsSync(join(base, '.claude')), true, 'the directory stays unless removeEmptyDir');
    installHooks(path, OPTS);
    assert.equal(uninstallHooks(path, { removeEmptyDir: true }).deleted, true);
    assert.equal(existsSync(join(base, '.claude')), false);
  });

  test('a moved install is replaced, not duplicated', () => {
    const path = join(dir(), 'settings.json');
    writeFileSync(path, ORIGINAL_TEXT);
    installHooks(path, { node: '/old/node', cli: '/old/vox-mcp/dist/cli.js' });
    installHooks(path, OPTS);
    const s = JSON.parse(readFileSync(path, 'utf8'));
    for (const e of HOOK_EVENTS) {
      const commands = s.hooks[e].flatMap((g: { hooks: Array<{ command: string }> }) => g.hooks.map((h) => h.command));
      assert.deepEqual(commands.filter(isVoxHookCommand), [hookCommand(e, OPTS)], e);
    }
    uninstallHooks(path);
    assert.equal(readFileSync(path, 'utf8'), ORIGINAL_TEXT);
  });

  test('a vox hook sharing a group with a user hook: only vox goes', () => {
    const path = join(dir(), 'settings.json');
    const mixed = { hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'vox hook Stop' }, { type: 'command', command: 'echo bye' }] }] } };
    writeFileSync(path, JSON.stringify(mixed, null, 2));
    uninstallHooks(path);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'echo bye' }] }] } });
  });

  test('an empty array the user had is not vox\'s to remove', () => {
    const path = join(dir(), 'settings.json');
    writeFileSync(path, `${JSON.stringify({ hooks: { PostToolUse: [] } }, null, 2)}\n`);
    installHooks(path, OPTS);
    uninstallHooks(path);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { hooks: { PostToolUse: [] } });
  });

  test('malformed settings are a clear error and are not overwritten', () => {
    const d = dir();
    for (const [name, text, pattern] of [
      ['broken.json', '{"hooks": {', /not valid JSON/],
      ['array.json', '[]', /does not hold a JSON object/],
      ['hooks.json', '{"hooks": []}', /"hooks" in .* is not an object/],
      ['event.json', '{"hooks": {"Stop": {}}}', /"hooks.Stop" in .* is not an array/],
    ] as const) {
      const path = join(d, name);
      writeFileSync(path, text);
      assert.throws(() => installHooks(path, OPTS), (err: unknown) => err instanceof SettingsError && pattern.test(err.message) && err.message.includes(path));
      assert.throws(() => uninstallHooks(path), SettingsError);
      assert.equal(readFileSync(path, 'utf8'), text, name);
      assert.equal(hooksInstalled(path), false);
      assert.ok(inspectHooks(path).error);
    }
    assert.deepEqual(
      readdirSync(d).sort(),
      ['array.json', 'broken.json', 'event.json', 'hooks.json'],
      'no temp files left behind',
    );
  });

  test('writes through a symlinked settings.json to its target', () => {
    const d = dir();
    const target = join(d, 'dotfiles-settings.json');
    const link = join(d, 'settings.json');
    writeFileSync(target, ORIGINAL_TEXT);
    symlinkSync(target, link);
    installHooks(link, OPTS);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link stays a link');
    assert.equal(hooksInstalled(target), true);
  });

  test('keeps a four-space indent', () => {
    const path = join(dir(), 'settings.json');
    writeFileSync(path, `${JSON.stringify(ORIGINAL, null, 4)}\n`);
    installHooks(path, OPTS);
    uninstallHooks(path);
    assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify(ORIGINAL, null, 4)}\n`);
  });
});

describe('plugin', () => {
  const plugin = join(repo, 'plugin');

  test('manifest names vox at the client version', () => {
    const manifest = JSON.parse(readFileSync(join(plugin, '.claude-plugin', 'plugin.json'), 'utf8'));
    assert.equal(manifest.name, 'vox');
    assert.equal(manifest.version, VERSION);
    assert.equal(manifest.license, 'GPL-3.0-or-later');
    assert.equal(typeof manifest.description, 'string');
    assert.equal(typeof manifest.author?.name, 'string');
  });

  test('hooks.json holds the same entries as "vox hooks install --portable"', () => {
    const hooks = JSON.parse(readFileSync(join(plugin, 'hooks', 'hooks.json'), 'utf8'));
    assert.deepEqual(hooks.hooks, voxHookEntries({ portable: true }));
  });

  test('.mcp.json starts "vox mcp"', () => {
    const mcp = JSON.parse(readFileSync(join(plugin, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp, { mcpServers: { vox: { command: 'vox', args: ['mcp'] } } });
  });
});

describe('vox hooks (built binary)', { skip: existsSync(cliJs) ? false : `${cliJs} is not built; run "npm run build"` }, () => {
  function vox(args: string[], cwd: string, home: string) {
    const env = { ...process.env, HOME: home };
    delete env.CLAUDE_CONFIG_DIR;
    return spawnSync(process.execPath, [cliJs, ...args], { cwd, env, encoding: 'utf8', timeout: 20_000 });
  }

  test('install --project writes .claude/settings.json in the cwd; uninstall removes it again', () => {
    const cwd = dir();
    const home = dir();
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(join(cwd, '.claude', 'settings.json'), ORIGINAL_TEXT);

    const r = vox(['hooks', 'install', '--project'], cwd, home);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Installed vox hooks/);
    const path = join(cwd, '.claude', 'settings.json');
    const s = JSON.parse(readFileSync(path, 'utf8'));
    assert.deepEqual(s.hooks.Stop.at(-1).hooks[0].command, `${process.execPath} ${cliJs} hook Stop`);
    assert.equal(existsSync(join(home, '.claude')), false, '--project leaves user settings alone');

    const again = vox(['hooks', 'install', '--project', '--json'], cwd, home);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).changed, false);

    const status = vox(['hooks', 'status', '--project'], cwd, home);
    assert.match(status.stdout, /project: installed/);

    const un = vox(['hooks', 'uninstall', '--project'], cwd, home);
    assert.equal(un.status, 0, un.stderr);
    assert.equal(readFileSync(path, 'utf8'), ORIGINAL_TEXT);
  });

  test('default scope is the user settings; a malformed file exits non-zero and stays', () => {
    const cwd = dir();
    const home = dir();
    const r = vox(['hooks', 'install'], cwd, home);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(hooksInstalled(join(home, '.claude', 'settings.json')), true);

    writeFileSync(join(home, '.claude', 'settings.json'), '{ nope');
    const bad = vox(['hooks', 'install'], cwd, home);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /not valid JSON/);
    assert.equal(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'), '{ nope');
  });

  test('install --project from a subdirectory writes at the project root: the directory with .vox/config.md, else .git', () => {
    const repoDir = dir();
    const home = dir();
    mkdirSync(join(repoDir, '.git'));
    const deep = join(repoDir, 'src', 'routes');
    mkdirSync(deep, { recursive: true });
    const r = vox(['hooks', 'install', '--project', '--portable'], deep, home);
    assert.equal(r.status, 0, r.stderr);
    const atRoot = join(repoDir, '.claude', 'settings.json');
    assert.equal(hooksInstalled(atRoot), true, 'written at the repository root');
    assert.equal(existsSync(join(deep, '.claude')), false, 'nothing in the subdirectory');
    assert.ok(r.stdout.includes(atRoot), r.stdout);
    assert.match(vox(['hooks', 'status', '--project'], join(repoDir, 'src'), home).stdout, /project: installed/);

    // A project with its own .vox/config.md inside the repository is its own root, as for the config.
    const pkg = join(repoDir, 'packages', 'web');
    mkdirSync(join(pkg, '.vox'), { recursive: true });
    writeFileSync(join(pkg, '.vox', 'config.md'), '---\nvoice: alba\n---\n');
    mkdirSync(join(pkg, 'lib'));
    const local = vox(['hooks', 'install', '--local', '--portable'], join(pkg, 'lib'), home);
    assert.equal(local.status, 0, local.stderr);
    assert.equal(hooksInstalled(join(pkg, '.claude', 'settings.local.json')), true);
    assert.equal(existsSync(join(repoDir, '.claude', 'settings.local.json')), false);
  });

  test('uninstall deletes a settings file that it created and left {} (and the empty .claude/), never one with anything else', () => {
    const project = dir();
    const home = dir();
    assert.equal(vox(['hooks', 'install', '--project'], project, home).status, 0);
    const path = join(project, '.claude', 'settings.json');
    assert.ok(existsSync(path));
    const un = vox(['hooks', 'uninstall', '--project', '--json'], project, home);
    assert.equal(un.status, 0, un.stderr);
    assert.equal(JSON.parse(un.stdout).deleted, true);
    assert.equal(existsSync(path), false, 'the file vox created is gone');
    assert.equal(existsSync(join(project, '.claude')), false, 'and so is the .claude/ it created');

    // User scope: the file goes, ~/.claude (Claude Code's own directory) stays.
    assert.equal(vox(['hooks', 'install'], project, home).status, 0);
    const user = vox(['hooks', 'uninstall'], project, home);
    assert.match(user.stdout, /it held nothing else, so the file is deleted/);
    assert.equal(existsSync(join(home, '.claude', 'settings.json')), false);
    assert.equal(existsSync(join(home, '.claude')), true);

    // A key added after install keeps the file; so does a sibling file in .claude/.
    assert.equal(vox(['hooks', 'install', '--project'], project, home).status, 0);
    const withModel = { model: 'opus', ...JSON.parse(readFileSync(path, 'utf8')) };
    writeFileSync(path, JSON.stringify(withModel, null, 2));
    writeFileSync(join(project, '.claude', 'settings.local.json'), '{}\n');
    const kept = vox(['hooks', 'uninstall', '--project', '--json'], project, home);
    assert.equal(JSON.parse(kept.stdout).deleted, false);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { model: 'opus' });

    // A symlinked settings file (a dotfile manager's) is rewritten, not deleted.
    const target = join(dir(), 'settings.json');
    writeFileSync(target, '{}\n');
    rmSync(path);
    symlinkSync(target, path);
    assert.equal(vox(['hooks', 'install', '--project'], project, home).status, 0);
    assert.equal(vox(['hooks', 'uninstall', '--project'], project, home).status, 0);
    assert.equal(lstatSync(path).isSymbolicLink(), true);
    assert.deepEqual(JSON.parse(readFileSync(target, 'utf8')), {});
  });

  test('bad usage exits 2', () => {
    const cwd = dir();
    assert.equal(vox(['hooks', 'frobnicate'], cwd, dir()).status, 2);
    assert.equal(vox(['hooks', 'install', '--user', '--project'], cwd, dir()).status, 2);
    assert.equal(vox(['hooks', 'install', '--bogus'], cwd, dir()).status, 2);
  });
});
