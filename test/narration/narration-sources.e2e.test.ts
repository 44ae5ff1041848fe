/**
 * One reply, two paths (real voxd, real HTTP, the file sink): in Claude Code
 * the vox mod (`source: mod`, from `turn.step`) and vox mcp (MessageDisplay
 * or the transcript) may both send a turn's text, under different message
 * ids. The first source of a turn narrates it; the other's batches are
 * dropped with why, so each text is spoken once and in order; after a cut
 * (a new prompt) the next turn goes to whichever sends first. The mod's
 * batches are taken only for a session its vox mcp declared narrating.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { startDaemon, stopDaemonsUnder, waitFor, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

function batch(d: Daemon, source: string | undefined, message: string, index: number, delta: string, final = false) {
  return d.api('POST', '/v1/narration', {
    session: 'shop#5e55',
    message,
    index,
    final,
    delta,
    ...(source ? { source } : {}),
  });
}

async function settledOfSession(d: Daemon, n: number): Promise<any[]> {
  return waitFor(
    async () => {
      const h = (await d.api('GET', '/v1/status')).body.history.filter((e: any) => e.session === 'shop#5e55');
      return h.length >= n && h.every((e: any) => !['queued', 'playing'].includes(e.outcome)) ? h : undefined;
    },
    60_000,
    `${n} narrations of the session to settle`,
  );
}

const playedMs = (d: Daemon, id: string) =>
  d
    .wavs()
    .filter((f) => basename(f).endsWith(`-${id}.wav`))
    .reduce((n, f) => n + wavStats(f).durationMs, 0);

test('a turn sent by the mod and by vox mcp is spoken once, in order, from the first; a cut hands the next turn on', async (t) => {
  const d = await startDaemon();
  t.after(() => stopDaemonsUnder(d.home));
  // The session's vox mcp declared it narrating (at its prompt): the mod's batches are taken for it.
  assert.equal((await d.api('POST', '/v1/narration/session', { session: 'shop#5e55', narrates: true })).status, 200);
  const first = 'The mod saw this sentence first.\nThen it saw a second one,';
  const rest = ' and the turn ends here.\n';
  const mod0 = await batch(d, 'mod', 'step-1', 0, first);
  assert.equal(mod0.body.status, 'queued');
  // vox mcp's MessageDisplay batch of the same text, under its own message id: dropped, with why.
  const md0 = await batch(d, undefined, 'msg_01', 0, first);
  assert.equal(md0.status, 200);
  assert.equal(md0.body.status, 'dropped');
  assert.match(md0.body.reason, /narrated from the vox mod/);
  assert.equal((await batch(d, 'mcp', 'msg_01', 1, rest, true)).body.status, 'dropped');
  const mod1 = await batch(d, 'mod', 'step-1', 1, rest, true);
  assert.deepEqual({ id: mod1.body.id, status: mod1.body.status }, { id: mod0.body.id, status: 'queued' });

  const [h] = await settledOfSession(d, 1);
  assert.equal(h.id, mod0.body.id);
  assert.equal(h.outcome, 'played');
  assert.equal(h.text, 'The mod saw this sentence first. Then it saw a second one, and the turn ends here.');
  assert.ok(playedMs(d, h.id) > 0, 'the narration was heard at the sink');
  assert.ok(
    d.wavs().every((f) => basename(f).endsWith(`-${h.id}.wav`)),
    'nothing else was spoken',
  );

  // A new prompt: this time vox mcp sends first, and the mod's copy is the one dropped.
  assert.equal((await d.api('POST', '/v1/narration/cut', { session: 'shop#5e55' })).status, 200);
  const md = await batch(d, 'mcp', 'msg_02', 0, 'A second turn, from MessageDisplay.\n', true);
  assert.equal(md.body.status, 'queued');
  const mod = await batch(d, 'mod', 'step-2', 0, 'A second turn, from MessageDisplay.\n', true);
  assert.equal(mod.body.status, 'dropped');
  assert.match(mod.body.reason, /narrated from vox mcp/);
  const all = await settledOfSession(d, 2);
  assert.deepEqual(
    all.map((e: any) => e.text).sort(),
    ['A second turn, from MessageDisplay.', h.text].sort(),
    'each text once',
  );
});
