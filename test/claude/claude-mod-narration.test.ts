/**
 * The vox mod's narration from `turn.step` (plugin/hooks/step-narration.ts,
 * pure): streamed text pieces become POST /v1/narration batches as
 * MessageDisplay's are (completed lines, the rest with the last batch), each
 * within @vox/protocol's schema (restated by the mod, which cannot import
 * it), one message per text block, marked `source: mod`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { narrationRequestSchema } from '@vox/protocol';
import {
  DroppedTurns,
  MAX_OPEN_CHARS,
  messageOf,
  narratesSteps,
  StepNarration,
  stepLabel,
} from '../../plugin/hooks/step-narration.js';

test('pieces of a block become batches of whole lines, in order; the stop sends the rest as the last', () => {
  const s = new StepNarration('shop#3c07f0', 'turn_01', 2);
  assert.equal(s.text(0, 'I split the '), undefined);
  const b0 = s.text(0, 'module.\nNext I ');
  assert.deepEqual(b0, {
    session: 'shop#3c07f0',
    message: 'mod.turn_01.2.0',
    index: 0,
    final: false,
    delta: 'I split the module.\n',
    source: 'mod',
  });
  assert.equal(s.text(0, 'added tests'), undefined);
  // A second block (after a tool call's chunks) is its own message.
  assert.equal(s.text(1, 'All pass.\n')?.message, 'mod.turn_01.2.1');
  const last = s.end();
  assert.deepEqual(
    last.map((b) => [b.message, b.index, b.final, b.delta]),
    [
      ['mod.turn_01.2.0', 1, true, 'Next I added tests'],
      ['mod.turn_01.2.1', 1, true, ''],
    ],
  );
  assert.deepEqual(s.end(), [], 'ended once');
});

test('every batch is one voxd takes (its schema); a line that never ends goes in bounded pieces', () => {
  const validate = new Ajv().compile(narrationRequestSchema);
  const s = new StepNarration('web#1', 'tu rn/with odd:chars\u0000'.repeat(20), 0);
  const batches = [s.text(0, 'x'.repeat(MAX_OPEN_CHARS + 1)), s.text(0, 'tail'), ...s.end()].filter((b) => b);
  assert.equal(batches.length, 2);
  assert.equal(batches[0]!.delta.length, MAX_OPEN_CHARS + 1);
  for (const b of batches) assert.ok(validate(b), JSON.stringify(validate.errors));
  assert.ok(messageOf('', 0, 0).startsWith('mod.turn.'));
});

test('narrated unless VOX_CLAUDE_MOD_NARRATION=off, and never a subagent', () => {
  assert.equal(narratesSteps(undefined, undefined), true, 'on by default');
  assert.equal(narratesSteps('on', undefined), true);
  assert.equal(narratesSteps('off', undefined), false);
  assert.equal(narratesSteps(undefined, 'agent-1'), false);
});

test('a turn voxd drops whole (untilCut) is not sent further; the next turn is', () => {
  const d = new DroppedTurns();
  assert.equal(d.sends('t1'), true);
  d.answered('t1', { status: 'dropped', sentences: 0, reason: 'its project does not narrate', untilCut: true });
  assert.equal(d.sends('t1'), false);
  assert.equal(d.sends('t2'), true, 'a new turn (a new prompt, a new declaration) is tried again');
  d.answered('t2', { status: 'dropped', sentences: 0, reason: 'the narration of this message ended' });
  d.answered('t2', undefined);
  assert.equal(d.sends('t2'), true, 'a message dropped, or no answer, leaves the turn open');
});

test("the label: the one voxd knows for the session's current id (after /clear), else the folder and the short id", () => {
  assert.equal(stepLabel(['web#aaaaaa', 'web-app#bbbbbb'], '/home/me/web', 'bbbbbb'), 'web-app#bbbbbb');
  assert.equal(stepLabel(['web#aaaaaa'], '/home/me/web/', 'bbbbbb'), 'web#bbbbbb');
  assert.equal(stepLabel([], '/', 'cccccc'), 'claude#cccccc');
});
