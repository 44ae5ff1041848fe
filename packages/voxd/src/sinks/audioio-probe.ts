/**
 * Runs in its own process: opens the default output with @echogarden/audio-io,
 * as the audioio sink's worker does, and closes it again. A child, not the
 * worker, so that what ALSA prints while it fails (a page of "ALSA lib ..."
 * lines written straight to fd 2) lands in a pipe that voxd reads and drops,
 * never on voxd's stderr ahead of voxd's own error; and so that a probe that
 * finds no device leaves no audio-io thread or memory in voxd.
 * Prints one JSON line, `{"ok":true}` or `{"ok":false,"message":"..."}`.
 */
import { describe } from './audioio-ring.js';

const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

try {
  const { createAudioOutput } = await import('@echogarden/audio-io');
  const output = await createAudioOutput({ sampleRate: 22050, channelCount: 1, bufferDuration: 20 }, () => {});
  await output.dispose();
  say({ ok: true });
} catch (err) {
  say({ ok: false, message: describe(err) });
}
