import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addQwen, qwenSettingsPath, removeQwen } from '../../src/agents/qwen-settings.js';
import { qwen } from '../../src/agents/qwen.js';
import { gatedCommand } from '../../src/hooks/shell-gate.js';
import { QWEN_EVENTS } from '../../src/agents/qwen-settings.js';

const opts = { node: '/usr/bin/node', cli: '/opt/vox/bin/vox.cjs' };
type Groups = Record<string, Array<{ matcher?: string; hooks: Array<Record<string, unknown>> }>>;

describe('qwen settings', () => {
  test('one command hook per event, timeout in seconds; the user hook in the same event, $version and other keys stay', () => {
    const mine = {
      $version: 4,
      general: { enableAutoUpdate: false },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] },
    };
    const { settings, changed } = addQwen(mine, opts);
    assert.equal(changed, true);
    const hooks = settings.hooks as Groups;
    assert.deepEqual(Object.keys(hooks).sort(), [...QWEN_EVENTS].sort());
    assert.deepEqual(hooks.Stop!.at(-1), {
      matcher: '*',
      hooks: [
        {
          name: 'vox',
          type: 'command',
          command: gatedCommand('Stop', '/usr/bin/node /opt/vox/bin/vox.cjs hook --agent qwen Stop'),
          timeout: 10,
        },
      ],
    });
    assert.deepEqual(hooks.Stop![0], mine.hooks.Stop[0]);
    assert.deepEqual(settings.mcpServers, { vox: { command: '/usr/bin/node', args: ['/opt/vox/bin/vox.cjs', 'mcp'] } });
    assert.equal(settings.$version, 4);
    assert.equal(addQwen(settings, opts).changed, false, 'install twice is install once');
    assert.deepEqual(removeQwen(settings), { settings: mine, changed: true });
  });

  test('a stale vox hook (another path, or portable) is replaced, not doubled', () => {
    const stale = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'vox hook --agent qwen Stop' }] }] } };
    const hooks = addQwen(stale, opts).settings.hooks as Groups;
    assert.deepEqual(
      hooks.Stop!.map((g) => g.hooks.map((h) => h.command)),
      [[gatedCommand('Stop', '/usr/bin/node /opt/vox/bin/vox.cjs hook --agent qwen Stop')]],
    );
  });

  test('what is not vox stays: a hooks event that is not an array is an error; a user server named vox is kept', () => {
    assert.throws(() => addQwen({ hooks: { Stop: 'x' } }, opts), /hooks\.Stop.*not an array/);
    assert.throws(() => addQwen({ mcpServers: [] }, opts), /mcpServers.*not an object/);
    const theirs = { mcpServers: { vox: { command: 'python', args: ['my_vox.py'] } } };
    assert.deepEqual(removeQwen(theirs), { settings: theirs, changed: false });
    // Another agent's vox hook is not qwen's.
    const gemini = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'vox hook --agent gemini Stop' }] }] } };
    assert.deepEqual(removeQwen(gemini), { settings: gemini, changed: false });
  });

  test('the file: $QWEN_HOME/settings.json as Qwen reads the variable, else ~/.qwen/settings.json', () => {
    assert.equal(qwenSettingsPath({ HOME: '/h' }), '/h/.qwen/settings.json');
    assert.equal(qwenSettingsPath({ HOME: '/h', QWEN_HOME: '/q' }), '/q/settings.json');
    assert.equal(qwenSettingsPath({ HOME: '/h', QWEN_HOME: '~/cfg/qwen' }), '/h/cfg/qwen/settings.json');
    assert.equal(qwenSettingsPath({ HOME: '/h', QWEN_HOME: '~' }), '/h/settings.json');
    assert.equal(qwenSettingsPath({ HOME: '/h', QWEN_HOME: 'rel' }, '/w'), '/w/rel/settings.json');
  });
});

describe("the qwen adapter: its payloads as vox's events", () => {
  test("Claude Code's events pass through; a PermissionRequest names a built-in tool as Qwen's dialog does", () => {
    const stop = { hook_event_name: 'Stop', last_assistant_message: 'Done.' };
    assert.deepEqual(qwen.toEvent('Stop', stop), { event: 'Stop', payload: stop });
    assert.equal(qwen.toEvent('PermissionRequest', { tool_name: 'run_shell_command' }).payload.tool_name, 'Shell');
    assert.equal(qwen.toEvent('PermissionRequest', { tool_name: 'write_file' }).payload.tool_name, 'WriteFile');
    assert.equal(
      qwen.toEvent('PermissionRequest', { tool_name: 'mcp__github__create_issue' }).payload.tool_name,
      'mcp__github__create_issue',
    );
    assert.equal(qwen.toEvent('PermissionRequest', { tool_name: 'constructor' }).payload.tool_name, 'constructor');
  });
});
