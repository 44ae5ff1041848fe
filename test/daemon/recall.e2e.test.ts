/**
 * Nothing missed is lost (dispatch/recall.ts): `vox recap` says what was
 * dropped, once, grouped by session, and a second recap says nothing new;
 * what was stopped is not missed. `vox replay` plays the last utterance
 * again with the very audio of its first play (the file sink's WAVs are
 * byte-identical: from the cache, not synthesized again), and `vox history`
 * lists it. All of it after a `kill -9` of voxd too. Real voxd, real HTTP,
 * the real `vox`, the file sink and the repo's WAV reader.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { wavStats } from '../helpers/wav.js';
import { removeDir, startDaemon, vox, waitFor, type Daemon } from '../helpers/daemon.js';

const LONG = 'This message is long enough to keep the speakers busy for a few seconds while others arrive.';

describe('vox recap, vox replay and vox history, across a kill -9', () => {
  let d: Daemon;
  const run = async (args: string[]) => {
    const r = await vox(args, { env: { ...d.env, VOX_NO_AUTOSTART: '1' }, timeoutMs: 30_000 });
    assert.equal(r.code, 0, `vox ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const json = async (args: string[]) => JSON.parse(await run([...args, '--json']));
  /** While LONG plays, notifications from `sessions` arrive and are dropped: missed. */
  async function missWhileBusy(sessions: Array<[string, string]>): Promise<void> {
    const busy = await d.api('POST', '/v1/speak', { text: LONG, session: 'ops#000001' });
    assert.equal(busy.status, 202);
    await waitFor(async () => (await d.api('GET', '/v1/status')).body.playing?.id === busy.body.id || undefined);
    for (const [session, text] of sessions) {
      const r = await d.api('POST', '/v1/speak', { text, session, priority: 'notification' });
      assert.equal(r.body.status, 'dropped', text);
    }
    // Stopped by the person: heard enough, not missed.
    await run(['stop', '--all']);
    await d.idle();
  }
  const outcomeOf = async (id: string) =>
    (await d.api('GET', '/v1/status')).body.history.find((h: { id: string }) => h.id === id)?.outcome;
  const wavOf = (id: string) => d.wavs().find((f) => f.endsWith(`-${id}.wav`));

  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
  });

  test('a recap says each missed item once, grouped by session, newest last; a second says nothing new', async () => {
    await missWhileBusy([
      ['web#1f2e3d', 'Web finished the migration.'],
      ['api#9a1b2c', 'Api needs a review.'],
      ['web#1f2e3d', 'Web deployed to staging.'],
    ]);
    const history = await json(['history']);
    assert.equal(history.missed, 3);
    const first = await json(['recap', '--wait']);
    assert.equal(first.status, 'played');
    assert.equal(first.items, 3);
    assert.equal(first.sessions, 2);
    assert.equal(
      first.text,
      'You missed 3 things. From api: Api needs a review. From web: Web finished the migration. Web deployed to staging.',
    );
    assert.ok(wavStats(wavOf(first.id)!).durationMs > 0, 'the recap was heard at the sink');
    const second = await json(['recap', '--wait']);
    assert.equal(second.items, 0);
    assert.equal(second.text, 'Nothing new since the last recap.');
  });

  test('what was cut by more important speech or expired before it started is missed', async () => {
    // A notification playing is cut (outcome interrupted) by an important one; a message that may wait 1 ms,
    // sent while the important one plays (nothing cuts that), expires.
    const cut = await d.api('POST', '/v1/speak', { text: LONG, session: 'ops#000001', priority: 'notification' });
    const playing = async (id: string) => (await d.api('GET', '/v1/status')).body.playing?.id === id || undefined;
    await waitFor(() => playing(cut.body.id));
    const urgent = await d.api('POST', '/v1/speak', {
      text: `Api tests failed. ${LONG}`,
      session: 'api#9a1b2c',
      priority: 'important',
    });
    await waitFor(() => playing(urgent.body.id));
    const stale = await d.api('POST', '/v1/speak', { text: 'Docs is waiting.', session: 'docs#4d5e6f', maxAgeMs: 1 });
    await d.idle();
    assert.equal(await outcomeOf(urgent.body.id), 'played');
    assert.equal(await outcomeOf(cut.body.id), 'interrupted');
    assert.equal(await outcomeOf(stale.body.id), 'expired');
    const r = await json(['recap', '--wait']);
    assert.equal(r.items, 2, r.text);
    assert.equal(r.text, `You missed 2 things. From ops: ${LONG} From docs: Docs is waiting.`);
  });

  test('past the cap, the newest are said and the rest counted', async () => {
    await missWhileBusy(Array.from({ length: 14 }, (_, i): [string, string] => ['web#1f2e3d', `Item ${i + 1} done.`]));
    const r = await json(['recap']);
    assert.equal(r.items, 14);
    assert.match(r.text, /^You missed 14 things\. From web: Item 5 done\. .* Item 14 done\. And 4 more\.$/);
    await d.idle();
  });

  test('replay plays the last utterance again, byte for byte; history numbers it', async () => {
    const said = await json(['say', 'The build is green again.', '--wait']);
    assert.equal(said.status, 'played');
    const history = await json(['history', '-n', '5']);
    assert.equal(history.entries[0].id, said.id);
    assert.equal(history.entries[0].replay, 1);
    const again = await json(['replay', '--wait']);
    assert.equal(again.status, 'played');
    assert.equal(again.of, said.id);
    const [a, b] = [readFileSync(wavOf(said.id)!), readFileSync(wavOf(again.id)!)];
    assert.ok(wavStats(a).frames > 0);
    assert.ok(a.equals(b), 'the replay is the same audio');
    // The replay itself is not history: the same utterance is number 1 still.
    assert.equal((await json(['history', '-n', '1'])).entries[0].id, said.id);
  });

  test('after kill -9 and a restart: history, replay and the recap mark are kept, and what was missed since', async () => {
    await missWhileBusy([['api#9a1b2c', 'Api tests failed twice.']]);
    const said = (await json(['history', '-n', '20'])).entries.find((e: { replay?: number }) => e.replay === 1);
    d.proc.kill('SIGKILL');
    await waitFor(() => d.proc.signalCode !== null || undefined, 10_000, 'voxd to die');
    const home = d.home;
    d = await startDaemon({ home });
    const history = await json(['history', '-n', '20']);
    assert.equal(history.missed, 1);
    assert.deepEqual(
      history.entries.find((e: { replay?: number }) => e.replay === 1),
      said,
      'the last played is the same',
    );
    const again = await json(['replay', '--wait']);
    assert.equal(again.status, 'played');
    assert.equal(again.of, said.id);
    const first = d.wavs().find((f) => f.endsWith(`-${said.id}.wav`))!;
    assert.ok(readFileSync(first).equals(readFileSync(wavOf(again.id)!)), 'the same audio, from the cache');
    const recap = await json(['recap', '--wait']);
    assert.equal(recap.text, 'You missed one thing. From api: Api tests failed twice.');
    assert.equal((await json(['recap'])).text, 'Nothing new since the last recap.');
  });

  test('replay of a number beyond what is kept: 404 VOX_ERR_REPLAY_NONE, nothing played', async () => {
    const r = await vox(['replay', '999'], { env: { ...d.env, VOX_NO_AUTOSTART: '1' } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /VOX_ERR_REPLAY_NONE/);
  });
});
