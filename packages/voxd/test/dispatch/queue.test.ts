import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Priority } from '@vox/protocol';
import { SpeechQueue, type QueueItem } from '../../src/dispatch/queue.js';

let n = 0;
const item = (priority: Priority, session = 's1', extra: Partial<QueueItem> = {}): QueueItem => ({
  id: `${priority[0]}${++n}`,
  priority,
  session,
  ...extra,
});
const ids = (q: SpeechQueue<QueueItem>) => q.items().map((i) => i.priority);

test('order: important > message > text > progress > notification, FIFO within a class', () => {
  const q = new SpeechQueue<QueueItem>();
  const playing = item('message');
  const m1 = item('message');
  const m2 = item('message');
  q.admit(item('progress', 'p', { final: true }), playing);
  q.admit(m1, playing);
  q.admit(item('text', 'a'), playing);
  q.admit(m2, playing);
  q.admit(item('text', 'b'), playing);
  q.admit(item('important'), playing);
  q.admit(item('text', 'c'), playing);
  assert.deepEqual(ids(q), ['important', 'message', 'message', 'text', 'text', 'progress']);
  assert.deepEqual([q.items()[1], q.items()[2]], [m1, m2]);
  assert.deepEqual(
    q
      .items()
      .slice(3, 5)
      .map((i) => i.session),
    ['b', 'c'],
    'text a was cancelled by the later message',
  );
});

test('important interrupts a playing message or text, which resumes; never the other way', () => {
  const q = new SpeechQueue<QueueItem>();
  assert.equal(q.admit(item('important'), item('message')).playing, 'interrupt-resume');
  assert.equal(q.admit(item('important'), item('text')).playing, 'interrupt-resume');
  assert.equal(q.admit(item('important'), item('notification')).playing, 'interrupt-drop');
  assert.equal(q.admit(item('important'), item('important')).playing, 'continue');
  assert.equal(q.admit(item('message'), item('important')).playing, 'continue');
});

test('message cancels queued and playing text, notification and progress', () => {
  const q = new SpeechQueue<QueueItem>();
  const playing = item('important');
  q.admit(item('text'), playing);
  q.admit(item('progress'), null); // dropped at admission: other speech queued
  const a = q.admit(item('message'), playing);
  assert.deepEqual(
    a.removed.map((r) => r.item.priority),
    ['text'],
  );
  assert.equal(a.removed[0]!.outcome, 'dropped');
  assert.deepEqual(ids(q), ['message']);
  assert.equal(new SpeechQueue<QueueItem>().admit(item('message'), item('text')).playing, 'interrupt-drop');
  assert.equal(new SpeechQueue<QueueItem>().admit(item('message'), item('progress')).playing, 'interrupt-drop');
  assert.equal(new SpeechQueue<QueueItem>().admit(item('message'), item('message')).playing, 'continue');
});

test("text replaces the same session's queued text only", () => {
  const q = new SpeechQueue<QueueItem>();
  const playing = item('message');
  const first = item('text', 'shop');
  q.admit(first, playing);
  q.admit(item('text', 'api'), playing);
  const a = q.admit(item('text', 'shop'), playing);
  assert.deepEqual(
    a.removed.map((r) => [r.item.id, r.outcome]),
    [[first.id, 'replaced']],
  );
  assert.deepEqual(
    q.items().map((i) => i.session),
    ['api', 'shop'],
  );
});

test('notification is dropped when anything is queued or playing, and dropped by anything newer', () => {
  const q = new SpeechQueue<QueueItem>();
  assert.equal(q.admit(item('notification'), item('text')).admitted, false);
  const idle = new SpeechQueue<QueueItem>();
  assert.equal(idle.admit(item('notification'), null).admitted, true);
  const a = idle.admit(item('text'), null);
  assert.deepEqual(
    a.removed.map((r) => r.item.priority),
    ['notification'],
  );
  assert.equal(new SpeechQueue<QueueItem>().admit(item('text'), item('notification')).playing, 'interrupt-drop');
});

test('progress keeps only the latest per session, and the final one is always kept', () => {
  const q = new SpeechQueue<QueueItem>();
  const p1 = item('progress', 'build');
  q.admit(p1, null);
  const a = q.admit(item('progress', 'build'), item('progress', 'build'));
  assert.deepEqual(
    a.removed.map((r) => [r.item.id, r.outcome]),
    [[p1.id, 'replaced']],
  );
  // Non-final progress yields to other speech; the final one never does.
  const busy = new SpeechQueue<QueueItem>();
  busy.admit(item('message'), null);
  assert.equal(busy.admit(item('progress', 'build'), null).admitted, false);
  const fin = item('progress', 'build', { final: true });
  assert.equal(busy.admit(fin, null).admitted, true);
  const m = busy.admit(item('message'), null);
  assert.ok(!m.removed.some((r) => r.item === fin), 'a message does not cancel the final progress');
  assert.equal(busy.admit(item('important'), fin).playing, 'interrupt-resume');
  const later = busy.admit(item('progress', 'build', { final: true }), null);
  assert.ok(!later.removed.some((r) => r.item === fin), 'a final progress is never replaced');
});

test('requeue puts an interrupted item at the front of its class', () => {
  const q = new SpeechQueue<QueueItem>();
  const playing = item('important');
  q.admit(item('message'), playing);
  const resumed = item('message');
  q.requeue(resumed);
  q.admit(item('important'), null);
  assert.deepEqual(
    q.items().map((i) => i.id),
    [q.items()[0]!.id, resumed.id, q.items()[2]!.id],
  );
  assert.equal(q.items()[0]!.priority, 'important');
  assert.equal(q.items()[1], resumed);
});
