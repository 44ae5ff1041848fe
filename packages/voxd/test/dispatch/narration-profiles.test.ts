/**
 * How each session narrates, as its vox mcp declared (dispatch/narration-profiles.ts): a mod batch of a session
 * not declared, or declared not narrating, is refused with why; one declared narrating gets the declared voice,
 * rate, volume, engine and model, the announce label on a message's first batch, and the pronunciations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NarrationRequest } from '@vox/protocol';
import { NarrationProfiles, NOT_DECLARED } from '../../src/dispatch/narration-profiles.js';

const mod = (index: number, delta: string, session = 'shop#5e55'): NarrationRequest => ({
  session,
  message: 'mod.t1.0.0',
  index,
  final: false,
  delta,
  source: 'mod',
});

test('a session no vox mcp declared is not narrated from the mod, nor one declared not narrating', () => {
  const p = new NarrationProfiles();
  assert.deepEqual(p.modBatch(mod(0, 'Hello.\n')), { reason: NOT_DECLARED });
  p.declare({ session: 'shop#5e55', narrates: false, reason: 'narrate: summary' });
  assert.deepEqual(p.modBatch(mod(0, 'Hello.\n')), {
    reason: 'its project does not narrate (narrate: summary), as its vox mcp declared',
  });
  assert.deepEqual(p.modBatch(mod(0, 'Hello.\n', 'web#111111')), { reason: NOT_DECLARED }, 'per session');
});

test("a declared session's mod batch is what vox mcp would send: its voice, label and pronunciations", () => {
  const p = new NarrationProfiles();
  p.declare({
    session: 'shop#5e55',
    narrates: true,
    voice: 'high',
    rate: 210,
    volume: 0.5,
    engine: 'espeak',
    model: 'm1',
    announce: 'shop',
    pronunciations: [{ word: 'kubectl', say: 'cube control' }],
  });
  const first = p.modBatch({ ...mod(0, 'I ran kubectl apply.\n'), voice: 'low', rate: 100 });
  assert.deepEqual(first, {
    request: {
      session: 'shop#5e55',
      message: 'mod.t1.0.0',
      index: 0,
      final: false,
      delta: 'shop:\nI ran cube control apply.\n',
      source: 'mod',
      voice: 'high',
      rate: 210,
      volume: 0.5,
      engine: 'espeak',
      model: 'm1',
    },
  });
  const next = p.modBatch({ ...mod(1, 'Kubectl again.\n'), final: true });
  assert.ok('request' in next);
  assert.equal(next.request.delta, 'cube control again.\n', 'the label starts the message only');
  // Declared again (the config changed): the newest holds.
  p.declare({ session: 'shop#5e55', narrates: true });
  const plain = p.modBatch(mod(0, 'kubectl.\n'));
  assert.ok('request' in plain);
  assert.deepEqual(plain.request, mod(0, 'kubectl.\n'));
  p.declare({ session: 'shop#5e55', narrates: false, reason: 'notify: quiet' });
  assert.match((p.modBatch(mod(0, 'x\n')) as { reason: string }).reason, /notify: quiet/);
});

test('bounded: past the most sessions, the least recently declared is forgotten', () => {
  const p = new NarrationProfiles({ max: 2 });
  p.declare({ session: 'a#1', narrates: true });
  p.declare({ session: 'b#2', narrates: true });
  p.declare({ session: 'a#1', narrates: true });
  p.declare({ session: 'c#3', narrates: true });
  assert.equal(p.size, 2);
  assert.ok('request' in p.modBatch(mod(0, 'x\n', 'a#1')));
  assert.ok('request' in p.modBatch(mod(0, 'x\n', 'c#3')));
  assert.deepEqual(p.modBatch(mod(0, 'x\n', 'b#2')), { reason: NOT_DECLARED });
});
