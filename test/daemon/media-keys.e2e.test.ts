/**
 * Keys without a terminal (desktop/mpris.ts): against a real session bus
 * (dbus-daemon) the real voxd is the MPRIS player `vox` while it speaks, and
 * `playerctl` pause, play, next, previous and stop do what docs/keys.md says.
 * Checked through voxd's status and history and the file sink's WAVs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { needTool } from '../helpers/tools.js';
import { removeDir, startDaemon, tempDir, vox, waitFor, type Daemon } from '../helpers/daemon.js';
import { startSessionBus, type SessionBus } from '../helpers/session-bus.js';

let n = 0;
/** A long message, new each time (the duplicate filter would drop a repeat). */
const long = () =>
  `Message ${++n}: this first sentence keeps the speakers busy for a while. The second sentence follows it. ` +
  'A third sentence comes after that one. And the fourth sentence ends the message.';
const skip = needTool('dbus-daemon') || needTool('playerctl');

describe('MPRIS: media keys through playerctl on a real session bus', { skip }, () => {
  let d: Daemon;
  let bus: SessionBus;
  let dir: string;
  const status = async () => (await d.api('GET', '/v1/status')).body;
  const outcome = async (id: string) => (await status()).history.find((h: { id: string }) => h.id === id)?.outcome;
  const wavsOf = (id: string) => d.wavs().filter((f) => f.endsWith(`-${id}.wav`));
  const speak = async (text: string) => {
    const r = await d.api('POST', '/v1/speak', { text, session: 'api#1a2b3c', priority: 'message' });
    assert.equal(r.status, 202);
    return r.body.id as string;
  };
  const playing = (id: string) =>
    waitFor(async () => (await status()).playing?.id === id || undefined, 20_000, `${id} to play`);

  before(async () => {
    dir = tempDir('vox-bus-');
    bus = await startSessionBus(dir);
    d = await startDaemon({ env: { DBUS_SESSION_BUS_ADDRESS: bus.address, VOXD_QUIET_MICROPHONE: 'off' } });
  });
  after(async () => {
    await d?.stop();
    await bus?.close();
    removeDir(dir);
    if (d) removeDir(d.home);
  });

  test('before any speech vox is not on the bus; with speech it is, and says Playing', async () => {
    assert.equal((await status()).quiet.mpris.served, false);
    assert.throws(() => bus.playerctl('status'), /No players found/);
    const id = await speak(long());
    await playing(id);
    // voxd comes onto the bus a moment after the speech starts: until then playerctl finds no player.
    const onBus = () => {
      try {
        return bus.playerctl('status') === 'Playing' || undefined;
      } catch {
        return undefined;
      }
    };
    await waitFor(onBus, 20_000, 'playerctl status Playing');
    assert.equal((await status()).quiet.mpris.served, true);
    assert.match(bus.playerctl('metadata', 'xesam:title'), /^Message \d+: this first sentence/);
    const doctor = await vox(['doctor'], { env: { ...d.env, VOX_NO_AUTOSTART: '1' }, timeoutMs: 60_000 });
    assert.match(doctor.stdout, /media keys.*serving org\.mpris\.MediaPlayer2\.vox/);
    await d.api('POST', '/v1/stop', { scope: 'all' });
    await d.idle();
  });

  // xml2js, which builds the answer, loads only now (lazy-requires.ts): the answer must still be whole.
  test('a desktop that asks for introspection data gets the player interfaces', { skip: needTool('dbus-send') }, () => {
    const r = spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.mpris.MediaPlayer2.vox',
        '/org/mpris/MediaPlayer2',
        'org.freedesktop.DBus.Introspectable.Introspect',
      ],
      { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address }, encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /<interface name="org\.mpris\.MediaPlayer2">/);
    assert.match(r.stdout, /<interface name="org\.mpris\.MediaPlayer2\.Player">/);
    assert.match(r.stdout, /<method name="PlayPause"/);
    assert.match(r.stdout, /<property name="PlaybackStatus" type="s" access="read"/);
  });

  test('pause holds speech (cut, to resume), play resumes it from its sentence', async () => {
    const id = await speak(long());
    await playing(id);
    await waitFor(() => wavsOf(id).length || undefined, 20_000, 'its audio at the sink');
    bus.playerctl('pause');
    const held = await waitFor(async () => {
      const s = await status();
      return s.quiet.held && s.playing === null ? s : undefined;
    });
    assert.deepEqual(
      held.quiet.reasons.map((r: { reason: string }) => r.reason),
      ['paused'],
    );
    assert.equal(held.queue.items[0].id, id, 'the utterance cut waits at the head of the queue');
    assert.equal(bus.playerctl('status'), 'Paused');
    const shown = await vox(['status'], { env: { ...d.env, VOX_NO_AUTOSTART: '1' }, timeoutMs: 30_000 });
    assert.match(shown.stdout, /^held: {3}paused by a media key \(MPRIS\)$/m);
    // Something new queues meanwhile, and does not start.
    const later = await speak('Queued while paused.');
    assert.equal((await status()).playing, null);
    bus.playerctl('play');
    await waitFor(async () => ((await outcome(id)) === 'played' ? true : undefined), 60_000, 'the resumed one');
    await waitFor(async () => ((await outcome(later)) === 'played' ? true : undefined), 60_000, 'the later one');
    assert.equal(wavsOf(id).length, 2, 'played in two passes: before the pause and after it');
    assert.equal((await status()).quiet.held, false);
  });

  test('play-pause toggles; next skips the utterance playing, and the next one plays', async () => {
    const first = await speak(long());
    const second = await speak('The second message.');
    await playing(first);
    bus.playerctl('next');
    await playing(second);
    assert.equal(await outcome(first), 'stopped');
    await waitFor(async () => ((await outcome(second)) === 'played' ? true : undefined), 60_000, 'the second');
    bus.playerctl('play-pause');
    await waitFor(async () => ((await status()).quiet.held ? true : undefined));
    bus.playerctl('play-pause');
    await waitFor(async () => ((await status()).quiet.held ? undefined : true));
  });

  test('previous plays the last utterance again, with the same audio', async () => {
    const id = await speak('Say this twice.');
    await waitFor(async () => ((await outcome(id)) === 'played' ? true : undefined), 60_000, 'the first play');
    const before = d.wavs().length;
    bus.playerctl('previous');
    const again = await waitFor(() => (d.wavs().length > before ? d.wavs().at(-1) : undefined), 20_000, 'a replay');
    await d.idle();
    assert.ok(readFileSync(again!).equals(readFileSync(wavsOf(id)[0]!)), 'the replay is the same audio');
  });

  test('stop stops everything queued and playing, and ends a pause', async () => {
    const first = await speak(long());
    const second = await speak('Never heard.');
    await playing(first);
    bus.playerctl('pause');
    await waitFor(async () => ((await status()).quiet.held ? true : undefined));
    bus.playerctl('stop');
    await waitFor(async () => ((await outcome(second)) === 'stopped' ? true : undefined));
    assert.equal(await outcome(first), 'stopped');
    const s = await d.idle();
    assert.equal(s.quiet.held, false);
    assert.equal(wavsOf(second).length, 0, 'the queued one never reached the sink');
  });
});
