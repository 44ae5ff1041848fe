/**
 * `audioio` — plays through `@echogarden/audio-io` (ALSA, Core Audio, MME from
 * prebuilt addons: nothing to compile, on Linux only libasound.so.2). The
 * addon runs in a worker thread (audioio-worker.ts, which says why); voxd's
 * main thread writes PCM into a shared ring that the device pulls from.
 *
 * The speaker path's guarantees, kept:
 * - one utterance at a time, one device output per utterance;
 * - at most LEAD_MS written ahead: of what the device took, and of the wall
 *   clock (a device that does not pace, like ALSA's null device, must not
 *   make the dispatcher believe sentences heard that were not);
 * - a stop silences the next device buffer (BUFFER_MS) and disposes the output;
 * - a device that fails or stops calling back fails the utterance clearly.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AUDIO_LIBRARY_FIX } from '@vox/protocol';
import type { AudioFormat } from '../audio/pcm.js';
import { Pacer, slices } from '../audio/pcm.js';
import { CTL, type AudioIoReply, type AudioIoRequest } from './audioio-ring.js';
import {
  audioFailed,
  nameMissingDevice,
  NO_DEVICE_FIX,
  NO_OUTPUT_FIX,
  SinkError,
  type PlayResult,
  type Sink,
  type SinkState,
} from './sink.js';

/** Device buffer, in ms: the callback period, and the wait for the first sample. */
const BUFFER_MS = 20;
/** Most audio written ahead of what was heard, in ms. */
const LEAD_MS = 250;
/** The device holds up to two buffers: ALSA is refilled when one is left. */
const DEVICE_LEAD_MS = 2 * BUFFER_MS;
/** A device that has not called back for this long has gone away. */
const DEVICE_SILENT_MS = 1500;
/** The worker is let go after this long without playback. */
const IDLE_MS = 10_000;
/** A device that takes longer than this to open, or to close, is hung. */
const OPEN_TIMEOUT_MS = 5000;
const CLOSE_TIMEOUT_MS = 1000;
/**
 * The addon's device thread drains and frees the output after dispose();
 * terminating the worker before it is done aborts the whole process (a
 * C++ exception from a call into a dying environment). Wait this long.
 */
const TERMINATE_AFTER_CLOSE_MS = 500;
/** The probe's own process (audioio-probe.ts, which says why). */
const PROBE = fileURLToPath(new URL('./audioio-probe.js', import.meta.url));

export interface AudioIoTiming {
  /** From the first PCM chunk to its first sample copied to the device, in ms. */
  firstSampleMs?: number;
  /** From the stop to the last sample copied to the device, in ms (the device then plays at most DEVICE_LEAD_MS more). */
  stopMs?: number;
  /** When the last sample was copied to the device after a stop, in ms since the epoch (a bench times it from the HTTP stop). */
  lastSampleAt?: number;
}

export class AudioIoSink implements Sink {
  readonly name = 'audioio';
  #worker: Worker | undefined;
  #failed: Promise<never> | undefined;
  #replies: Array<(r: AudioIoReply) => void> = [];
  #idle: NodeJS.Timeout | undefined;
  #probed = false;
  #playing = false;
  #lastError: string | undefined;
  #log: ((obj: object, msg: string) => void) | undefined;

  constructor(options: { log?: (obj: object, msg: string) => void } = {}) {
    this.#log = options.log;
  }

