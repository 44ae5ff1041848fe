/**
 * `/vox-talk`'s pure part (plugin/hooks/talk.ts): the listen the mod asks
 * for (within @vox/protocol's schema, a restatement the mod cannot import),
 * its bound, the label, and what an answer becomes: a prompt marked as
 * spoken, or a quiet line and nothing sent. And the focus both keys send
 * (plugin/hooks/focus.ts), within POST /v1/focus's schema.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FOCUS_REASONS, focusRequestSchema, listenRequestSchema } from '@vox/protocol';
import { focusRequest } from '../../plugin/hooks/focus.js';
import { SPOKEN_MARK, talkBoundMs, talkLabel, talkOutcome, talkRequest } from '../../plugin/hooks/talk.js';

describe("/vox-talk's listen and what it submits", () => {
  test("the listen is a barge-in within voxd's schema; the mod's bound covers the recording, the queue and the transcriber", () => {
    const r = talkRequest('web#3c07f0');
    const props = listenRequestSchema.properties as Record<
      string,
      { type: string; minimum?: number; maximum?: number }
    >;
    for (const [k, v] of Object.entries(r)) {
      const p = props[k];
      assert.ok(p, `${k} is a field of POST /v1/listen`);
      if (typeof v === 'number') assert.ok(v >= (p.minimum ?? -Infinity) && v <= (p.maximum ?? Infinity), k);
    }
    assert.equal(r.bargeIn, true);
    // voxd's transcriber gives up after 30 s by default.
    assert.ok(talkBoundMs(r) >= r.maxSeconds * 1000 + r.waitMs + 30_000);
  });

  test("the label: one voxd already knows for the session, else the folder's name and the short id", () => {
    assert.equal(talkLabel(['api#3c07f0'], '/home/u/web', '3c07f0'), 'api#3c07f0');
    assert.equal(talkLabel([], '/home/u/web/', '3c07f0'), 'web#3c07f0');
    assert.equal(talkLabel([], '/', '3c07f0'), 'claude#3c07f0');
    assert.equal(talkLabel([], '/x/a b\u0007', 'abc'), 'ab#abc');
  });

  test('a transcript is submitted marked as spoken, on one line', () => {
    assert.deepEqual(talkOutcome({ text: ' Run the tests. ', transcribed: true }), {
      submit: `${SPOKEN_MARK}Run the tests.`,
    });
    assert.deepEqual(talkOutcome({ text: 'one\nline\u001b[2J two', transcribed: true }), {
      submit: `${SPOKEN_MARK}one line [2J two`,
    });
    const long = talkOutcome({ text: 'a'.repeat(10_000) });
    assert.ok('submit' in long && long.submit.length === SPOKEN_MARK.length + 4000);
  });

  test('silence, an empty transcript or one of blanks submits nothing: a quiet line says why', () => {
    assert.deepEqual(talkOutcome({ text: '', transcribed: false, reason: 'no speech within 8000 ms' }), {
      quiet: 'vox-talk: no speech within 8000 ms; nothing sent',
    });
    assert.deepEqual(talkOutcome({ text: ' \n ', transcribed: true }), {
      quiet: 'vox-talk: nothing was heard; nothing sent',
    });
    assert.deepEqual(talkOutcome({}), { quiet: 'vox-talk: nothing was heard; nothing sent' });
  });
});

describe("the mod's keys move voxd's focus to this session", () => {
  test("/vox-talk is a talk, /vox-stop names the session as vox focus does; both within POST /v1/focus's schema", () => {
    const talk = focusRequest('web#3c07f0', 'vox-talk');
    const stop = focusRequest('web#3c07f0', 'vox-stop');
    assert.deepEqual(talk, { session: 'web#3c07f0', reason: 'talk' });
    assert.deepEqual(stop, { session: 'web#3c07f0', reason: 'named' });
    const { session } = focusRequestSchema.properties;
    for (const body of [talk, stop]) {
      assert.deepEqual(Object.keys(body).sort(), ['reason', 'session'], 'only fields of POST /v1/focus');
      for (const k of focusRequestSchema.required) assert.ok(k in body, k);
      assert.ok((FOCUS_REASONS as readonly string[]).includes(body.reason), body.reason);
      assert.ok(body.session.length >= session.minLength && body.session.length <= session.maxLength);
    }
  });
});
