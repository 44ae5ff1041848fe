/**
 * GET /v1/events end to end: the real voxd, a real SSE connection with the
 * bearer token, `event:`/`data:` blocks parsed as they arrive. Checks the order
 * of events for each way a request can end, and that `vox status --watch`
 * prints one plain line per event when piped.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { request } from 'node:http';
import { VOX, http, removeDir, startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';

interface Sse {
  type: string;
  data: any;
}

interface Stream {
  events: Sse[];
  /** Comments (`: connected`, `: heartbeat`). */
  comments: string[];
  close(): void;
}

/** Open GET /v1/events and collect blocks; resolves once the stream says it is connected. */
function openEvents(d: Daemon): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const stream: Stream = { events: [], comments: [], close: () => req.destroy() };
    const req = request(
      { host: '127.0.0.1', port: d.port, path: '/v1/events', headers: { authorization: `Bearer ${d.token}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        assert.match(String(res.headers['content-type']), /^text\/event-stream/);
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let type: string | undefined;
            let data: string | undefined;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
              else if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (type && data) {
              const parsed = JSON.parse(data);
              assert.equal(parsed.type, type, 'the event line and the data agree');
              stream.events.push({ type, data: parsed });
            }
            if (stream.comments.includes('connected')) resolve(stream);
          }
        });
        res.on('error', () => {});
      },
    );
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

let d: Daemon;
let sse: Stream;

before(async () => {
  d = await startDaemon();
  sse = await openEvents(d);
});
after(async () => {
  sse?.close();
  await d.stop();
  removeDir(d.home);
});

const LONG =
  'This long announcement keeps voxd busy while other requests arrive. It has a second sentence, and a third one after that. And then a fourth sentence to finish.';

/** The event types of `id`, in order. */
const typesOf = (id: string) => sse.events.filter((e) => e.data.id === id).map((e) => e.type);
/** Wait until `id` has an event of `type`. */
const waitEvent = (id: string, type: string) =>
  waitFor(() => sse.events.find((e) => e.data.id === id && e.type === type), 20_000, `${type} of ${id}`);

async function heard(id: string): Promise<void> {
  await waitFor(
    () => d.wavs().some((f) => f.includes(`-${id}.wav`) && statSync(f).size > 44 + 22050) || undefined,
    20_000,
    `${id} to be heard`,
  );
}

describe('GET /v1/events', () => {
  test('needs the bearer token', async () => {
    const r = await http(d.port, 'GET', '/v1/events');
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'VOX_ERR_AUTH_MISSING');
  });

  test('a normal request: queued, started, finished, each with id, priority, session and time', async () => {
    const r = await d.api('POST', '/v1/speak', {
      text: 'Events for a normal request.',
      session: 'shop#abc123',
      rate: 400,
      wait: true,
    });
    assert.equal(r.body.status, 'played');
    await waitEvent(r.body.id, 'finished');
    assert.deepEqual(typesOf(r.body.id), ['queued', 'started', 'finished']);
    for (const e of sse.events.filter((x) => x.data.id === r.body.id)) {
      assert.equal(e.data.priority, 'message');
      assert.equal(e.data.session, 'shop#abc123');
      assert.ok(!Number.isNaN(Date.parse(e.data.at)));
    }
  });

  test('a duplicate: one deduped event that names the original', async () => {
    await d.idle();
    const original = await d.api('POST', '/v1/speak', { text: 'Events for a duplicate.', rate: 400 });
    const dup = await d.api('POST', '/v1/speak', { text: 'events for a duplicate' });
    assert.equal(dup.body.status, 'deduped');
    await waitEvent(dup.body.id, 'deduped');
    await waitEvent(original.body.id, 'finished');
    assert.deepEqual(typesOf(dup.body.id), ['deduped']);
    assert.equal(sse.events.find((e) => e.data.id === dup.body.id)!.data.originalId, original.body.id);
    assert.deepEqual(typesOf(original.body.id), ['queued', 'started', 'finished']);
  });

  test('an expiry: queued, then expired, never started', async () => {
    await d.idle();
    const blocker = await d.api('POST', '/v1/speak', { text: `${LONG} Expiry.` });
    await heard(blocker.body.id);
    const late = await d.api('POST', '/v1/speak', { text: 'Events for an expiry.', maxAgeMs: 200, wait: true });
    assert.equal(late.body.status, 'expired');
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await waitEvent(blocker.body.id, 'interrupted');
    assert.deepEqual(typesOf(late.body.id), ['queued', 'expired']);
    assert.match(sse.events.find((e) => e.data.id === late.body.id && e.type === 'expired')!.data.reason, /maxAgeMs/);
  });

  test('an interruption: the message pauses, the important one plays, the message resumes and finishes', async () => {
    await d.idle();
    const start = sse.events.length;
    const m = await d.api('POST', '/v1/speak', { text: `${LONG} Interruption.`, session: 'a', rate: 300 });
    await heard(m.body.id);
    const i = await d.api('POST', '/v1/speak', {
      text: 'Events for an important one.',
      priority: 'important',
      session: 'b',
      rate: 400,
    });
    await waitEvent(m.body.id, 'finished');
    const seen = sse.events
      .slice(start)
      .map((e) => `${e.data.id === m.body.id ? 'M' : e.data.id === i.body.id ? 'I' : '?'} ${e.type}`);
    assert.deepEqual(seen, [
      'M queued',
      'M started',
      'I queued',
      'M interrupted',
      'I started',
      'I finished',
      'M started',
      'M finished',
    ]);
    const paused = sse.events.find((e) => e.data.id === m.body.id && e.type === 'interrupted')!;
    assert.match(paused.data.reason, /will resume/);
    const resumed = sse.events.filter((e) => e.data.id === m.body.id && e.type === 'started')[1]!;
    assert.match(resumed.data.reason, /^resumed from sentence [1-4] of 4$/);
  });

  test('an interruption that ends a request: queued, started, interrupted with the reason', async () => {
    await d.idle();
    const t = await d.api('POST', '/v1/speak', { text: `${LONG} A text.`, priority: 'text', rate: 300 });
    await heard(t.body.id);
    const m = await d.api('POST', '/v1/speak', {
      text: 'Events for a message that cuts a text.',
      rate: 400,
      wait: true,
    });
    assert.equal(m.body.status, 'played');
    assert.deepEqual(typesOf(t.body.id), ['queued', 'started', 'interrupted']);
    assert.match(sse.events.find((e) => e.data.id === t.body.id && e.type === 'interrupted')!.data.reason, /message/);
  });

  test('a stop, a drop and a replacement are each reported', async () => {
    await d.idle();
    const blocker = await d.api('POST', '/v1/speak', { text: `${LONG} Stop drop replace.`, session: 'x' });
    await heard(blocker.body.id);
    const note = await d.api('POST', '/v1/speak', { text: 'A dropped notification.', priority: 'notification' });
    assert.equal(note.body.status, 'dropped');
    const t1 = await d.api('POST', '/v1/speak', { text: 'An older text.', priority: 'text', session: 'y' });
    await d.api('POST', '/v1/speak', { text: 'A newer text.', priority: 'text', session: 'y' });
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await waitEvent(blocker.body.id, 'interrupted');
    assert.deepEqual(typesOf(note.body.id), ['queued', 'dropped']);
    assert.deepEqual(typesOf(t1.body.id), ['queued', 'replaced']);
    assert.deepEqual(typesOf(blocker.body.id), ['queued', 'started', 'interrupted']);
    assert.equal(
      sse.events.find((e) => e.data.id === blocker.body.id && e.type === 'interrupted')!.data.reason,
      'stopped (all)',
    );
  });

  test('a chime has the same events as speech', async () => {
    await d.idle();
    const c = await d.api('POST', '/v1/chime', { signal: 'prompt', wait: true });
    assert.equal(c.body.status, 'played');
    await waitEvent(c.body.id, 'finished');
    assert.deepEqual(typesOf(c.body.id), ['queued', 'started', 'finished']);
  });

  test('a second subscriber sees the same events', async () => {
    const other = await openEvents(d);
    try {
      const r = await d.api('POST', '/v1/speak', { text: 'Two listeners.', rate: 400, wait: true });
      await waitFor(
        () => other.events.find((e) => e.data.id === r.body.id && e.type === 'finished'),
        20_000,
        'the second stream',
      );
      assert.deepEqual(
        other.events.filter((e) => e.data.id === r.body.id).map((e) => e.type),
        typesOf(r.body.id),
      );
    } finally {
      other.close();
    }
  });
});

describe('vox status --watch', () => {
  test('piped, prints one plain line per event', async () => {
    await d.idle();
    const child = spawn(process.execPath, [VOX, 'status', '--watch'], {
      env: d.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    try {
      // The watcher subscribes after it starts; speak until it reports something.
      let k = 0;
      const id = await waitFor(
        async () => {
          const r = await d.api('POST', '/v1/speak', {
            text: `Watch line ${++k}.`,
            priority: 'notification',
            session: 'watch#000001',
          });
          await new Promise((res) => setTimeout(res, 200));
          return out.includes(` ${r.body.id} `) ? r.body.id : undefined;
        },
        20_000,
        `a line from vox status --watch (stderr: ${err})`,
      );
      const line = out.split('\n').find((l) => l.includes(` ${id} `))!;
      assert.match(
        line,
        new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z (queued|started|finished|dropped) ${id} notification watch#000001`),
      );
      assert.ok(!out.includes('\x1b'), 'no terminal control codes when piped');
    } finally {
      child.kill('SIGTERM');
      await new Promise((res) => child.once('close', res));
    }
  });
});
