/**
 * The journal end to end (real voxd, real-time file sink, real HTTP, the real
 * `vox` binary): `kill -9` mid-sentence with 20 callers waiting, `vox daemon
 * restart` with 5 queued, a request that expires while voxd is down, and a
 * torn journal tail. What is asserted is what the user gets: every request
 * ends once with its outcome, in order, the cut one resumes at its sentence,
 * nothing is spoken twice and nothing is lost. No assertion is on a duration
 * of the test itself: audio lengths are compared with the same sentences
 * synthesized by /v1/synthesize.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  http,
  removeDir,
  startDaemon,
  stopDaemonsUnder,
  tempDir,
  vox,
  waitFor,
  type Daemon,
} from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

const BYTES_PER_MS = (22050 * 2) / 1000;

/** Sentences of clearly different lengths, so that where a resume starts can be told from its length. */
const SENTENCES = [
  'This first sentence of the long announcement runs on for a while, so that there is time.',
  'Then comes a second one, shorter.',
  'The third sentence of the announcement is of middling length, and says very little.',
  'A fourth sentence, which is here to be cut or heard.',
  'And the fifth and last sentence closes the whole thing.',
];
const LONG = SENTENCES.join(' ');
/**
 * For 20 callers: long enough that 19 `vox` processes, started together on a
 * loaded machine, are all queued while it still plays.
 */
const LONGER_SENTENCES = [
  ...SENTENCES.slice(0, 4),
  'Here a sixth sentence gives the waiting callers more time to arrive.',
  'The seventh one is short.',
  'An eighth sentence of a fair length comes before the end, which is near.',
  SENTENCES[4]!,
];
const LONGER = LONGER_SENTENCES.join(' ');

function ids(d: { wavs(): string[] }): string[] {
  return d.wavs().map((f) => /^\d+-(.+)\.wav$/.exec(basename(f))![1]!);
}

/** Audio written so far to an utterance's WAV, in ms (its header is finished only at the end, so from its size). */
function writtenMs(file: string): number {
  return Math.max(0, statSync(file).size - 44) / BYTES_PER_MS;
}

async function synthesizedMs(port: number, token: string, text: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/synthesize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  assert.equal(res.status, 200);
  return wavStats(Buffer.from(await res.arrayBuffer())).durationMs;
}

/** Each sentence's length alone, in ms. */
async function sentenceMs(d: Daemon, sentences = SENTENCES): Promise<number[]> {
  const out: number[] = [];
  for (const s of sentences) out.push(await synthesizedMs(d.port, d.token, s));
  return out;
}

/**
 * Wait until the long utterance plays a sentence after the first, well inside
 * it (so that the cut sentence is known), then (after `before`) kill voxd
 * with SIGKILL. Returns the index of the sentence that was cut.
 */
async function killMidSentence(
  d: Daemon,
  id: string,
  lengths: number[],
  before?: () => Promise<unknown>,
): Promise<number> {
  const file = await waitFor(() => d.wavs().find((f) => f.includes(`-${id}.wav`)), 30_000, `${id} to start playing`);
  const bounds = lengths.map((_, i) => lengths.slice(0, i).reduce((a, b) => a + b, 0));
  const inside = (ms: number) =>
    bounds.findIndex(
      (start, i) => i >= 1 && i < lengths.length - 1 && ms > start + 400 && ms < start + lengths[i]! - 600,
    );
  await waitFor(
    () => inside(writtenMs(file)) >= 1 || undefined,
    60_000,
    'the long utterance to be inside a middle sentence',
  );
  await before?.();
  d.proc.kill('SIGKILL');
  await waitFor(() => d.proc.signalCode !== null || undefined, 10_000, 'voxd to die');
  // Where the audio stopped, read after the process is gone.
  const at = writtenMs(file);
  const cut = bounds.findIndex((start, i) => at >= start && at < start + lengths[i]!);
  assert.ok(cut >= 1, `the kill landed at ${Math.round(at)} ms, in sentence ${cut + 1}`);
  return cut;
}