  state(): SinkState {
    return {
      name: this.name,
      ok: this.#probed && this.#lastError === undefined,
      detail: this.#probed ? '@echogarden/audio-io' : 'not probed yet',
      ...(this.#lastError ? { lastError: this.#lastError, fix: audioIoFix(this.#lastError) } : {}),
    };
  }

  async check(): Promise<SinkState> {
    if (!this.#playing && (!this.#probed || this.#lastError !== undefined)) await this.probe();
    return this.state();
  }

  #probing: Promise<string | undefined> | undefined;

  /** Open the default device and close it again. Resolves to the problem, or undefined. */
  probe(): Promise<string | undefined> {
    this.#probing ??= this.#probe().finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  async #probe(): Promise<string | undefined> {
    const why = await probeInChild();
    this.#lastError = why === undefined ? undefined : `audio-io: ${nameMissingDevice(why)}`;
    this.#probed = true;
    return this.#lastError;
  }

  async play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    _meta: { id: string },
  ): Promise<PlayResult> {
    this.#playing = true;
    clearTimeout(this.#idle);
    const rate = format.sampleRate;
    const r = ring(rate);
    const ctl = new Int32Array(r.ctl);
    const data = new Int16Array(r.data);
    const times = new Float64Array(r.times);
    const cap = data.length;
    const aheadOfDevice = Math.floor((rate * (LEAD_MS - DEVICE_LEAD_MS)) / 1000);
    let bytes = 0;
    let firstChunkAt: number | undefined;
    let opened = false;
    const timing: AudioIoTiming = {};
    let abortAt: number | undefined;
    // The next device buffer is silent: the worker copies nothing once it sees STOP.
    const onAbort = () => {
      abortAt = performance.timeOrigin + performance.now();
      Atomics.or(ctl, CTL.FLAGS, CTL.STOP);
      Atomics.notify(ctl, CTL.WRITTEN);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // The device opens while the first chunk is on its way; samples wait in the ring.
      let lastCallbacks = -1;
      let lastCallbackAt = performance.now();
      const opening = this.#open(rate, r).then(() => {
        opened = true;
        lastCallbackAt = performance.now();
      });
      opening.catch(() => {});
      const failed = this.#failed!;
      const pacer = new Pacer(format, LEAD_MS);
      const deviceAlive = () => {
        const n = Atomics.load(ctl, CTL.CALLBACKS);
        const now = performance.now();
        if (n !== lastCallbacks) {
          lastCallbacks = n;
          lastCallbackAt = now;
        } else if (opened && now - lastCallbackAt > DEVICE_SILENT_MS) {
          // Caught by play()'s catch below, which reports it as a SinkError.
          throw new Error(
            `audio-io: the audio device stopped taking audio for ${DEVICE_SILENT_MS} ms (unplugged, or taken by another program?)`,
          );
        }
      };
      // Rejects only: when the worker dies, or the device does not open.
      const broken = Promise.race([failed, opening.then(() => new Promise<never>(() => {}))]);
      broken.catch(() => {});
      const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      const waitForRoom = async (read: number) => {
        const w = waitAsync(ctl, CTL.READ, read, 50);
        if (w.async) await Promise.race([w.value, aborted, broken]);
        deviceAlive();
      };
      for await (const slice of slices(chunks, 4096)) {
        if (signal.aborted) break;
        firstChunkAt ??= performance.timeOrigin + performance.now();
        const samples = new Int16Array(slice.length >> 1);
        for (let i = 0; i < samples.length; i++) samples[i] = slice.readInt16LE(i * 2);
        let off = 0;
        while (off < samples.length && !signal.aborted) {
          const written = Atomics.load(ctl, CTL.WRITTEN);
          const read = Atomics.load(ctl, CTL.READ);
          const room = Math.min(cap - (written - read), aheadOfDevice - (written - read));
          if (room <= 0) {
            await waitForRoom(read);
            continue;
          }
          const n = Math.min(room, samples.length - off);
          const at = written % cap;
          const first = Math.min(n, cap - at);
          data.set(samples.subarray(off, off + first), at);
          if (n > first) data.set(samples.subarray(off + first, off + n), 0);
          off += n;
          Atomics.store(ctl, CTL.WRITTEN, written + n);
          Atomics.notify(ctl, CTL.WRITTEN);
        }
        bytes += slice.length;
        await Promise.race([pacer.wrote(slice.length, signal), broken]);
      }
      await Promise.race([opening, failed]);
      if (!signal.aborted) {
        Atomics.or(ctl, CTL.FLAGS, CTL.ENDED);
        Atomics.notify(ctl, CTL.WRITTEN);
        for (;;) {
          const read = Atomics.load(ctl, CTL.READ);
          if (read >= Atomics.load(ctl, CTL.WRITTEN) || signal.aborted) break;
          await waitForRoom(read);
        }
        // What the device holds still plays.
        if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, DEVICE_LEAD_MS));
      }
      await Promise.race([this.#close(), failed]);
      if (abortAt !== undefined) {
        timing.stopMs = Math.round(Math.max(0, times[1]! - abortAt) * 100) / 100;
        timing.lastSampleAt = times[1]!;
      }
      if (firstChunkAt !== undefined && times[0]! > 0)
        timing.firstSampleMs = Math.round((times[0]! - firstChunkAt) * 10) / 10;
      this.#log?.({ sink: this.name, ...timing }, 'audioio timing');
      this.#lastError = undefined;
      const firstAudioAt = times[0]! > 0 ? times[0]! - performance.timeOrigin : undefined;
      return { aborted: signal.aborted, bytes, ...(firstAudioAt !== undefined ? { firstAudioAt } : {}) };
    } catch (err) {
      Atomics.or(ctl, CTL.FLAGS, CTL.STOP);
      Atomics.notify(ctl, CTL.WRITTEN);
      const message = (err as Error).message;
      this.#log?.({ sink: this.name, err: message, aborted: signal.aborted }, 'audioio play failed');
      if (audioFailed(err)) {
        await this.#close().catch(() => {});
        throw err;
      }
      this.#lastError = message.startsWith('audio-io') ? message : `audio-io: ${message}`;
      await this.#close().catch(() => {});
      throw new SinkError(this.#lastError);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#playing = false;
      this.#probed = true;
      this.#armIdle();
    }
  }

  #closedAt = 0;

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    const w = this.#worker;
    if (!w) return;
    const wait = this.#closedAt + TERMINATE_AFTER_CLOSE_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.#worker !== w) return;
    this.#worker = undefined;
    await w.terminate();
  }

