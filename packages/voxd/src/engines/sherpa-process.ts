/**
 * One sherpa model's child process (sherpa-host.ts is the child's side), as
 * the engine sees it: loading, jobs and their chunks, and the idle unload.
 * Every synthesis holds its host from the request until its reader has read
 * it to the end (or it is aborted), so an unload never cuts a rendering or a
 * sentence waiting to be played; a hold that nobody reads for STREAM_HOLD_MS
 * (a reader that failed and dropped it) stops counting.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, sep } from 'node:path';
import type { ModelCheck } from '@vox/protocol/models';
import type { AudioFormat } from '../audio/pcm.js';
import { ChunkChannel } from './chunk-channel.js';
import { EngineError, type Synthesis } from './engine.js';
import type { HostReply, HostRequest } from './sherpa-host.js';

/** How long a synthesis that nobody reads keeps its host from an idle unload (ms): far longer than any sentence plays. */
const STREAM_HOLD_MS = 60_000;

/** One use of a host: a request waiting for the load, or a synthesis until its reader is done. */
interface Hold {
  /** True while the host itself works on it (or loads for it): never released by time. */
  strict: boolean;
  /** performance.now() when it last changed. */
  touched: number;
}

interface Job {
  push(chunk: Buffer | null, error?: Error): void;
  hold: Hold;
}

