import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAddress } from '../../packages/vox-mcp/src/talk/address.js';
import { TalkInbox } from '../../packages/voxd/src/talk/inbox.js';

test('a label said first picks the session: colon or comma', () => {
  assert.deepEqual(parseAddress('api: run the tests'), { session: 'api', text: 'run the tests' });
  assert.deepEqual(parseAddress('  API, run the tests. '), { session: 'API', text: 'run the tests.' });
  assert.deepEqual(parseAddress('shop#3c07f0: deploy'), { session: 'shop#3c07f0', text: 'deploy' });
  assert.equal(parseAddress('run the tests'), undefined);
  assert.equal(parseAddress('api:'), undefined);
  assert.equal(parseAddress('two words: text'), undefined);
});

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

test('the inbox finds a session by project or full label, holds between polls, and lists the live ones', async () => {
  const inbox = new TalkInbox();
  assert.deepEqual(await inbox.wait('api#aaaaaa', A, 0), { texts: [], secret: A });
  assert.deepEqual(await inbox.wait('web#bbbbbb', B, 0), { texts: [], secret: B });
  assert.deepEqual(inbox.deliver('Api', 'run the tests'), { delivered: 'api#aaaaaa' });
  assert.deepEqual(await inbox.wait('api#aaaaaa', A, 1000), { texts: ['run the tests'], secret: A });
  const polled = inbox.wait('web#bbbbbb', B, 5000);
  assert.deepEqual(inbox.deliver('web#bbbbbb', 'lint'), { delivered: 'web#bbbbbb' });
  assert.deepEqual(await polled, { texts: ['lint'], secret: B });
  const unknown = inbox.deliver('docs', 'x');
  assert.ok('problem' in unknown && unknown.problem.includes('api#aaaaaa, web#bbbbbb'), JSON.stringify(unknown));
  await inbox.wait('api#cccccc', C, 0);
  const two = inbox.deliver('api', 'x');
  assert.ok('problem' in two && two.problem.includes('2 sessions'), JSON.stringify(two));
});

test('a session that stops polling is forgotten, and a full box refuses', async () => {
  let now = 0;
  const inbox = new TalkInbox({ clock: () => now, liveMs: 1000, maxHeld: 2 });
  await inbox.wait('api#aaaaaa', A, 0);
  inbox.deliver('api', 'one');
  inbox.deliver('api', 'two');
  const full = inbox.deliver('api', 'three');
  assert.ok('problem' in full && full.problem.includes('not polling'));
  now = 5000;
  assert.deepEqual(inbox.live(), []);
});
