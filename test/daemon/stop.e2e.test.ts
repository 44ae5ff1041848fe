/**
 * Stopping speech, end to end: POST /v1/stop in each scope (current, all,
 * session, id), and `vox stop` / `vox stop --all` through the real binary.
 * A stopped utterance is cut: its WAV (real-time file sink, its length read back)
 * is much shorter than the same text synthesized whole by /v1/synthesize.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { removeDir, startDaemon, vox, waitFor, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

const LONG = [
  'This announcement is long on purpose, so that there is time to stop it while it plays.',
  'It goes on with a second sentence about nothing in particular.',
  'A third sentence follows, and then a fourth one closes it.',
  'That was the fourth.',
].join(' ');

let d: Daemon;
let n = 0;

before(async () => {
  d = await startDaemon();
});
after(async () => {
  await d.stop();
  removeDir(d.home);
});

/** Start a request that waits for its outcome; resolves with its id once it is accepted. */
async function speakWaiting(body: Record<string, unknown>): Promise<{ id: string; done: Promise<any> }> {
  const text = body.text as string;
  const done = d.api('POST', '/v1/speak', { ...body, wait: true }).then((r) => r.body);
  const id = await waitFor(
    async () => (await d.api('GET', '/v1/status')).body.history.find((h: any) => h.text === text)?.id,
    20_000,
    `"${text}" to be accepted`,
  );
  return { id, done };
}

function playedSince(from: number): string[] {
  return d
    .wavs()
    .slice(from)
    .map((f) => /^\d+-(.+)\.wav$/.exec(basename(f))![1]!);
}

async function heard(id: string): Promise<void> {
  await waitFor(
    () => d.wavs().some((f) => f.includes(`-${id}.wav`) && statSync(f).size > 44 + 22050) || undefined,
    20_000,
    `${id} to be heard`,
  );
}

function secondsOf(id: string): number {
  return wavStats(d.wavs().find((f) => f.includes(`-${id}.wav`))!).durationMs / 1000;
}

async function uncut(text: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${d.port}/v1/synthesize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  assert.equal(res.status, 200);
  const file = join(d.home, `uncut-${++n}.wav`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return wavStats(file).durationMs / 1000;
}

/** A stopped WAV: real speech, and much shorter than the whole text. */
async function assertCut(id: string, text: string): Promise<void> {
  const cut = secondsOf(id);
  const whole = await uncut(text);
  assert.ok(cut > 0.3, `${id}: ${cut}s of audio before the stop`);
  assert.ok(cut < whole * 0.5, `${id}: ${cut}s is not much shorter than the whole ${whole}s`);
  const stats = wavStats(d.wavs().find((f) => f.includes(`-${id}.wav`))!);
  assert.ok(stats.rms > 0.01, 'the part played is speech, not silence');
}

describe('POST /v1/stop', () => {
  test('scope current cuts the utterance playing now; the queue goes on', async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} Current.`;
    const m1 = await speakWaiting({ text, session: 'a' });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Next in line after a stop.', session: 'a', rate: 400 });
    const r = await d.api('POST', '/v1/stop', { scope: 'current' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { stopped: [m1.id] });
    const done = await m1.done;
    assert.equal(done.status, 'stopped');
    assert.equal(done.reason, 'stopped (current)');
    assert.equal((await m2.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [m1.id, m2.id]);
    await assertCut(m1.id, text);
  });

  test('scope all cuts the current one and clears the queue', async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} All.`;
    const m1 = await speakWaiting({ text, session: 'a' });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Queued message, stopped by all.', session: 'b' });
    const t = await speakWaiting({ text: 'Queued text, stopped by all.', session: 'c', priority: 'text' });
    const r = await d.api('POST', '/v1/stop', { scope: 'all' });
    assert.deepEqual([...r.body.stopped].sort(), [m1.id, m2.id, t.id].sort());
    for (const x of [m1, m2, t]) assert.equal((await x.done).status, 'stopped');
    await d.idle();
    assert.deepEqual(playedSince(from), [m1.id]);
    await assertCut(m1.id, text);
    // An empty body means all, too.
    const empty = await d.api('POST', '/v1/stop');
    assert.deepEqual(empty.body, { stopped: [] });
  });

  test("scope session stops that session's playing and queued speech only", async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} Session.`;
    const a1 = await speakWaiting({ text, session: 'shop#aaaaaa' });
    await heard(a1.id);
    const b1 = await speakWaiting({ text: 'Session b keeps its turn.', session: 'api#bbbbbb', rate: 400 });
    const a2 = await speakWaiting({ text: 'Session a queued, then stopped.', session: 'shop#aaaaaa' });
    const r = await d.api('POST', '/v1/stop', { scope: 'session', session: 'shop#aaaaaa' });
    assert.deepEqual([...r.body.stopped].sort(), [a1.id, a2.id].sort());
    assert.equal((await a1.done).status, 'stopped');
    assert.equal((await a2.done).status, 'stopped');
    assert.equal((await b1.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [a1.id, b1.id]);
    await assertCut(a1.id, text);
  });

  test('scope id stops one queued request without touching what plays, or cuts the playing one', async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} By id.`;
    const m1 = await speakWaiting({ text, session: 'a' });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Stopped by its id while queued.', session: 'a' });
    const m3 = await speakWaiting({ text: 'Played after the others.', session: 'a', rate: 400 });
    const r1 = await d.api('POST', '/v1/stop', { scope: 'id', id: m2.id });
    assert.deepEqual(r1.body, { stopped: [m2.id] });
    assert.equal((await m2.done).status, 'stopped');
    const s = await d.api('GET', '/v1/status');
    assert.equal(s.body.playing.id, m1.id, 'the playing one goes on');
    const r2 = await d.api('POST', '/v1/stop', { scope: 'id', id: m1.id });
    assert.deepEqual(r2.body, { stopped: [m1.id] });
    assert.equal((await m1.done).status, 'stopped');
    assert.equal((await m3.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [m1.id, m3.id]);
    await assertCut(m1.id, text);
    const unknown = await d.api('POST', '/v1/stop', { scope: 'id', id: 'no-such-id' });
    assert.deepEqual(unknown.body, { stopped: [] });
  });

  test('a scope without its target is refused with a named error', async () => {
    for (const body of [{ scope: 'session' }, { scope: 'id' }]) {
      const r = await d.api('POST', '/v1/stop', body);
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'VOX_ERR_BODY_INVALID');
      assert.match(r.body.message, new RegExp(body.scope));
    }
    const bad = await d.api('POST', '/v1/stop', { scope: 'everything' });
    assert.equal(bad.status, 400);
  });
});

