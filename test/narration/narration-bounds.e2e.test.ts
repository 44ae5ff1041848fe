/**
 * Narration's order and bounds end to end (real voxd, real HTTP): batches
 * that arrive out of order are spoken in index order, the one that came late
 * in its place; one session cannot take every narration there is; and a
 * message that never ends a sentence is spoken in pieces while its text and
 * its journal record stay bounded (docs/protocol.md, "POST /v1/narration").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { NARRATION_MAX_MESSAGE_CHARS } from '@vox/protocol';
import { startDaemon, stopDaemonsUnder, waitFor, type Daemon } from '../helpers/daemon.js';

function batch(d: Daemon, session: string, message: string, index: number, delta: string, final = false) {
  return d.api('POST', '/v1/narration', { session, message, index, final, delta });
}

async function settled(d: Daemon, id: string): Promise<any> {
  return waitFor(
    async () => {
      const h = (await d.api('GET', '/v1/status')).body.history.find((e: any) => e.id === id);
      return h && !['queued', 'playing'].includes(h.outcome) ? h : undefined;
    },
    60_000,
    `utterance ${id} to settle`,
  );
}

test('batches out of order are spoken in index order: the one that came late is spoken in its place', async (t) => {
  const d = await startDaemon({ realtime: false });
  t.after(() => stopDaemonsUnder(d.home));
  const one = await batch(d, 'api#ord', 'm1', 1, 'The second sentence came first.\n');
  assert.equal(one.body.status, 'queued');
  const zero = await batch(d, 'api#ord', 'm1', 0, 'The first sentence came late.\n');
  assert.deepEqual({ id: zero.body.id, status: zero.body.status }, { id: one.body.id, status: 'queued' });
  const two = await batch(d, 'api#ord', 'm1', 2, 'The third sentence ends it.\n', true);
  assert.equal(two.body.status, 'queued');
  const h = await settled(d, one.body.id);
  assert.equal(h.outcome, 'played');
  assert.equal(h.text, 'The first sentence came late. The second sentence came first. The third sentence ends it.');
});

test('one session cannot take every narration: past its own cap it is refused, and another session is taken', async (t) => {
  const d = await startDaemon({ audio: 'null' });
  t.after(() => stopDaemonsUnder(d.home));
  let refused: { status: number; body: any } | undefined;
  let taken = 0;
  for (let i = 0; i < 300 && !refused; i++) {
    const r = await batch(d, 'hog#1', `m${i}`, 0, 'A sentence that never ends');
    if (r.status === 202) taken++;
    else refused = r;
  }
  assert.ok(refused, 'the session was refused at some point');
  assert.equal(refused.status, 429, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'VOX_ERR_NARRATION_SESSION_FULL');
  assert.match(refused.body.message, /hog#1/);
  assert.ok(taken >= 1 && taken < 256, `taken before the refusal: ${taken}`);
  const other = await batch(d, 'calm#2', 'm0', 0, 'Another session is still heard.\n', true);
  assert.equal(other.status, 202, JSON.stringify(other.body));
  assert.equal(other.body.status, 'queued');
  // The session's own messages that are taken go on.
  const more = await batch(d, 'hog#1', 'm0', 1, ' and now it ends.\n', true);
  assert.equal(more.body.status, 'queued');
});

test('a message that never ends a sentence is spoken in pieces; its text and its journal stay bounded', async (t) => {
  const d = await startDaemon({ audio: 'null' });
  t.after(() => stopDaemonsUnder(d.home));
  const words = 'and then it goes on ';
  const delta = words.repeat(Math.floor(65_536 / words.length));
  const journal = join(d.home, 'journal.jsonl');
  let id: string | undefined;
  let largest = 0;
  const answers: any[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await batch(d, 'api#long', 'm1', i, delta);
    assert.ok(r.status < 300, JSON.stringify(r.body));
    answers.push(r.body);
    id ??= r.body.id;
    largest = Math.max(largest, statSync(journal).size);
  }
  // Pieces were given out from the first batch on, none longer than a sentence may be.
  assert.ok(answers[0].sentences > 0, JSON.stringify(answers[0]));
  // 40 batches of 64 KiB: the journal holds at most about twice one bounded record, not the 2.6 MB written.
  assert.ok(largest < 1024 * 1024, `journal reached ${largest} bytes`);
  // Past the message's bound, batches are answered dropped with why, and the message says the rest is on the screen.
  const last = answers.at(-1);
  assert.equal(last.status, 'dropped');
  assert.match(last.reason, /characters/);
  const h = (await d.api('GET', '/v1/status')).body.history.find((e: any) => e.id === id);
  assert.ok(h.text.length <= NARRATION_MAX_MESSAGE_CHARS + 100, `text of ${h.text.length} characters`);
  assert.match(h.text, /^and then it goes on/);
  assert.match(h.text, /rest of this message is on the screen/);
  await d.api('POST', '/v1/stop', { scope: 'all' });
});
