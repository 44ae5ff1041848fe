import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VERSION } from '@vox/protocol';
import {
  HOOK_EVENTS,
  MCP_TOOL_EVENTS,
  NARRATION_EVENTS,
  PLUGIN_SERVER,
  isVoxMcpToolHook,
  mcpToolHook,
  hookCommand,
  QUIET_GATE,
  isVoxHookCommand,
  voxHookEntries,
  type HookEvent,
} from '../../src/claude/hook-entries.js';
import { SettingsError } from '../../src/hooks/settings-file.js';
import { HOOK_TIMEOUT_SECONDS, VOICE_HOOK_TIMEOUT_SECONDS } from '../../src/hooks/timeouts.js';
import {
  hooksInstalled,
  inspectHooks,
  installHooks,
  settingsPath,
  uninstallHooks,
} from '../../src/claude/hooks-settings.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
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
const OPTS = {
  node: '/opt/node 20/bin/node',
  cli: '/home/u/vox/packages/vox-mcp/dist/cli.js',
  type: 'command',
} as const;

describe('hook commands', () => {
  test('absolute command runs node on the built cli, shell-quoted', () => {
    assert.equal(
      hookCommand('Stop', OPTS),
      `'/opt/node 20/bin/node' /home/u/vox/packages/vox-mcp/dist/cli.js hook Stop`,
    );
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
    for (const other of [
      'notify-send done',
      'myvox hook Stop',
      'vox hook Stop --quiet',
      'vox say done',
      '/x/other/dist/cli.js hook Stop',
      42,
    ]) {
      assert.equal(isVoxHookCommand(other), false, String(other));
    }
  });

  // PermissionRequest and Elicitation have room for a voice answer (approveByVoice); every other hook the short timeout.
  const timeoutOf = (e: HookEvent) =>
    e === 'PermissionRequest' || e === 'Elicitation' ? VOICE_HOOK_TIMEOUT_SECONDS : HOOK_TIMEOUT_SECONDS;

  test('one group per event with an empty matcher and a timeout', () => {
    const entries = voxHookEntries(OPTS);
    assert.deepEqual(Object.keys(entries), [...HOOK_EVENTS]);
    assert.equal(VOICE_HOOK_TIMEOUT_SECONDS, 30);
    for (const e of HOOK_EVENTS) {
      assert.deepEqual(entries[e], [
        { matcher: '', hooks: [{ type: 'command', command: hookCommand(e, OPTS), timeout: timeoutOf(e) }] },
      ]);
    }
  });

  test('mcp_tool entries call the hook tool of the named server where Claude Code allows it; SessionStart and SessionEnd stay commands', () => {
    const entries = voxHookEntries({ node: OPTS.node, cli: OPTS.cli, server: 'speech' });
    // After /clear the server is connected: SessionStart's second group tells the hook tool the new session id.
    assert.deepEqual(entries.SessionStart[1], { matcher: 'clear', hooks: [mcpToolHook('SessionStart', 'speech')] });
    assert.equal(entries.SessionStart.length, 2);
    assert.equal(voxHookEntries(OPTS).SessionStart.length, 1, 'command hooks only: no mcp_tool group');
    assert.deepEqual(MCP_TOOL_EVENTS, [
      'PermissionRequest',
      'Notification',
      'Stop',
      'StopFailure',
      'SubagentStop',
      'PreCompact',
      'Elicitation',
    ]);
    // An elicitation's one choice, answered by voice: who asks, what, the form, and its id.
    assert.deepEqual(mcpToolHook('Elicitation', 'vox').input, {
      event: 'Elicitation',
      session_id: '${session_id}',
      cwd: '${cwd}',
      mcp_server_name: '${mcp_server_name}',
      message: '${message}',
      requested_schema: '${requested_schema}',
      mode: '${mode}',
      elicitation_id: '${elicitation_id}',
    });
    assert.equal(mcpToolHook('Elicitation', 'vox').timeout, VOICE_HOOK_TIMEOUT_SECONDS);
    for (const e of HOOK_EVENTS) {
      const [hook] = entries[e][0]!.hooks;
      if (MCP_TOOL_EVENTS.includes(e)) assert.deepEqual(hook, mcpToolHook(e, 'speech'), e);
      else assert.deepEqual(hook, { type: 'command', command: hookCommand(e, OPTS), timeout: timeoutOf(e) }, e);
    }
    // Narration: mcp_tool only, with its short timeout; left out for command hooks and older Claude Code.
    for (const e of NARRATION_EVENTS)
      assert.deepEqual(entries[e], [{ matcher: '', hooks: [mcpToolHook(e, 'speech')] }], e);
    assert.equal(mcpToolHook('MessageDisplay', 'speech').timeout, 5);
    assert.deepEqual(mcpToolHook('MessageDisplay', 'speech').input, {
      event: 'MessageDisplay',
      session_id: '${session_id}',
      cwd: '${cwd}',
      message_id: '${message_id}',
      index: '${index}',
      final: '${final}',
      delta: '${delta}',
      transcript_path: '${transcript_path}',
    });
    // PostToolUse reads the transcript's new tail: its path alone, never the tool's input or output.
    assert.deepEqual(mcpToolHook('PostToolUse', 'speech').input, {
      event: 'PostToolUse',
      session_id: '${session_id}',
      cwd: '${cwd}',
      transcript_path: '${transcript_path}',
    });
    assert.equal(voxHookEntries(OPTS).PostToolUse, undefined, 'no PostToolUse command hook');
    assert.equal(
      voxHookEntries({ ...OPTS, server: 'speech', type: 'mcp_tool', narration: false }).MessageDisplay,
      undefined,
    );
    assert.equal(voxHookEntries(OPTS).MessageDisplay, undefined);
    assert.deepEqual(mcpToolHook('Stop', 'vox'), {
      type: 'mcp_tool',
      server: 'vox',
      tool: 'hook',
      input: {
        event: 'Stop',
        session_id: '${session_id}',
        cwd: '${cwd}',
        stop_hook_active: '${stop_hook_active}',
        last_assistant_message: '${last_assistant_message}',
        transcript_path: '${transcript_path}',
      },
      timeout: HOOK_TIMEOUT_SECONDS,
    });
    // What a voice answer needs too: the command to name, the "always" on offer, the request to answer.
    assert.deepEqual(mcpToolHook('PermissionRequest', 'vox'), {
      type: 'mcp_tool',
      server: 'vox',
      tool: 'hook',
      input: {
        event: 'PermissionRequest',
        session_id: '${session_id}',
        cwd: '${cwd}',
        tool_name: '${tool_name}',
        tool_input: '${tool_input}',
        permission_suggestions: '${permission_suggestions}',
        tool_use_id: '${tool_use_id}',
      },
      timeout: VOICE_HOOK_TIMEOUT_SECONDS,
    });
  });

  test('recognises vox mcp_tool entries, and nothing else', () => {
    for (const e of MCP_TOOL_EVENTS) assert.ok(isVoxMcpToolHook(mcpToolHook(e, PLUGIN_SERVER)), e);
    for (const other of [
      { type: 'mcp_tool', server: 'semgrep', tool: 'scan_file', input: { path: '${tool_input.file_path}' } },
      { type: 'mcp_tool', server: 'vox', tool: 'hook', input: { event: 'Stop' } },
      { type: 'mcp_tool', server: 'vox', tool: 'speak', input: { event: 'Stop', session_id: '${session_id}' } },
      { type: 'command', command: 'echo hook' },
    ]) {
      assert.equal(isVoxMcpToolHook(other), false, JSON.stringify(other));
    }
  });

  test("the plugin's commands start its launcher from ${CLAUDE_PLUGIN_ROOT}, and are recognised", () => {
    assert.equal(
      hookCommand('SessionStart', { plugin: true }),
      `${QUIET_GATE}node "\${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs" hook SessionStart`,
    );
    assert.ok(isVoxHookCommand(hookCommand('SessionEnd', { plugin: true })));
  });

  test('SessionStart and SessionEnd commands start nothing unless the nearest .vox/config.md mentions continuous; other events are not gated', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'vox-gate-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const write = (rel: string, text: string) => {
      mkdirSync(join(dir, rel, '.vox'), { recursive: true });
      writeFileSync(join(dir, rel, '.vox', 'config.md'), text);
    };
    write('loud', '---\nnotify: continuous\n---\n');
    write('quiet', '---\nnotify: normal\n---\n');
    // The nearest file wins: a quiet project inside a loud one is quiet.
    write('loud/inner', '---\nrate: 200\n---\n');
    mkdirSync(join(dir, 'loud', 'src', 'deep'), { recursive: true });
    mkdirSync(join(dir, 'none'));
    // "node" here is echo: what reaches it is what would have started node.
    const cmd = (event: HookEvent) => hookCommand(event, { node: '/bin/echo', cli: 'NODE' });
    const run = (event: HookEvent, cwd: string) =>
      spawnSync('/bin/sh', ['-c', cmd(event)], { cwd: join(dir, cwd), encoding: 'utf8', timeout: 10_000 });
    for (const [cwd, ran] of [
      ['loud', true],
      ['loud/src/deep', true],
      ['loud/inner', false],
      ['quiet', false],
      ['none', false],
    ] as const) {
      for (const event of ['SessionStart', 'SessionEnd'] as const) {
        const r = run(event, cwd);
        assert.equal(r.status, 0, `${event} in ${cwd}: ${r.stderr}`);
        assert.equal(r.stdout, ran ? `NODE hook ${event}\n` : '', `${event} in ${cwd}`);
        assert.equal(r.stderr, '', `${event} in ${cwd}`);
      }
    }
    assert.equal(run('Stop', 'none').stdout, 'NODE hook Stop\n');
    assert.ok(cmd('SessionStart').startsWith(QUIET_GATE) && !cmd('Stop').includes(QUIET_GATE));
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

  test("switching between command and mcp_tool hooks replaces vox's entries of the other kind", () => {
    const path = join(dir(), 'settings.json');
    writeFileSync(path, ORIGINAL_TEXT);
    installHooks(path, OPTS);
    assert.equal(installHooks(path, { ...OPTS, type: 'mcp_tool' }).changed, true);
    const s = JSON.parse(readFileSync(path, 'utf8'));
    for (const e of HOOK_EVENTS) {
      const hooks = s.hooks[e].flatMap((g: { hooks: unknown[] }) => g.hooks);
      const vox = hooks.filter((h: { command?: string }) => isVoxHookCommand(h.command) || isVoxMcpToolHook(h));
      // SessionStart: the command, and the mcp_tool call for /clear.
      assert.deepEqual(
        vox.map((h: { type: string }) => h.type),
        e === 'SessionStart' ? ['command', 'mcp_tool'] : [MCP_TOOL_EVENTS.includes(e) ? 'mcp_tool' : 'command'],
        e,
      );
    }
    assert.deepEqual(inspectHooks(path).missing, []);
    assert.equal(installHooks(path, { ...OPTS, type: 'mcp_tool' }).changed, false, 'installing again changes nothing');
    // mcp_tool hooks add the two narration events; switching back to commands takes them out again.
    for (const e of NARRATION_EVENTS) assert.equal(s.hooks[e].length, 1, e);
    installHooks(path, OPTS);
    const back = JSON.parse(readFileSync(path, 'utf8'));
    for (const e of NARRATION_EVENTS) assert.equal(back.hooks[e], undefined, e);
    installHooks(path, { ...OPTS, type: 'mcp_tool' });
    assert.equal(uninstallHooks(path).removed, HOOK_EVENTS.length + 1 + NARRATION_EVENTS.length);
    assert.equal(readFileSync(path, 'utf8'), ORIGINAL_TEXT);
  });

  test('a vox hook sharing a group with a user hook: only vox goes', () => {
    const path = join(dir(), 'settings.json');
    const mixed = {
      hooks: {
        Stop: [
          {
            matcher: '',
            hooks: [
              { type: 'command', command: 'vox hook Stop' },
              { type: 'command', command: 'echo bye' },
            ],
          },
        ],
      },
    };
    writeFileSync(path, JSON.stringify(mixed, null, 2));
    uninstallHooks(path);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), {
      hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'echo bye' }] }] },
    });
  });

  test("an empty array the user had is not vox's to remove", () => {
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
      assert.throws(
        () => installHooks(path, OPTS),
        (err: unknown) => err instanceof SettingsError && pattern.test(err.message) && err.message.includes(path),
      );
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

  test("hooks.json holds the entries of voxHookEntries({ plugin: true }): mcp_tool hooks on the plugin's own server", () => {
    const hooks = JSON.parse(readFileSync(join(plugin, 'hooks', 'hooks.json'), 'utf8'));
    assert.deepEqual(hooks.hooks, voxHookEntries({ plugin: true }));
    assert.equal(hooks.hooks.Stop[0].hooks[0].server, 'plugin:vox:vox');
  });

  test('.mcp.json starts vox mcp through the launcher in ${CLAUDE_PLUGIN_ROOT}, never from PATH', () => {
    const mcp = JSON.parse(readFileSync(join(plugin, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp, {
      mcpServers: {
        vox: {
          command: 'node',
          args: ['${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs', 'mcp'],
          // One malloc arena for the server alone (docs/mcp.md): named so that a voxd it starts does not inherit it.
          env: { MALLOC_ARENA_MAX: '1', VOX_MCP_ENV: 'MALLOC_ARENA_MAX' },
        },
      },
    });
  });

  test('the marketplace at the repository root lists the plugin at its version', () => {
    const market = JSON.parse(readFileSync(join(repo, '.claude-plugin', 'marketplace.json'), 'utf8'));
    assert.equal(market.name, 'vox');
    assert.equal(typeof market.owner?.name, 'string');
    assert.deepEqual(
      market.plugins.map((p: { name: string; source: string; version: string }) => [p.name, p.source, p.version]),
      [['vox', './plugin', VERSION]],
    );
  });

  describe('the launcher', { skip: existsSync(cliJs) ? false : `${cliJs} is not built; run "npm run build"` }, () => {
    const launch = (root: string, args: string[]) =>
      spawnSync(process.execPath, [join(root, 'bin', 'vox.cjs'), ...args], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, PATH: '/nonexistent' },
      });

    test('in the checkout: runs the built vox', () => {
      const r = launch(plugin, ['--version']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(VERSION.replace(/\./g, '\\.')));
    });

    test('copied away (as Claude Code installs it): finds vox through vox-install.json', () => {
      const copy = join(dir(), 'cache', 'vox', '0.1.0');
      cpSync(plugin, copy, { recursive: true });
      const r = launch(copy, ['--version']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(VERSION.replace(/\./g, '\\.')));
    });

    test('copied without the record: says how to fix it; a hook still exits 0', () => {
      const copy = join(dir(), 'bare');
      cpSync(plugin, copy, { recursive: true });
      rmSync(join(copy, 'vox-install.json'), { force: true });
      const mcp = launch(copy, ['mcp']);
      assert.equal(mcp.status, 1);
      assert.match(mcp.stderr, /cannot find the built vox\. Run "npm run build"/);
      assert.equal(launch(copy, ['hook', 'Stop']).status, 0);
    });
  });
});

