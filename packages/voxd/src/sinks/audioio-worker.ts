/**
 * Worker thread of the `audioio` sink: owns one `@echogarden/audio-io` output
 * at a time. The device thread calls `fill` for each buffer it needs; `fill`
 * copies PCM from a ring in shared memory that voxd's main thread writes.
 *
 * Why a worker and not voxd's main thread: `fill` may block. On a device that
 * does not pace (ALSA's null device, which the tests capture from), the
 * callback runs back to back; on the main thread it could only pad with
 * silence, thousands of times a second. Here it waits (Atomics.wait) for the
 * main thread's next samples, at most one device buffer long, like a blocking
 * write would. docs/architecture.md has the measurements.
 */
import { parentPort } from 'node:worker_threads';
import { CTL, describe, type AudioIoReply, type AudioIoRequest } from './audioio-ring.js';

type Output = { dispose(): Promise<void> };
let output: Output | undefined;

function post(msg: AudioIoReply): void {
  parentPort!.postMessage(msg);
}

async function open(req: Extract<AudioIoRequest, { type: 'open' }>): Promise<void> {
  const ctl = new Int32Array(req.ctl);
  const data = new Int16Array(req.data);
  const times = new Float64Array(req.times);
  const cap = data.length;
  const waitMs = req.bufferMs;
  const fill = (buf: Int16Array) => {
    Atomics.add(ctl, CTL.CALLBACKS, 1);
    let done = 0;
    const deadline = performance.now() + waitMs;
    while (done < buf.length) {
      const flags = Atomics.load(ctl, CTL.FLAGS);
      if (flags & CTL.STOP) break; // the rest of the buffer stays silent (it arrives zeroed)
      const written = Atomics.load(ctl, CTL.WRITTEN);
      const read = Atomics.load(ctl, CTL.READ);
      const avail = written - read;
      if (avail > 0) {
        const n = Math.min(avail, buf.length - done);
        const at = read % cap;
        const first = Math.min(n, cap - at);
        buf.set(data.subarray(at, at + first), done);
        if (n > first) buf.set(data.subarray(0, n - first), done + first);
        const now = performance.timeOrigin + performance.now();
        if (times[0] === 0) times[0] = now;
        times[1] = now;
        done += n;
        Atomics.store(ctl, CTL.READ, read + n);
        Atomics.notify(ctl, CTL.READ);
        continue;
      }
      if (flags & CTL.ENDED) break;
      const left = deadline - performance.now();
      if (left <= 0) break; // an underrun: pad with silence rather than stall the device
      Atomics.wait(ctl, CTL.WRITTEN, written, left);
    }
  };
  try {
    const { createAudioOutput } = await import('@echogarden/audio-io');
    output = await createAudioOutput(
      { sampleRate: req.sampleRate, channelCount: 1, bufferDuration: req.bufferMs },
      fill,
    );
    post({ type: 'opened' });
  } catch (err) {
    post({ type: 'failed', message: describe(err) });
  }
}

parentPort!.on('message', (req: AudioIoRequest) => {
  if (req.type === 'open') {
    void open(req);
  } else if (req.type === 'close') {
    const o = output;
    output = undefined;
    void (o ? o.dispose() : Promise.resolve()).then(
      () => post({ type: 'closed' }),
      (err) => post({ type: 'closed', message: describe(err) }),
    );
  }
});
