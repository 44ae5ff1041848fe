/**
 * One microphone, shared (issue 20 items 3 and 4): the real voxd, the recorder
 * shim test/fixtures/listen/arecord playing sentence.wav, and the stand-in
 * transcriber on 127.0.0.1. Listens queue first come, first served for their
 * waitMs; a conversation keeps the floor for its follow-up and hands it on
 * (release, or idle expiry); a barge-in cuts the speech playing and takes the
 * floor. Order is proved by the answers' order and each listen's waitedMs,
 * never by a duration budget.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRunning, removeDir, startDaemon, tempDir, VOX, vox, waitFor, type Daemon } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { micEnv, micPid as shimPid, setMic } from '../helpers/recorder-shim.js';
import { wavStats } from '../helpers/wav.js';

const TRANSCRIPT = 'Please turn on the lights in the kitchen.';
const LONG =
  'This announcement is long on purpose, so that a barge-in can cut it while it plays. ' +
  'It goes on with a second sentence about nothing in particular, and a third one closes it.';

let api: TranscriptionApi;
let d: Daemon;
let dir: string;

function mic(settings: { leadMs?: number } = {}): void {
  setMic(dir, settings);
}

function micPid(): Promise<number> {
  return shimPid(dir);
}

const status = async () => (await d.api('GET', '/v1/status')).body;
/** Waits until GET /v1/status's `listening` satisfies `ok`. */
const listening = (ok: (l: any) => boolean, what: string) =>
  waitFor(async () => ((l) => (ok(l) ? l : undefined))((await status()).listening), 20_000, what);

/** A listen answered in order: its body and the order it came back in. */
function timed(order: string[], name: string, body: object): Promise<any> {
  return d.api('POST', '/v1/listen', body).then((r) => {
    order.push(name);
    return r;
  });
}

before(async () => {
  api = await startTranscriptionApi();
  api.mode = { kind: 'ok', text: TRANSCRIPT };
  dir = tempDir('vox-floor-');
  d = await startDaemon({
    home: dir,
    env: micEnv(dir, { VOXD_TRANSCRIBER_URL: api.url }),
  });
});
after(async () => {
  await d?.stop();
  await api?.close();
  removeDir(dir);
});

