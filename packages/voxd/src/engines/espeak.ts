/**
 * The embedded default engine: eSpeak-NG compiled to JS/wasm, run in a worker
 * thread so synthesis never blocks the HTTP server. Needs no system packages.
 * Jobs are serialized in the worker; each streams 22050 Hz s16le chunks back.
 */
import { Worker } from 'node:worker_threads';
import type { Voice } from '@vox/protocol';
import { VoxError } from '../errors.js';
import { ChunkChannel } from './chunk-channel.js';
import { EngineError, type Engine, type Readiness, type Synthesis, type SynthesisRequest } from './engine.js';
import type { AudioFormat } from '../audio/pcm.js';
import type { WorkerReply, WorkerRequest } from './espeak-worker.js';

export const ESPEAK_DEFAULT_VOICE = 'en-us';
export const ESPEAK_DEFAULT_RATE = 175;

interface Job {
  push(chunk: Buffer | null, error?: Error): void;
  voices?: (v: Voice[]) => void;
  known?: (known: boolean) => void;
}

export class EspeakEngine implements Engine {
  readonly name = 'espeak';
  #worker: Worker | undefined;
  #readyPromise: Promise<void> | undefined;
  #format: AudioFormat = { sampleRate: 22050, channels: 1, bitDepth: 16 };
  #abort = new Int32Array(new SharedArrayBuffer(4));
  #jobs = new Map<number, Job>();
  #nextJob = 1;
  #failure: string | undefined;
  #voiceCache: Voice[] | undefined;
  /** Voices asked about (knowsVoice), and the answers. */
  readonly #knownVoices = new Map<string, boolean>();
  /** Synthesis jobs the worker has not finished yet. */
  #inWorker = new Set<number>();
  /** An aborted job the worker must give up within this long, or it is restarted (ms). */
  static readonly ABORT_GRACE_MS = 5000;

  /** Start the worker and warm the engine. Idempotent. */
  start(): Promise<void> {
    this.#readyPromise ??= new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL('./espeak-worker.js', import.meta.url), {
        workerData: { abortFlag: this.#abort.buffer },
      });
      this.#worker = worker;
      worker.unref();
      worker.on('message', (msg: WorkerReply) => {
        if (msg.type === 'ready') {
          this.#format = { sampleRate: msg.sampleRate, channels: 1, bitDepth: 16 };
          resolve();
          return;
        }
        if (msg.type === 'done' || msg.type === 'error') this.#inWorker.delete(msg.job);
        const job = this.#jobs.get(msg.job);
        if (!job) return;
        if (msg.type === 'chunk') job.push(Buffer.from(msg.pcm));
        else if (msg.type === 'done') job.push(null);
        // An unknown voice is the caller's mistake, not a failure of the engine: it carries its own code.
        else if (msg.type === 'error')
          job.push(
            null,
            msg.unknownVoice
              ? new VoxError('VOX_ERR_VOICE_UNKNOWN', { message: msg.message })
              : new EngineError(msg.message),
          );
        else if (msg.type === 'voice') job.known?.(msg.known);
        else if (msg.type === 'voices')
          job.voices?.(
            msg.voices.map((v) => ({ id: v.identifier, name: v.name, languages: v.languages, engine: 'espeak' })),
          );
        if (msg.type !== 'chunk') this.#jobs.delete(msg.job);
      });
      const fail = (err: Error) => {
        this.#failure = err.message;
        reject(err);
        for (const job of this.#jobs.values()) job.push(null, new EngineError(`espeak worker stopped: ${err.message}`));
        this.#jobs.clear();
        // The next request starts a fresh worker.
        this.#readyPromise = undefined;
        this.#worker = undefined;
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (this.#worker === worker) fail(new EngineError(`worker exited with code ${code}`));
      });
    });
    return this.#readyPromise;
  }

  async ready(): Promise<Readiness> {
    try {
      await this.start();
      return { ready: true };
    } catch (err) {
      return { ready: false, reason: `embedded espeak failed to start: ${(err as Error).message}` };
    }
  }

  understandsTags(): boolean {
    return false;
  }

  async voices(): Promise<Voice[]> {
    if (this.#voiceCache) return this.#voiceCache;
    await this.start();
    const job = this.#nextJob++;
    const voices = await new Promise<Voice[]>((resolve, reject) => {
      this.#jobs.set(job, { push: (_c, err) => err && reject(err), voices: resolve });
      this.#post({ type: 'voices', job });
    });
    this.#voiceCache = voices;
    return voices;
  }

  /** Asked of the worker (the lookup synthesis makes), once per voice. */
  async knowsVoice(voice: string): Promise<boolean> {
    const cached = this.#knownVoices.get(voice);
    if (cached !== undefined) return cached;
    await this.start();
    const job = this.#nextJob++;
    const known = await new Promise<boolean>((resolve, reject) => {
      this.#jobs.set(job, { push: (_c, err) => err && reject(err), known: resolve });
      this.#post({ type: 'voice', job, voice });
    });
    if (this.#knownVoices.size >= 256) this.#knownVoices.clear();
    this.#knownVoices.set(voice, known);
    return known;
  }

  async synthesize(request: SynthesisRequest): Promise<Synthesis> {
    await this.start();
    const job = this.#nextJob++;
    const channel = new ChunkChannel();
    this.#jobs.set(job, { push: (chunk, error) => channel.push(error ?? chunk) });
    const onAbort = () => {
      Atomics.store(this.#abort, 0, job);
      channel.push(null);
      this.#jobs.delete(job);
      // eSpeak checks the flag between chunks; a worker stuck inside one chunk
      // would block every later job, so it is replaced.
      const worker = this.#worker;
      setTimeout(() => {
        if (this.#inWorker.has(job) && this.#worker === worker)
          void this.#restart(`job ${job} did not stop within ${EspeakEngine.ABORT_GRACE_MS} ms`);
      }, EspeakEngine.ABORT_GRACE_MS).unref();
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    this.#inWorker.add(job);
    this.#post({
      type: 'synthesize',
      job,
      text: request.text,
      voice: request.voice ?? ESPEAK_DEFAULT_VOICE,
      rate: Math.round(request.rate ?? ESPEAK_DEFAULT_RATE),
    });
    return { format: this.#format, chunks: channel.read(() => request.signal?.removeEventListener('abort', onAbort)) };
  }

  #post(msg: WorkerRequest): void {
    if (!this.#worker)
      throw new EngineError(`embedded espeak is not running${this.#failure ? `: ${this.#failure}` : ''}`);
    this.#worker.postMessage(msg);
  }

  /** Terminate a stuck worker; pending jobs fail and the next request starts a new one. */
  async #restart(reason: string): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    this.#readyPromise = undefined;
    this.#inWorker.clear();
    for (const job of this.#jobs.values()) job.push(null, new EngineError(`espeak worker restarted: ${reason}`));
    this.#jobs.clear();
    await worker.terminate();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }
}