/** The voxd running for `home` now (after a restart): its port, from voxd.json. */
async function current(
  home: string,
  notPid: number,
): Promise<{
  port: number;
  pid: number;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}> {
  const state = await waitFor(
    () => {
      try {
        const s = JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8'));
        return s.pid !== notPid ? s : undefined;
      } catch {
        return undefined;
      }
    },
    30_000,
    'a new voxd',
  );
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  await waitFor(
    async () => (await http(state.port, 'GET', '/v1/health').catch(() => ({ status: 0 }))).status === 200 || undefined,
    30_000,
    'the new voxd to answer',
  );
  return {
    port: state.port,
    pid: state.pid,
    api: (method, path, body) => http(state.port, method, path, { body, token }),
  };
}

async function idle(api: (m: string, p: string) => Promise<{ body: any }>): Promise<any> {
  return waitFor(
    async () => {
      const s = (await api('GET', '/v1/status')).body;
      return s.queue.length === 0 && s.playing === null ? s : undefined;
    },
    120_000,
    'voxd to go idle',
  );
}

test('kill -9 mid-sentence with 20 waiting callers: each ends once, in order, the cut one resumes at its sentence, nothing twice, nothing lost', async () => {
  const d = await startDaemon();
  const home = d.home;
  try {
    const lengths = await sentenceMs(d, LONGER_SENTENCES);
    const env = { ...d.env };
    const say = (text: string) =>
      vox(['say', '--wait', '--json', '--timeout', '300', text], { env, cwd: home, timeoutMs: 400_000 });
    // The long one first, then 19 short ones; voxd's accept order is the order to keep.
    const calls = [say(LONGER)];
    const firstId = await waitFor(
      async () => (await d.api('GET', '/v1/status')).body.playing?.id,
      30_000,
      'the long one to play',
    );
    const shorts = Array.from({ length: 19 }, (_, i) => `Waiting caller number ${i + 2} is here.`);
    for (const t of shorts) calls.push(say(t));
    const accepted = await waitFor(
      async () => {
        const s = (await d.api('GET', '/v1/status?limit=50')).body;
        if (s.playing?.id !== firstId)
          throw new Error(
            `the long one ended before the 19 others were queued (${s.queue.length} were); the machine is too slow for this test's long text`,
          );
        return s.queue.length === 19 ? s.queue.items.map((q: any) => ({ id: q.id, text: q.text })) : undefined;
      },
      120_000,
      '19 requests to be queued',
    );
    const order = [firstId, ...accepted.map((q: any) => q.id)];
    const idOf = new Map<string, string>([
      [LONGER, firstId],
      ...accepted.map((q: any) => [q.text, q.id] as [string, string]),
    ]);

    const cut = await killMidSentence(d, firstId, lengths);
    const before = ids(d);
    // The clients lose their connection, start voxd again (its settings file names the same sink) and re-send.
    const results = await Promise.all(calls);
    for (const r of results) assert.equal(r.code, 0, `vox say --wait: ${r.stderr}`);
    const outcomes = results.map((r) => JSON.parse(r.stdout.trim().split('\n').at(-1)!));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      Array(20).fill('played'),
      JSON.stringify(outcomes.map((o) => [o.status, o.reason])),
    );
    // Each caller got the outcome of its own original request (joined by request id, not played again).
    assert.deepEqual(
      outcomes.map((o) => o.id),
      [LONGER, ...shorts].map((t) => idOf.get(t)),
    );

    const after = await current(home, d.pid);
    await idle(after.api);
    const played = ids(d);
    // Before the crash: the long one, cut. After: the long one again (resumed), then the 19 in their order.
    assert.deepEqual(before, [firstId]);
    assert.deepEqual(
      played,
      [firstId, ...order],
      'each request played once, in order; the cut one twice: cut, then resumed',
    );
    // The resumed part starts at the cut sentence: its length is that of sentences cut..end, not of the whole.
    const resumedMs = wavStats(d.wavs()[1]!).durationMs;
    const expected = lengths.slice(cut).reduce((a, b) => a + b, 0);
    const whole = lengths.reduce((a, b) => a + b, 0);
    assert.ok(
      Math.abs(resumedMs - expected) < 250,
      `the resumed audio is ${Math.round(resumedMs)} ms; sentences ${cut + 1}..${lengths.length} are ${Math.round(expected)} ms (the whole is ${Math.round(whole)} ms)`,
    );
    for (const f of d.wavs().slice(1)) assert.ok(wavStats(f).rms > 0.01, `${basename(f)} is speech`);
    const history = (await after.api('GET', '/v1/status?limit=0')).body.history;
    const long = history.find((h: any) => h.id === firstId);
    assert.equal(long.outcome, 'played');
    assert.equal(long.text, LONGER);
  } finally {
    await d.stop();
    await stopDaemonsUnder(home);
    removeDir(home);
  }
});