describe(
  'vox hooks (built binary)',
  { skip: existsSync(cliJs) ? false : `${cliJs} is not built; run "npm run build"` },
  () => {
    /** A `claude` on PATH that prints `version` for --version (or none at all, with null). */
    function claudeOnPath(version: string | null): string {
      const bin = dir();
      if (version !== null) {
        writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho "${version}"\n`, { mode: 0o755 });
      }
      return bin;
    }

    function vox(args: string[], cwd: string, home: string, claudeVersion: string | null = '2.1.332 (Claude Code)') {
      // The real PATH's sh (the fake claude is a script), and no real claude.
      const env = { ...process.env, HOME: home, PATH: `${claudeOnPath(claudeVersion)}:/usr/bin:/bin` };
      delete env.CLAUDE_CONFIG_DIR;
      delete env.VOX_CLAUDE_CODE; // it names a real Claude Code, which vox finds before PATH
      return spawnSync(process.execPath, [cliJs, ...args], { cwd, env, encoding: 'utf8', timeout: 20_000 });
    }

    test('install --project writes .claude/settings.json in the cwd; uninstall removes it again', () => {
      const cwd = dir();
      const home = dir();
      mkdirSync(join(cwd, '.claude'));
      writeFileSync(join(cwd, '.claude', 'settings.json'), ORIGINAL_TEXT);

      const r = vox(['hooks', 'install', '--project', '--type', 'command'], cwd, home);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /Installed vox hooks/);
      assert.match(r.stdout, /Wrote command hooks: --type command/);
      const path = join(cwd, '.claude', 'settings.json');
      const s = JSON.parse(readFileSync(path, 'utf8'));
      // bin/vox.cjs, not dist/vox.cjs: it loads the hook's bundle itself, one file fewer per hook.
      assert.deepEqual(
        s.hooks.Stop.at(-1).hooks[0].command,
        `${process.execPath} ${join(repo, 'packages', 'vox-mcp', 'bin', 'vox.cjs')} hook Stop`,
      );
      assert.equal(existsSync(join(home, '.claude')), false, '--project leaves user settings alone');

      const again = vox(['hooks', 'install', '--project', '--json', '--type', 'command'], cwd, home);
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

    test('install asks claude --version: 2.1.118 and later get mcp_tool hooks, older ones, or none found, commands; it says which', () => {
      const cwd = dir();
      const cases: Array<[string | null, string, RegExp]> = [
        ['2.1.332 (Claude Code)', 'mcp_tool', /Wrote mcp_tool hooks: Claude Code 2\.1\.332 runs mcp_tool hooks/],
        ['2.1.118 (Claude Code)', 'mcp_tool', /Wrote mcp_tool hooks/],
        ['2.1.117 (Claude Code)', 'command', /Wrote command hooks: Claude Code 2\.1\.117 is older than 2\.1\.118/],
        [null, 'command', /Wrote command hooks: claude is not on PATH/],
      ];
      for (const [version, type, said] of cases) {
        const home = dir();
        const r = vox(['hooks', 'install'], cwd, home, version);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, said, String(version));
        const s = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
        assert.equal(s.hooks.Stop[0].hooks[0].type, type, String(version));
        assert.equal(s.hooks.SessionStart[0].hooks[0].type, 'command', 'SessionStart is always a command');
        // The gated commands are named as gated: the example line alone shows a node that need not start.
        assert.match(
          r.stdout,
          /^SessionStart and SessionEnd first look for the nearest \.vox\/config\.md in the shell, and start node only where it says notify: chatty/m,
          String(version),
        );
        if (type === 'mcp_tool') {
          assert.equal(s.hooks.Stop[0].hooks[0].server, 'vox');
          // The server as the command hooks run vox: node and vox.cjs by absolute path, PATH or not.
          assert.ok(
            r.stdout.includes(
              `claude mcp add --scope user vox -- ${process.execPath} ${fileURLToPath(new URL('../../bin/vox.cjs', import.meta.url))} mcp`,
            ),
            r.stdout,
          );
        }
        const json = JSON.parse(vox(['hooks', 'install', '--json'], cwd, home, version).stdout);
        assert.equal(json.type, type);
        assert.equal(json.changed, false);
      }
    });

    test('--type and --server choose without asking; --type takes mcp_tool or command only', () => {
      const cwd = dir();
      const home = dir();
      const r = vox(['hooks', 'install', '--type', 'mcp_tool', '--server', 'speech'], cwd, home, null);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /Wrote mcp_tool hooks: --type mcp_tool/);
      const s = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
      assert.equal(s.hooks.PermissionRequest[0].hooks[0].server, 'speech');
      const bad = vox(['hooks', 'install', '--type', 'http'], cwd, dir());
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /--type must be mcp_tool or command/);
      assert.equal(vox(['hooks', 'install', '--server', 'a b'], cwd, dir()).status, 2);
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
  },
);