describe('the queue', () => {
  test('listeners queued behind another get the microphone after it, in order; status shows holder, queue and open', async () => {
    mic();
    const order: string[] = [];
    // Who holds the microphone while recording, as status says, in the order seen.
    const holders: string[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const l = (await status()).listening;
        if (l?.open && holders.at(-1) !== l.session) holders.push(l.session);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    const a = timed(order, 'a', { session: 'a#1', silenceMs: 700, prompt: false });
    await listening((l) => l?.session === 'a#1' && l.open === true, 'a to record');
    const b = timed(order, 'b', { session: 'b#1', silenceMs: 700, prompt: false, waitMs: 60_000 });
    await listening((l) => l.queued === 1, 'b to queue');
    const c = timed(order, 'c', { session: 'c#1', silenceMs: 700, prompt: false, waitMs: 60_000 });
    const held = await listening((l) => l.queued === 2, 'c to queue');
    assert.equal(held.session, 'a#1', 'a holds it while b and c wait');
    assert.equal(held.open, true);
    const shown = await vox(['status'], { env: d.env });
    assert.match(shown.stdout, /mic: +held by session a#1 \(listen-[0-9a-f]+\), open, 2 waiting/);
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    watching = false;
    await watch;
    for (const r of [ra, rb, rc]) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.endedBy, 'silence');
      assert.equal(r.body.text, TRANSCRIPT, 'each queued listen recorded the sentence itself');
    }
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(holders, ['a#1', 'b#1', 'c#1'], 'the microphone went to each in turn');
    assert.ok(
      ra.body.waitedMs < rb.body.waitedMs && rb.body.waitedMs < rc.body.waitedMs,
      `waited ${ra.body.waitedMs}, ${rb.body.waitedMs}, ${rc.body.waitedMs}`,
    );
    // c queued while a recorded, and waited through all of b's recording too.
    assert.ok(
      rc.body.waitedMs >= rb.body.durationMs,
      `c waited ${rc.body.waitedMs} ms, b recorded ${rb.body.durationMs} ms`,
    );
    assert.equal((await status()).listening, null, 'free again');
  });

  test('waitMs expiry is a clear 409; waitMs 0 refuses at once; a queued client that hangs up leaves the queue', async () => {
    mic({ leadMs: 30_000 });
    const a = d.api('POST', '/v1/listen', { session: 'holder#1', startTimeoutMs: 60_000, prompt: false });
    const pid = await micPid();
    const late = await d.api('POST', '/v1/listen', { session: 'late#1', waitMs: 700 });
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, 'VOX_ERR_LISTEN_WAIT_EXPIRED');
    assert.match(
      late.body.message,
      /Waited 700 ms \(waitMs\) for the microphone, held by session holder#1, with 0 listen\(s\) ahead/,
    );
    const now = await d.api('POST', '/v1/listen', { waitMs: 0 });
    assert.equal(now.body.code, 'VOX_ERR_LISTEN_BUSY');
    assert.equal((await status()).listening.queued, 0, 'neither stayed queued');

    const req = request({
      host: '127.0.0.1',
      port: d.port,
      method: 'POST',
      path: '/v1/listen',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ session: 'gone#1', waitMs: 60_000 }));
    await listening((l) => l.queued === 1, 'the client to queue');
    req.destroy();
    await listening((l) => l.queued === 0, 'the client that hung up to leave the queue');
    assert.ok(isRunning(pid), 'the holder records on');

    // POST /v1/stop ends queued listens too, as "stopped".
    const queued = d.api('POST', '/v1/listen', { session: 'queued#1', waitMs: 60_000 });
    await listening((l) => l.queued === 1, 'a listen to queue');
    const stop = await d.api('POST', '/v1/stop', { scope: 'session', session: 'queued#1' });
    assert.equal(stop.body.stopped.length, 1);
    const q = await queued;
    assert.equal(q.status, 200);
    assert.equal(q.body.endedBy, 'stopped');
    assert.match(q.body.reason, /stopped while waiting/);
    assert.ok(isRunning(pid), 'stopping a queued listen leaves the holder');
    await d.api('POST', '/v1/stop', {});
    assert.equal((await a).body.endedBy, 'stopped');
  });
});

describe('speech and the queue', () => {
  test('speech sent during a listen plays before the next queued listen records: it is never recorded, nor held for the whole queue', async () => {
    mic();
    const a = d.api('POST', '/v1/listen', { session: 'first#5', silenceMs: 700, prompt: false });
    await listening((l) => l?.session === 'first#5' && l.open, 'the first to record');
    const speak = d.api('POST', '/v1/speak', { text: 'Said between two listens.', session: 'speaker#5', wait: true });
    await waitFor(async () => ((await status()).queue.length === 1 ? true : undefined), 10_000, 'the speech to queue');
    const b = d.api('POST', '/v1/listen', { session: 'second#5', silenceMs: 700, prompt: false });
    await listening((l) => l.queued === 1, 'the second listen to queue');
    const [ra, spoken, rb] = await Promise.all([a, speak, b]);
    assert.equal(ra.body.endedBy, 'silence');
    assert.equal(spoken.body.status, 'played');
    assert.equal(rb.body.text, TRANSCRIPT);
    const entry = (await status()).history.find((h: any) => h.id === spoken.body.id);
    const bStarted = Number(readFileSync(join(dir, 'mic.pid'), 'utf8').trim().split(' ')[1]);
    assert.ok(
      bStarted >= Date.parse(entry.finishedAt) - 50,
      `the second recorder started ${Date.parse(entry.finishedAt) - bStarted} ms before the speech ended`,
    );
  });
});