export type Installed = Extract<ModelCheck, { ok: true }>;
/** One child process with one model loaded. */
export class Host {
  readonly loaded: Promise<AudioFormat>;
  #child: ChildProcess;
  #jobs = new Map<number, Job>();
  #nextJob = 1;
  #stderr = '';
  #exited = false;
  /** Set when the child dies; the reason. */
  failure: string | undefined;
  loadedOk = false;
  /** True once voxd closed it on purpose (idle, removed model, shutdown): its exit is no crash. */
  closing = false;
  #holds = new Set<Hold>();
  #lastUse = performance.now();
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly model: Installed,
    module: string,
    threads: number,
    onExit: (host: Host, whileLoading: boolean) => void,
    readonly idleMs = 0,
    readonly onIdle: (host: Host) => void = () => {},
  ) {
    this.#child = fork(new URL('./sherpa-host.js', import.meta.url), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      execArgv: [],
    });
    this.#child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-4000);
    });
    this.loaded = new Promise<AudioFormat>((resolve, reject) => {
      this.#child.on('message', (msg: HostReply) => {
        if (msg.type === 'loaded') {
          this.loadedOk = true;
          resolve({ sampleRate: msg.sampleRate, channels: 1, bitDepth: 16 });
          this.#scheduleIdle();
          return;
        }
        if (msg.type === 'error' && msg.job === undefined) {
          this.failure = msg.message.replaceAll(`${model.dir}${sep}`, '');
          reject(new EngineError(this.failure));
          this.kill();
          return;
        }
        const job =
          msg.type === 'error' || msg.type === 'chunk' || msg.type === 'done' ? this.#jobs.get(msg.job!) : undefined;
        if (!job) return;
        if (msg.type === 'chunk') job.push(Buffer.from(msg.pcm.buffer, msg.pcm.byteOffset, msg.pcm.byteLength));
        else {
          job.push(null, msg.type === 'error' ? new EngineError(msg.message) : undefined);
          this.#jobs.delete(msg.job!);
          // Rendered: what is left is its reader's, which still holds the host.
          this.#loosen(job.hold);
        }
      });
      this.#child.on('error', (err) => reject(err));
      this.#child.on('exit', (code, signal) => {
        this.#exited = true;
        const last = this.#stderr
          .trim()
          .split('\n')
          .filter(Boolean)
          .pop()
          ?.replace(/^\S+:\S+:\d+ /, '')
          .replaceAll(`${model.dir}${sep}`, '')
          .trim();
        this.failure ??= `${signal ? `crashed (${signal})` : `exited with code ${code}`}${last ? `: ${last}` : ''}`;
        const whileLoading = !this.loadedOk;
        reject(new EngineError(this.failure));
        for (const job of this.#jobs.values())
          job.push(null, new EngineError(`sherpa model ${model.manifest.name} ${this.failure}`));
        this.#jobs.clear();
        this.#holds.clear();
        clearTimeout(this.#idleTimer);
        onExit(this, whileLoading);
      });
    });
    this.loaded.catch(() => {});
    this.#send({ type: 'load', module, config: sherpaConfig(model, threads) });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get alive(): boolean {
    return !this.#exited;
  }

  #send(msg: HostRequest): void {
    if (!this.#exited && this.#child.connected) this.#child.send(msg);
  }

  /** A use of this host that keeps it from an idle unload until release(). */
  hold(): Hold {
    const h: Hold = { strict: true, touched: performance.now() };
    this.#holds.add(h);
    clearTimeout(this.#idleTimer);
    return h;
  }

  release(h: Hold): void {
    if (!this.#holds.delete(h)) return;
    this.#lastUse = performance.now();
    this.#scheduleIdle();
  }

  #loosen(h: Hold): void {
    h.strict = false;
    h.touched = this.#lastUse = performance.now();
    this.#scheduleIdle();
  }

  /** Arms the idle unload for the moment the last use is idleMs old (and no hold counts); a host at work arms nothing. */
  #scheduleIdle(): void {
    clearTimeout(this.#idleTimer);
    if (!this.idleMs || this.#exited || this.closing || !this.loadedOk) return;
    let due = this.#lastUse + this.idleMs;
    for (const h of this.#holds) {
      if (h.strict) return;
      due = Math.max(due, h.touched + STREAM_HOLD_MS);
    }
    this.#idleTimer = setTimeout(
      () => {
        if (performance.now() >= due - 1) this.onIdle(this);
        else this.#scheduleIdle();
      },
      Math.max(0, due - performance.now()),
    );
    // An idle model never keeps voxd's event loop alive.
    this.#idleTimer.unref();
  }

  synthesize(
    texts: string[],
    sid: number,
    speed: number,
    signal: AbortSignal | undefined,
    format: AudioFormat,
  ): Synthesis {
    const job = this.#nextJob++;
    const channel = new ChunkChannel();
    const hold = this.hold();
    this.#jobs.set(job, { push: (chunk, error) => channel.push(error ?? chunk), hold });
    const onAbort = () => {
      this.#send({ type: 'abort', job });
      this.#jobs.delete(job);
      channel.push(null);
      this.release(hold);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    this.#send({ type: 'synthesize', job, texts, sid, speed });
    return {
      format,
      chunks: channel.read(() => {
        signal?.removeEventListener('abort', onAbort);
        this.release(hold);
      }),
    };
  }

  kill(): void {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.#idleTimer);
    if (this.#exited) return;
    const gone = new Promise<void>((r) => this.#child.once('exit', () => r()));
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), 2000);
    await gone;
    clearTimeout(timer);
  }
}

/** sherpa-onnx's OfflineTtsConfig for an installed model. */
export function sherpaConfig(model: Installed, threads: number): Record<string, unknown> {
  const { files, type } = model.manifest;
  const at = (rel: string | undefined) => (rel ? join(model.dir, rel) : '');
  const common = { tokens: at(files.tokens), dataDir: at(files.dataDir), lexicon: at(files.lexicon) };
  const models: Record<string, Record<string, unknown>> = {
    vits: { vits: { model: at(files.model), ...common } },
    kokoro: { kokoro: { model: at(files.model), voices: at(files.voices), ...common } },
    kitten: {
      kitten: { model: at(files.model), voices: at(files.voices), tokens: common.tokens, dataDir: common.dataDir },
    },
    matcha: { matcha: { acousticModel: at(files.model), vocoder: at(files.vocoder), ...common } },
  };
  return { model: { ...models[type], numThreads: threads, debug: 0, provider: 'cpu' }, maxNumSentences: 1 };
}
