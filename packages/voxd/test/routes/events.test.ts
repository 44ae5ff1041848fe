/**
 * GET /v1/events through fastify's inject, its answer read as a stream
 * (docs/protocol.md, "GET /v1/events"): the guard, then an utterance's events
 * as Server-Sent Events with growing ids, and a reconnect with Last-Event-ID
 * that replays what came after it. The route takes no query and no body, so
 * there is no schema to refuse one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { buildServer } from '../../src/server.js';
import { assertGuarded, AUTH, routeRig } from '../fixtures/route-rig.js';

interface SseEvent {
  id?: number;
  event: string;
  data: { type: string; id: string; priority: string; at: string; session?: string };
}

/** Reads SSE frames from `stream` until `done` says the ones read are enough. */
async function readEvents(stream: Readable, done: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  let buffer = '';
  for await (const chunk of stream) {
    buffer += String(chunk);
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) => frame.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1];
      // A comment (": connected" first, ": heartbeat" later) is no event.
      if (field('event') === undefined) continue;
      const id = field('id');
      events.push({ ...(id ? { id: Number(id) } : {}), event: field('event')!, data: JSON.parse(field('data')!) });
      if (done(events)) return events;
    }
  }
  throw new Error(`the stream ended after ${events.length} events`);
}

test('the token is required and a browser page is refused', async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  await assertGuarded(app, { method: 'GET', url: '/v1/events' });
});

test("an utterance's events in order, then a reconnect with Last-Event-ID gets the ones after it first", async (t) => {
  const { app } = await buildServer(routeRig().options);
  t.after(() => app.close());
  const hangUp = new AbortController();
  t.after(() => hangUp.abort());
  const r = await app.inject({
    method: 'GET',
    url: '/v1/events',
    headers: AUTH,
    payloadAsStream: true,
    signal: hangUp.signal,
  });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'no-cache');
  const spoken = await app.inject({
    method: 'POST',
    url: '/v1/speak',
    headers: AUTH,
    payload: { text: 'Tests passed.', session: 'api#9a1b2c', wait: true },
  });
  const { id } = spoken.json();
  const events = await readEvents(r.stream(), (es) => es.some((e) => e.event === 'finished'));
  assert.deepEqual(
    events.map((e) => [e.id, e.event, e.data.type, e.data.id, e.data.priority, e.data.session]),
    [
      [1, 'queued', 'queued', id, 'message', 'api#9a1b2c'],
      [2, 'started', 'started', id, 'message', 'api#9a1b2c'],
      [3, 'finished', 'finished', id, 'message', 'api#9a1b2c'],
    ],
  );
  for (const e of events) assert.ok(!Number.isNaN(Date.parse(e.data.at)), e.data.at);

  const again = new AbortController();
  t.after(() => again.abort());
  const resumed = await app.inject({
    method: 'GET',
    url: '/v1/events',
    headers: { ...AUTH, 'last-event-id': '1' },
    payloadAsStream: true,
    signal: again.signal,
  });
  const replayed = await readEvents(resumed.stream(), (es) => es.length === 2);
  assert.deepEqual(
    replayed.map((e) => [e.id, e.event, e.data.id]),
    [
      [2, 'started', id],
      [3, 'finished', id],
    ],
  );

  // An id voxd never gave out is ignored: the stream starts with what comes next.
  const fresh = new AbortController();
  t.after(() => fresh.abort());
  const ignored = await app.inject({
    method: 'GET',
    url: '/v1/events',
    headers: { ...AUTH, 'last-event-id': 'not-a-number' },
    payloadAsStream: true,
    signal: fresh.signal,
  });
  const next = await app.inject({ method: 'POST', url: '/v1/speak', headers: AUTH, payload: { text: 'Next one.' } });
  const [first] = await readEvents(ignored.stream(), (es) => es.length === 1);
  assert.deepEqual([first!.id, first!.event, first!.data.id], [4, 'queued', next.json().id]);
});
