import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addGemini, removeGemini } from '../../src/agents/gemini-settings.js';
import { agentNamed } from '../../src/cli/agent-table.js';
import { gatedCommand } from '../../src/hooks/shell-gate.js';

const opts = { node: '/usr/bin/node', cli: '/opt/vox/bin/vox.cjs' };

describe('gemini settings', () => {
  test('a stale vox hook is replaced, not doubled; the user hook in the same group stays', () => {
    const settings = {
      hooks: {
        AfterAgent: [
          {
            matcher: '*',
            hooks: [
              { type: 'command', command: 'mine' },
              { type: 'command', command: 'vox hook --agent gemini AfterAgent' },
            ],
          },
        ],
      },
    };
    const { settings: next } = addGemini(settings, opts);
    const groups = (next.hooks as Record<string, Array<{ hooks: Array<{ command: string }> }>>).AfterAgent!;
    assert.deepEqual(
      groups.map((g) => g.hooks.map((h) => h.command)),
      // AfterAgent is Stop: behind the gate that starts nothing where notify is off.
      [['mine'], [gatedCommand('Stop', '/usr/bin/node /opt/vox/bin/vox.cjs hook --agent gemini AfterAgent')]],
    );
    assert.equal(addGemini(next, opts).changed, false);
  });

  test('a hooks event that is not an array is an error, never overwritten', () => {
    assert.throws(() => addGemini({ hooks: { AfterAgent: 'x' } }, opts), /hooks\.AfterAgent.*not an array/);
    assert.throws(() => addGemini({ mcpServers: [] }, opts), /mcpServers.*not an object/);
  });

  test('uninstall keeps a user server named vox that is not vox mcp', () => {
    const mine = { mcpServers: { vox: { command: 'python', args: ['my_vox.py'] } } };
    assert.deepEqual(removeGemini(mine), { settings: mine, changed: false });
  });
});

describe("an agent's adapter (the agent table)", () => {
  test('gemini AfterAgent is Stop with prompt_response as the message; other notifications stay', () => {
    assert.deepEqual(agentNamed('gemini').toEvent('AfterAgent', { prompt_response: 'Hi.' }), {
      event: 'Stop',
      payload: { prompt_response: 'Hi.', last_assistant_message: 'Hi.' },
    });
    assert.equal(agentNamed('gemini').toEvent('Notification', { notification_type: 'Other' }).event, 'Notification');
    assert.equal(agentNamed('codex').toEvent('Stop', {}).event, 'Stop');
  });
});