describe('vox stop', () => {
  test('with no option cuts what plays and says which; with nothing playing says so', async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} Vox stop.`;
    const m1 = await speakWaiting({ text });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Still played after vox stop.', rate: 400 });
    const r = await vox(['stop'], { env: d.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `stopped ${m1.id}\n`);
    assert.equal((await m1.done).status, 'stopped');
    assert.equal((await m2.done).status, 'played');
    await d.idle();
    assert.deepEqual(playedSince(from), [m1.id, m2.id]);
    await assertCut(m1.id, text);
    const idle = await vox(['stop'], { env: d.env });
    assert.equal(idle.code, 0);
    assert.equal(idle.stdout, 'nothing was playing\n');
  });

  test('--all clears the queue too; --json prints the response', async () => {
    await d.idle();
    const from = d.wavs().length;
    const text = `${LONG} Vox stop all.`;
    const m1 = await speakWaiting({ text });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Queued, then cleared by vox stop --all.' });
    const r = await vox(['stop', '--all', '--json'], { env: d.env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...JSON.parse(r.stdout).stopped].sort(), [m1.id, m2.id].sort());
    assert.equal((await m1.done).status, 'stopped');
    assert.equal((await m2.done).status, 'stopped');
    await d.idle();
    assert.deepEqual(playedSince(from), [m1.id]);
    await assertCut(m1.id, text);
  });

  test('--session and --id reach the matching scopes', async () => {
    await d.idle();
    const m1 = await speakWaiting({ text: `${LONG} Vox stop session.`, session: 'web#cccccc' });
    await heard(m1.id);
    const m2 = await speakWaiting({ text: 'Queued for vox stop --id.', session: 'db#dddddd' });
    const byId = await vox(['stop', '--id', m2.id], { env: d.env });
    assert.equal(byId.stdout, `stopped ${m2.id}\n`);
    const bySession = await vox(['stop', '--session', 'web#cccccc'], { env: d.env });
    assert.equal(bySession.stdout, `stopped ${m1.id}\n`);
    assert.equal((await m1.done).status, 'stopped');
    assert.equal((await m2.done).status, 'stopped');
  });

  test('a stopped request is in the history with its reason, and counted', async () => {
    await d.idle();
    const m = await speakWaiting({ text: `${LONG} History.` });
    await heard(m.id);
    await d.api('POST', '/v1/stop', { scope: 'id', id: m.id });
    assert.equal((await m.done).status, 'stopped');
    const s = await d.api('GET', '/v1/status');
    const stopped = s.body.history.filter((h: any) => h.outcome === 'stopped');
    assert.ok(stopped.some((h: any) => h.id === m.id));
    for (const h of stopped) assert.match(h.reason, /^stopped \((current|all|session|id)\)$/);
    assert.ok(s.body.counters.interrupted >= stopped.length);
  });
});
