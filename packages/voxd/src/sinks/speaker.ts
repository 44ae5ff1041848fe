/**
 * `speaker` — the default sink: the `speaker` module (ALSA/CoreAudio), run in a
 * child process per utterance so that a missing or broken device can never
 * crash voxd. A probe at start decides; when `speaker` cannot play, the
 * sink falls back to a player command, and when that fails too the reason is
 * reported in status and in each failed response.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AudioFormat } from '../audio/pcm.js';
import { CommandSink, type SpawnFn } from './command.js';
import { Pacer } from '../audio/pcm.js';
import { groupGone, killGroup } from '../children/process-tree.js';
import { writeTo } from './pipe.js';
import { DEVICE_FIX, NO_OUTPUT_FIX, SinkError, type PlayResult, type Sink, type SinkState } from './sink.js';

const CHILD = fileURLToPath(new URL('./speaker-child.js', import.meta.url));

function describeExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (signal === 'SIGABRT') return 'the audio device could not be opened (no sound card?)';
  const why = stderr.trim().split('\n').pop();
  return why || (signal ? `speaker process killed by ${signal}` : `speaker process exited with code ${code}`);
}

export class SpeakerSink implements Sink {
  readonly name = 'speaker';
  #spawn: SpawnFn;
  #env: NodeJS.ProcessEnv;
  #probe: Promise<string | undefined> | undefined;
  #speakerProblem: string | undefined;
  #fallback: CommandSink;
  #lastError: string | undefined;

  constructor(options: { env?: NodeJS.ProcessEnv; spawn?: SpawnFn; fallback?: CommandSink } = {}) {
    this.#env = options.env ?? process.env;
    this.#spawn = options.spawn ?? nodeSpawn;
    this.#fallback = options.fallback ?? new CommandSink({ env: this.#env, spawn: this.#spawn });
  }

  /** Probe the device in a child process. Resolves to the problem, or undefined when speaker works. */
  probe(): Promise<string | undefined> {
    this.#probe ??= new Promise((resolve) => {
      // Its own process group, like every player (children/process-tree.ts): a timeout kills all of it.
      const child = this.#spawn(process.execPath, [CHILD, '--probe'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: this.#env,
        detached: true,
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => killGroup(child), 5000);
      child.once('error', (err) => {
        clearTimeout(timer);
        this.#speakerProblem = err.message;
        resolve(err.message);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        this.#speakerProblem = code === 0 ? undefined : describeExit(code, signal, stderr);
        resolve(this.#speakerProblem);
      });
    });
    return this.#probe;
  }

  state(): SinkState {
    if (this.#speakerProblem === undefined) {
      return {
        name: this.name,
        ok: this.#lastError === undefined,
        detail: this.#probe ? 'speaker module' : 'not probed yet',
        ...(this.#lastError ? { lastError: this.#lastError, fix: DEVICE_FIX } : {}),
      };
    }
    const fb = this.#fallback.state();
    return {
      name: this.name,
      ok: fb.ok,
      detail: `speaker unavailable (${this.#speakerProblem}); ${fb.ok ? `falling back to ${fb.detail}` : `no fallback: ${fb.detail}`}`,
      ...(fb.ok
        ? {}
        : {
            lastError: `speaker: ${this.#speakerProblem}; ${fb.lastError ?? fb.detail}`,
            fix: fb.fix ?? NO_OUTPUT_FIX,
          }),
    };
  }

  async check(): Promise<SinkState> {
    if (this.#lastError !== undefined) {
      // The last playback failed: probe the device afresh.
      this.#probe = undefined;
      this.#lastError = undefined;
    }
    const problem = await this.probe();
    if (problem !== undefined) await this.#fallback.check();
    return this.state();
  }

  async play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    meta: { id: string },
  ): Promise<PlayResult> {
    const problem = await this.probe();
    if (problem !== undefined) {
      if (!this.#fallback.player) {
        throw new SinkError(
          `no audio output: speaker failed (${problem}) and no player command was found (paplay, pw-play, aplay, afplay); install one, or set VOXD_AUDIO=file:DIR`,
        );
      }
      return this.#fallback.play(format, chunks, signal, meta);
    }
    // Its own process group (detached), like the player commands: a stop, the
    // watchdog or the end of the utterance kills it and anything it started.
    const child = this.#spawn(process.execPath, [CHILD, String(format.sampleRate)], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: this.#env,
      detached: true,
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, sig) => resolve({ code, signal: sig }));
    });
    exited.catch(() => {});
    const kill = () => killGroup(child);
    signal.addEventListener('abort', kill, { once: true });
    let bytes = 0;
    let firstAudioAt: number | undefined;
    try {
      child.stdin!.on('error', () => {});
      const pacer = new Pacer(format);
      for await (const chunk of chunks) {
        if (signal.aborted) break;
        firstAudioAt ??= performance.now();
        bytes += chunk.length;
        if (!(await writeTo(child.stdin!, chunk, exited, signal))) break;
        await pacer.wrote(chunk.length, signal);
      }
      child.stdin!.end();
      const { code, signal: sig } = await exited;
      if (!signal.aborted && code !== 0) {
        this.#lastError = describeExit(code, sig, stderr);
        throw new SinkError(this.#lastError);
      }
      this.#lastError = undefined;
      return { aborted: signal.aborted, bytes, ...(firstAudioAt !== undefined ? { firstAudioAt } : {}) };
    } finally {
      signal.removeEventListener('abort', kill);
      // Nothing of it outlives the utterance (it has exited by now unless cut or failed).
      killGroup(child);
      if (child.pid !== undefined) await groupGone(child.pid);
    }
  }

  async close(): Promise<void> {}
}