  /** A worker stuck in the device (a hung driver) is let go, never terminated (see TERMINATE_AFTER_CLOSE_MS). */
  #abandon(): void {
    const w = this.#worker;
    this.#worker = undefined;
    this.#replies.splice(0);
    w?.removeAllListeners('message');
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./audioio-worker.js', import.meta.url));
    worker.unref();
    let reject!: (err: Error) => void;
    this.#failed = new Promise<never>((_, rej) => (reject = rej));
    this.#failed.catch(() => {});
    const gone = (err: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      reject(err);
      for (const r of this.#replies.splice(0)) r({ type: 'failed', message: err.message });
    };
    worker.on('message', (msg: AudioIoReply) => this.#replies.shift()?.(msg));
    // These reach only play() and the probe, which report their words (a SinkError, the state's lastError).
    worker.on('error', (err) => gone(new Error(`audio-io: ${err.message.split('\n')[0]}`)));
    worker.on('exit', (code) => gone(new Error(`audio-io: its worker exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #request(msg: AudioIoRequest): Promise<AudioIoReply> {
    const worker = this.#ensureWorker();
    return new Promise((resolve) => {
      this.#replies.push(resolve);
      worker.postMessage(msg);
    });
  }

  async #open(sampleRate: number, r: Ring): Promise<void> {
    const reply = await this.#timed(
      this.#request({ type: 'open', sampleRate, bufferMs: BUFFER_MS, ...r }),
      OPEN_TIMEOUT_MS,
      'open',
    );
    // Caught by play() and the probe, which report it (a SinkError, the state's lastError).
    if (reply.type !== 'opened')
      throw new Error(
        reply.type === 'failed' ? nameMissingDevice(reply.message) : 'unexpected reply from the audio worker',
      );
  }

  async #close(): Promise<void> {
    if (!this.#worker) return;
    await this.#timed(this.#request({ type: 'close' }), CLOSE_TIMEOUT_MS, 'close');
    this.#closedAt = performance.now();
  }

  async #timed<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#abandon();
        // Caught by play() and the probe, which report it (a SinkError, the state's lastError).
        reject(new Error(`the audio device did not ${what} within ${ms} ms (a hung driver or sound server?)`));
      }, ms);
    });
    try {
      return await Promise.race([p, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), IDLE_MS);
    this.#idle.unref();
  }
}

const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: Int32Array, i: number, v: number, t: number): { async: boolean; value: Promise<string> | string };
  }
).waitAsync;

type Ring = { ctl: SharedArrayBuffer; data: SharedArrayBuffer; times: SharedArrayBuffer };

/** Half a second of samples: room for LEAD_MS and more. */
function ring(sampleRate: number): Ring {
  return {
    ctl: new SharedArrayBuffer(CTL.SLOTS * 4),
    data: new SharedArrayBuffer(Math.ceil(sampleRate / 2) * 2),
    times: new SharedArrayBuffer(16),
  };
}

/** What to do about audio-io's error: the library it lacks, the device, or another output. */
export function audioIoFix(error: string): string {
  if (/libasound/.test(error)) return `${AUDIO_LIBRARY_FIX}, or ${NO_OUTPUT_FIX}`;
  if (/no sound device/.test(error)) return NO_DEVICE_FIX;
  return `check the audio device with "vox doctor", or ${NO_OUTPUT_FIX}`;
}

/**
 * Open and close the default device in a child process (audioio-probe.ts):
 * undefined when it worked, else why not. ALSA's noise on the child's stderr
 * is read (bounded) and dropped; the child is killed if the device hangs.
 */
function probeInChild(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROBE], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (out.length < 4096) out += d;
    });
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), OPEN_TIMEOUT_MS + CLOSE_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve(`its probe could not start (${err.message})`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL')
        return resolve(
          `the audio device did not open and close within ${OPEN_TIMEOUT_MS + CLOSE_TIMEOUT_MS} ms (a hung driver or sound server?)`,
        );
      let reply: { ok?: boolean; message?: string } | undefined;
      try {
        reply = JSON.parse(out.split('\n')[0]!) as { ok?: boolean; message?: string };
      } catch {
        // A crash before it could answer.
      }
      if (reply?.ok === true) return resolve(undefined);
      resolve(reply?.message ?? `its probe exited with ${signal ?? `code ${code}`}`);
    });
  });
}
