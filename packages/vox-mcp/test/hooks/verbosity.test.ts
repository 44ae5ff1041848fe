import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HookPayload } from '../../src/hooks/event.js';
import { decideHook } from '../../src/hooks/policy.js';
import type { NotifyMode } from '../../src/project/config-schema.js';
import { checkValue } from '../../src/project/config-validation.js';

const decide = (event: string, notify: NotifyMode, payload: HookPayload = {}) =>
  decideHook(event, payload, { notify, projectName: 'api' });
const STOP: HookPayload = { last_assistant_message: 'I fixed the rounding bug. All tests pass.' };

test('quiet: a permission request is spoken, the end of a turn is the done chime, a failure is spoken', () => {
  assert.equal(decide('PermissionRequest', 'quiet', { tool_name: 'Bash' }).kind, 'speak');
  assert.deepEqual(decide('Stop', 'quiet', STOP), { kind: 'chime', signal: 'done', priority: 'message' });
  assert.equal(decide('StopFailure', 'quiet', { error: 'rate_limit' }).kind, 'speak');
  assert.equal(decide('SessionStart', 'quiet', { source: 'startup' }).kind, 'none');
});

test('normal speaks the end of a turn; chatty is continuous: the session and subagent events too', () => {
  assert.equal(decide('Stop', 'normal', STOP).kind, 'speak');
  assert.equal(decide('SessionStart', 'normal', { source: 'startup' }).kind, 'none');
  for (const mode of ['chatty', 'continuous'] as const) {
    assert.equal(decide('Stop', mode, STOP).kind, 'speak');
    assert.equal(decide('SessionStart', mode, { source: 'startup' }).kind, 'speak', mode);
    assert.equal(decide('SubagentStop', mode).kind, 'chime', mode);
    assert.equal(decide('PreCompact', mode).kind, 'speak', mode);
  }
});

test('notify takes quiet, normal, chatty (and off, continuous); anything else is refused', () => {
  for (const v of ['off', 'quiet', 'normal', 'chatty', 'continuous'])
    assert.equal(checkValue('notify', v), undefined, v);
  assert.ok(checkValue('notify', 'loud'));
});