test('vox daemon restart with 5 queued: all 5 are played after it, in order, with their priorities and sessions; a caller that waited gets the outcome', async () => {
  const d = await startDaemon();
  const home = d.home;
  try {
    const env = { ...d.env, HOME: tempDir('vox-home-') };
    const first = await d.api('POST', '/v1/speak', { text: LONG, session: 'long#1' });
    assert.equal(first.status, 202);
    await waitFor(
      async () => (await d.api('GET', '/v1/status')).body.playing?.id === first.body.id || undefined,
      30_000,
      'the long one to play',
    );
    // The first of the 5 waits for its outcome, through the real client: at the restart its
    // connection is dropped, it re-sends, and it is joined to the replayed request.
    const waiting = vox(
      ['say', '--wait', '--json', '--timeout', '120', '--priority', 'message', 'A waiting message from vox say.'],
      { env, cwd: home, timeoutMs: 200_000 },
    );
    const waitingId = await waitFor(
      async () => (await d.api('GET', '/v1/status')).body.queue.items[0]?.id,
      30_000,
      'the waiting one to be queued',
    );
    const waitingSession = (await d.api('GET', '/v1/status')).body.queue.items[0].session;
    const queued = [
      { text: 'First message from session a.', priority: 'message', session: 'a#1' },
      { text: 'Second message from session b.', priority: 'message', session: 'b#2' },
      { text: 'A text from session c.', priority: 'text', session: 'c#3' },
      { text: 'The final progress of session e.', priority: 'progress', final: true, session: 'e#5' },
    ];
    const sent: string[] = [waitingId];
    for (const q of queued) {
      const r = await d.api('POST', '/v1/speak', q);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      sent.push(r.body.id);
    }
    const r = await vox(['daemon', 'restart'], { env, cwd: home });
    assert.equal(r.code, 0, r.stderr);
    const after = await current(home, d.pid);
    const waited = await waiting;
    assert.equal(waited.code, 0, waited.stderr);
    const outcome = JSON.parse(waited.stdout.trim().split('\n').at(-1)!);
    assert.equal(outcome.id, waitingId);
    assert.equal(outcome.status, 'played');
    const status = await idle(after.api);
    queued.unshift({ text: 'A waiting message from vox say.', priority: 'message', session: waitingSession });
    const playedAfter = ids(d).slice(1);
    // The long one was cut by the restart (it resumes) or had ended; the 5 come after it, in their order.
    const expected = playedAfter[0] === first.body.id ? [first.body.id, ...sent] : sent;
    assert.deepEqual(playedAfter, expected);
    for (const [i, id] of sent.entries()) {
      const h = status.history.find((e: any) => e.id === id);
      assert.ok(h, `${id} is in the new voxd's history`);
      assert.equal(h.outcome, 'played');
      assert.equal(h.priority, queued[i]!.priority);
      assert.equal(h.session, queued[i]!.session);
      assert.equal(h.text, queued[i]!.text);
    }
  } finally {
    await d.stop();
    await stopDaemonsUnder(home);
    removeDir(home);
  }
});

