/**
 * The talk inbox alone (talk/inbox.ts): a label belongs to the secret that
 * registered it; a restarted vox mcp (its poll hung up) takes it over at
 * once, keeping what it holds; one between two polls keeps it until it
 * lapses; and the bounds push out idle junk, never an open poll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TalkInbox } from '../../src/talk/inbox.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

test('a vox mcp that stopped (its poll hung up) is taken over at once by its restart, which gets the held texts', async () => {
  const inbox = new TalkInbox();
  const hangUp = new AbortController();
  const open = inbox.wait('api#1', A, 60_000, hangUp.signal);
  assert.deepEqual(await inbox.wait('api#1', B, 0), { taken: 'this poll presented another secret' });
  hangUp.abort();
  assert.deepEqual(await open, { texts: [], secret: A });
  assert.deepEqual(inbox.deliver('api', 'Run the tests.'), { delivered: 'api#1' });
  assert.deepEqual(await inbox.wait('api#1', C, 0), { texts: ['Run the tests.'], secret: C });
  // Now C's: the old secret is refused.
  assert.deepEqual(await inbox.wait('api#1', A, 0), { taken: 'this poll presented another secret' });
});

test('a registration between two polls stays its own until it lapses', async () => {
  let now = 0;
  const inbox = new TalkInbox({ clock: () => now, liveMs: 60_000 });
  assert.deepEqual(await inbox.wait('api#1', A, 0), { texts: [], secret: A });
  now = 60_000;
  assert.deepEqual(await inbox.wait('api#1', undefined, 0), { taken: 'this poll presented no secret' });
  now = 60_001;
  assert.deepEqual(await inbox.wait('api#1', B, 0), { texts: [], secret: B });
});

test('idle registrations past the bound give way, the one idle longest first; an open poll never does', async () => {
  let now = 0;
  const inbox = new TalkInbox({ clock: () => now, maxIdle: 3 });
  const polls = [inbox.wait('real#1', A, 60_000), inbox.wait('real#2', B, 60_000)];
  for (let i = 0; i < 10; i++) {
    now++;
    await inbox.wait(`junk#${i}`, undefined, 0);
  }
  assert.deepEqual(inbox.live(), ['junk#7', 'junk#8', 'junk#9', 'real#1', 'real#2']);
  inbox.close();
  assert.deepEqual(await Promise.all(polls), [
    { texts: [], secret: A },
    { texts: [], secret: B },
  ]);
});