describe('the queue, pushed', () => {
  test('forty listens queued at once: each is answered (WAIT_EXPIRED, none lost or left queued), and the holder records on', async () => {
    mic({ leadMs: 30_000 });
    const holder = d.api('POST', '/v1/listen', { session: 'holder#2', startTimeoutMs: 60_000, prompt: false });
    const pid = await micPid();
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        d.api('POST', '/v1/listen', { session: `flood#${i}`, waitMs: 1500, prompt: false }),
      ),
    );
    assert.deepEqual([...new Set(many.map((r) => r.body.code))], ['VOX_ERR_LISTEN_WAIT_EXPIRED']);
    for (const r of many) assert.match(r.body.message, /held by session holder#2/);
    const l = (await status()).listening;
    assert.equal(l.session, 'holder#2');
    assert.equal(l.queued, 0);
    assert.ok(isRunning(pid));
    const bigWait = await d.api('POST', '/v1/listen', { waitMs: 300_001 });
    assert.equal(bigWait.status, 400, 'waitMs is capped');
    assert.match(bigWait.body.message, /waitMs/);
    await d.api('POST', '/v1/stop', {});
    assert.equal((await holder).body.endedBy, 'stopped');
  });
});

describe('keeping the floor', () => {
  test('a conversation keeps the floor for its follow-up: it goes before a listen that queued meanwhile', async () => {
    mic();
    const order: string[] = [];
    const first = await d.api('POST', '/v1/listen', {
      session: 'talk#1',
      silenceMs: 700,
      prompt: false,
      keepFloor: true,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.match(first.body.floor.token, /^floor-[0-9a-f-]{36}$/);
    assert.equal(first.body.floor.idleMs, 10_000);
    const kept = (await status()).listening;
    assert.equal(kept.session, 'talk#1');
    assert.equal(kept.open, false, 'kept, not recording');
    assert.ok(kept.kept.expiresInMs > 0 && kept.kept.expiresInMs <= 10_000);
    const other = timed(order, 'other', { session: 'other#1', silenceMs: 700, prompt: false });
    await listening((l) => l.queued === 1, 'the other to queue');
    // Speech is not held by a kept floor: the conversation says its next question.
    const said = await d.api('POST', '/v1/speak', { text: 'And which room?', session: 'talk#1', wait: true });
    assert.equal(said.body.status, 'played');
    const follow = await timed(order, 'follow-up', {
      session: 'talk#1',
      silenceMs: 700,
      prompt: false,
      floorToken: first.body.floor.token,
    });
    assert.equal(follow.status, 200, JSON.stringify(follow.body));
    assert.equal(follow.body.text, TRANSCRIPT);
    assert.equal(follow.body.floor, undefined, 'not kept again unless asked');
    const o = await other;
    assert.equal(o.status, 200);
    assert.deepEqual(order, ['follow-up', 'other']);
    assert.ok(o.body.waitedMs >= follow.body.durationMs, 'the other recorded after the follow-up');
    // The token is spent.
    assert.deepEqual((await d.api('POST', '/v1/listen/release', { token: first.body.floor.token })).body, {
      released: false,
    });
  });

  test('a kept floor left idle expires and passes to the next in line; a lapsed token just queues', async () => {
    mic();
    const first = await d.api('POST', '/v1/listen', {
      session: 'idle#1',
      silenceMs: 700,
      prompt: false,
      keepFloor: true,
      floorIdleMs: 1500,
    });
    assert.equal(first.body.floor.idleMs, 1500);
    const answeredAt = Date.now();
    const other = await d.api('POST', '/v1/listen', { session: 'next#1', silenceMs: 700, prompt: false });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    // It could not start before the idle expiry (counted from the first listen's answer).
    assert.ok(
      Date.now() - answeredAt >= 1500 + other.body.durationMs - 100,
      `the next listen began ${Date.now() - answeredAt - other.body.durationMs} ms after`,
    );
    assert.ok(other.body.waitedMs >= 1300, `waited ${other.body.waitedMs}`);
    const lapsed = await d.api('POST', '/v1/listen', {
      session: 'idle#1',
      silenceMs: 700,
      prompt: false,
      floorToken: first.body.floor.token,
    });
    assert.equal(lapsed.status, 200, 'a lapsed token is an ordinary listen');
    assert.equal(lapsed.body.text, TRANSCRIPT);
  });

  test('a keepFloor listen that fails (the transcriber answers 500) or whose client hangs up hands the floor on: nothing stays kept', async () => {
    mic();
    api.mode = { kind: 'status', status: 500, body: { error: { message: 'model not loaded' } } };
    try {
      const failed = await d.api('POST', '/v1/listen', {
        session: 'fail#1',
        silenceMs: 700,
        prompt: false,
        keepFloor: true,
        floorIdleMs: 60_000,
      });
      assert.equal(failed.body.code, 'VOX_ERR_TRANSCRIBER_FAILED');
      assert.equal((await status()).listening, null, 'not kept after a failure');
    } finally {
      api.mode = { kind: 'ok', text: TRANSCRIPT };
    }
    mic();
    const req = request({
      host: '127.0.0.1',
      port: d.port,
      method: 'POST',
      path: '/v1/listen',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ session: 'leaver#1', prompt: false, keepFloor: true, floorIdleMs: 60_000 }));
    await listening((l) => l?.session === 'leaver#1' && l.open, 'the leaver to record');
    req.destroy();
    await waitFor(async () => ((await status()).listening === null ? true : undefined), 20_000, 'the floor to be free');
    assert.equal((await status()).listening, null, 'not kept for a client that went away');
  });

  test('hand-off: POST /v1/listen/release gives the kept floor to the listen waiting; a bad token is a 400', async () => {
    mic();
    const first = await d.api('POST', '/v1/listen', {
      session: 'hand#1',
      silenceMs: 700,
      prompt: false,
      keepFloor: true,
      floorIdleMs: 60_000,
    });
    const waiting = d.api('POST', '/v1/listen', { session: 'taker#1', silenceMs: 700, prompt: false });
    await listening((l) => l.queued === 1 && l.session === 'hand#1', 'the taker to queue behind the kept floor');
    const r = await d.api('POST', '/v1/listen/release', { token: first.body.floor.token });
    assert.deepEqual(r.body, { released: true });
    const taken = await listening((l) => l.session === 'taker#1', 'the taker to hold the microphone');
    assert.equal(taken.queued, 0);
    assert.equal((await waiting).body.text, TRANSCRIPT);
    const again = await d.api('POST', '/v1/listen/release', { token: first.body.floor.token });
    assert.deepEqual(again.body, { released: false }, 'twice is harmless');
    const bad = await d.api('POST', '/v1/listen/release', { token: 'not-a-token' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /token/);
  });
});

describe('barge-in', () => {
  test("bargeIn cuts the speech playing (the file sink's WAV stops short; outcome interrupted) and takes a kept floor", async () => {
    // The full utterance, for its length at the sink.
    const before = new Set(d.wavs());
    const full = await d.api('POST', '/v1/speak', { text: LONG, wait: true });
    assert.equal(full.body.status, 'played');
    const fullWav = d.wavs().find((w) => !before.has(w))!;
    const fullMs = wavStats(fullWav).durationMs;

    mic();
    const kept = await d.api('POST', '/v1/listen', {
      session: 'keeper#1',
      silenceMs: 700,
      prompt: false,
      keepFloor: true,
      floorIdleMs: 60_000,
    });
    assert.ok(kept.body.floor.token);
    const seen = new Set(d.wavs());
    // Not the same text (it would be deduplicated).
    const speaking = d.api('POST', '/v1/speak', { text: `Once more. ${LONG}`, session: 'keeper#1', wait: true });
    await waitFor(async () => ((await status()).playing ? true : undefined), 10_000, 'speech to play');
    await new Promise((r) => setTimeout(r, 500));
    const barged = d.api('POST', '/v1/listen', { session: 'user#1', silenceMs: 700, prompt: false, bargeIn: true });
    const cut = await speaking;
    assert.equal(cut.body.status, 'interrupted');
    assert.match(cut.body.reason, /cut by a listen \(session user#1\)/);
    const cutWav = d.wavs().find((w) => !seen.has(w))!;
    const cutMs = wavStats(cutWav).durationMs;
    assert.ok(cutMs < fullMs / 2, `the sink got ${cutMs} ms of a ${fullMs} ms utterance`);
    const r = await barged;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.text, TRANSCRIPT);
    assert.deepEqual(
      (await d.api('POST', '/v1/listen/release', { token: kept.body.floor.token })).body,
      { released: false },
      'the barge-in took the kept floor',
    );
  });
});

describe('clients', () => {
  test('vox listen --keep-floor prints the token; --release hands it on; --wait 0 is refused with exit 4', async () => {
    mic();
    const kept = await vox(['listen', '--silence', '700', '--no-prompt', '--keep-floor', '--floor-idle', '30000'], {
      env: d.env,
    });
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(kept.stdout, `${TRANSCRIPT}\n`);
    const token = /--floor (floor-[0-9a-f-]{36})/.exec(kept.stderr)?.[1];
    assert.ok(token, kept.stderr);
    assert.match(kept.stderr, /floor kept for 30 s idle/);
    const busy = await vox(['listen', '--wait', '0', '--no-prompt'], { env: d.env });
    assert.equal(busy.code, 4);
    assert.match(busy.stderr, /VOX_ERR_LISTEN_BUSY/);
    const released = await vox(['listen', '--release', token!], { env: d.env });
    assert.equal(released.code, 0, released.stderr);
    assert.match(released.stderr, /floor handed on/);
    assert.equal((await status()).listening, null);
    const again = await vox(['listen', '--release', token!, '--json'], { env: d.env });
    assert.deepEqual(JSON.parse(again.stdout), { released: false });
    const bad = await vox(['listen', '--release', 'nope'], { env: d.env });
    assert.equal(bad.code, 4);
    assert.match(bad.stderr, /--release \(field "token"\)/);
  });

  test("the MCP tools through the SDK's real Client: listen keeps the floor, converse uses it as its follow-up", async () => {
    const project = tempDir('vox-floor-project-');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [VOX, 'mcp'],
      cwd: project,
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'vox-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      mic();
      const first = (await client.callTool(
        { name: 'listen', arguments: { silenceMs: 700, keepFloor: true } },
        undefined,
        { timeout: 60_000 },
      )) as CallToolResult;
      assert.equal(first.isError, undefined, JSON.stringify(first.content));
      const floor = (first.structuredContent as any).floor;
      assert.match(floor.token, /^floor-/);
      const other = d.api('POST', '/v1/listen', { session: 'other#9', silenceMs: 700, prompt: false });
      await listening((l) => l.queued === 1, 'another session to queue behind the kept floor');
      const order: string[] = [];
      void other.then(() => order.push('other'));
      const turn = (await client.callTool(
        { name: 'converse', arguments: { text: 'Which room?', silenceMs: 700, floorToken: floor.token } },
        undefined,
        { timeout: 60_000 },
      )) as CallToolResult;
      order.push('converse');
      assert.equal(turn.isError, undefined, JSON.stringify(turn.content));
      assert.equal((turn.structuredContent as any).text, TRANSCRIPT);
      assert.equal((await other).status, 200);
      assert.deepEqual(order, ['converse', 'other'], 'the follow-up went before the session that queued');
    } finally {
      await client.close();
      removeDir(project);
    }
  });
});