test('a request whose maxAgeMs passes while voxd is down is reported expired after the restart, not spoken; a re-send learns it', async () => {
  const d = await startDaemon();
  const home = d.home;
  try {
    const lengths = await sentenceMs(d);
    const first = await d.api('POST', '/v1/speak', { text: LONG, requestId: 'journal-test-long' });
    const MAX_AGE = 2000;
    let late: any;
    let sentAt = 0;
    // Sent just before the crash: it is still queued then, and its maxAgeMs runs out while voxd is down.
    await killMidSentence(d, first.body.id, lengths, async () => {
      sentAt = Date.now();
      late = await d.api('POST', '/v1/speak', {
        text: 'This one is stale by the time voxd is back.',
        maxAgeMs: MAX_AGE,
        requestId: 'journal-test-late',
      });
    });
    assert.equal(late.status, 202);
    // voxd comes back only once the request is past its age, counted from its original accept.
    await waitFor(() => Date.now() > sentAt + MAX_AGE + 100 || undefined, 10_000, 'maxAgeMs to pass');
    const again = await startDaemon({ home });
    try {
      // Settled at the replay, before voxd served anything.
      const status = (await again.api('GET', '/v1/status')).body;
      const h = status.history.find((e: any) => e.id === late.body.id);
      assert.equal(h?.outcome, 'expired', JSON.stringify(status.history));
      assert.match(h.reason, /maxAgeMs/);
      // The long one, which had started, has no expiry: it resumes. Stopped here to save time.
      assert.equal(status.playing?.id, first.body.id);
      await again.api('POST', '/v1/stop', { scope: 'all' });
      await again.idle();
      assert.ok(!ids(again).includes(late.body.id), 'never spoken');
      // The caller re-sends (same request id, same text): it is told how its request ended.
      const resent = await again.api('POST', '/v1/speak', {
        text: 'This one is stale by the time voxd is back.',
        maxAgeMs: 1000,
        requestId: 'journal-test-late',
        wait: true,
      });
      assert.equal(resent.status, 200);
      assert.equal(resent.body.id, late.body.id);
      assert.equal(resent.body.status, 'expired');
    } finally {
      await again.stop();
    }
  } finally {
    await d.stop();
    await stopDaemonsUnder(home);
    removeDir(home);
  }
});

test('a torn journal tail (a crash during a write) is tolerated: reported in the log, the rest replayed, voxd serves', async () => {
  const d = await startDaemon();
  const home = d.home;
  const journal = join(home, 'journal.jsonl');
  try {
    const lengths = await sentenceMs(d);
    const first = await d.api('POST', '/v1/speak', { text: LONG });
    const next = await d.api('POST', '/v1/speak', { text: 'Still here after the torn write.' });
    if (process.platform !== 'win32') assert.equal(statSync(journal).mode & 0o777, 0o600);
    await killMidSentence(d, first.body.id, lengths);
    appendFileSync(journal, '{"t":"a","id":"deadbeef","kind":"speech","priority":"mess');
    const again = await startDaemon({ home });
    try {
      // The log is written asynchronously: wait for the line.
      await waitFor(
        () => /last record was cut short/.test(readFileSync(join(home, 'logs', 'voxd.log'), 'utf8')) || undefined,
        20_000,
        'the torn record to be reported in voxd.log',
      );
      // What was intact is replayed: the cut one resumes, the next one is queued behind it.
      const status = (await again.api('GET', '/v1/status')).body;
      assert.equal(status.playing?.id, first.body.id);
      assert.deepEqual(
        status.queue.items.map((q: any) => q.id),
        [next.body.id],
      );
      await again.api('POST', '/v1/stop', { scope: 'current' });
      const idle = await again.idle();
      assert.equal(idle.history.find((e: any) => e.id === next.body.id)?.outcome, 'played');
      const r = await again.api('POST', '/v1/speak', { text: 'And new speech too.', wait: true });
      assert.equal(r.body.status, 'played');
    } finally {
      await again.stop();
    }
    // A garbage file is tolerated as well.
    writeFileSync(journal, 'not a journal at all\n\u0000\u0000');
    const third = await startDaemon({ home });
    try {
      const r = await third.api('POST', '/v1/speak', { text: 'Garbage did not stop me.', wait: true });
      assert.equal(r.body.status, 'played');
      assert.ok(existsSync(journal));
    } finally {
      await third.stop();
    }
  } finally {
    await d.stop();
    await stopDaemonsUnder(home);
    removeDir(home);
  }
});
