/**
 * `command` — pipes PCM into a player program: paplay, pw-play, aplay or afplay.
 * The player's stderr is kept and reported: the reference implementation threw
 * it away, and its users heard silence with no clue why.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from '@vox/protocol';
import type { AudioFormat } from '../audio/pcm.js';
import { Pacer } from '../audio/pcm.js';
import { ProcessTree } from '../children/process-tree.js';
import { writeTo } from './pipe.js';
import { toWav } from '../audio/wav.js';
import {
  audioFailed,
  DEVICE_FIX,
  NO_OUTPUT_FIX,
  SinkError,
  type PlayResult,
  type Sink,
  type SinkState,
} from './sink.js';

export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

export const PLAYERS = ['paplay', 'pw-play', 'aplay', 'afplay'] as const;
export type PlayerName = (typeof PLAYERS)[number];

/** The probe: 10 ms of silence (220 samples at 22050 Hz, s16 mono). */
export const PROBE_BYTES = 440;
/** A player that has not played the probe by then is hung. */
const PROBE_TIMEOUT_MS = 3000;

function playerArgs(player: PlayerName, format: AudioFormat, file?: string): string[] {
  const rate = String(format.sampleRate);
  switch (player) {
    case 'paplay':
      return ['--raw', '--format=s16le', `--rate=${rate}`, '--channels=1'];
    case 'pw-play':
      return ['--format=s16', `--rate=${rate}`, '--channels=1', '-'];
    case 'aplay':
      return ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', rate, '-c', '1', '-'];
    case 'afplay':
      return [file!];
  }
}

/** First player on PATH, searched without a shell. */
export function findPlayer(
  env: NodeJS.ProcessEnv = process.env,
  candidates: readonly PlayerName[] = PLAYERS,
): PlayerName | undefined {
  return candidates.find((player) => findExecutable(player, env) !== undefined);
}

export class CommandSink implements Sink {
  readonly name: string;
  readonly player: PlayerName | undefined;
  #spawn: SpawnFn;
  #env: NodeJS.ProcessEnv;
  #lastError: string | undefined;
  /** Whether the player has been run at all (a probe or a playback): until then its state is a guess. */
  #tried = false;
  #playing = false;
  /** Players running now, killed with all they started at close(). */
  readonly #trees = new Set<ProcessTree>();
  #log: ((obj: object, msg: string) => void) | undefined;

  constructor(
    options: {
      player?: PlayerName;
      env?: NodeJS.ProcessEnv;
      spawn?: SpawnFn;
      log?: (obj: object, msg: string) => void;
    } = {},
  ) {
    this.#log = options.log;
    this.#env = options.env ?? process.env;
    this.#spawn = options.spawn ?? nodeSpawn;
    this.player = options.player ?? findPlayer(this.#env);
    this.name = `command:${this.player ?? 'none'}`;
  }

  state(): SinkState {
    if (!this.player) {
      return {
        name: this.name,
        ok: false,
        detail: `no player found on PATH (tried ${PLAYERS.join(', ')})`,
        lastError: `no player command on PATH (tried ${PLAYERS.join(', ')})`,
        fix: NO_OUTPUT_FIX,
      };
    }
    return {
      name: this.name,
      ok: this.#lastError === undefined,
      detail: this.#tried ? this.player : `${this.player} (not probed yet)`,
      ...(this.#lastError ? { lastError: this.#lastError, fix: DEVICE_FIX } : {}),
    };
  }

  /**
   * A player never tried yet, or one that failed, gets 10 ms of silence: if it
   * plays that, it is used. An installed player with no device behind it (aplay
   * on a machine without a sound card) is thus known before the first request
   * is accepted, not after it was answered "queued".
   */
  async check(): Promise<SinkState> {
    // One player at a time: no probe beside a playback, and callers that arrive together share one.
    if (this.player && (this.#probing || (!this.#playing && (!this.#tried || this.#lastError !== undefined)))) {
      this.#probing ??= this.#probe().finally(() => (this.#probing = undefined));
      await this.#probing;
    }
    return this.state();
  }

  #probing: Promise<void> | undefined;

  async #probe(): Promise<void> {
    const format: AudioFormat = { sampleRate: 22050, channels: 1, bitDepth: 16 };
    const silence = (async function* () {
      yield Buffer.alloc(PROBE_BYTES);
    })();
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), PROBE_TIMEOUT_MS);
    try {
      await this.play(format, silence, ac.signal).catch(() => {});
    } finally {
      clearTimeout(timer);
    }
    if (ac.signal.aborted)
      this.#lastError = `${this.player} did not play 10 ms of silence within ${PROBE_TIMEOUT_MS / 1000} s (a hung player or sound server?)`;
  }

  async play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    _meta?: { id: string },
  ): Promise<PlayResult> {
    const player = this.player;
    if (!player) {
      throw new SinkError(
        `no audio player found (tried ${PLAYERS.join(', ')}); install pulseaudio-utils or alsa-utils, or set VOXD_AUDIO=file:DIR`,
      );
    }
    this.#tried = true;
    this.#playing = true;
    let tmp: string | undefined;
    let bytes = 0;
    let firstAudioAt: number | undefined;
    try {
      let input: Buffer[] | undefined;
      if (player === 'afplay') {
        // afplay reads only files.
        input = [];
        for await (const c of chunks) input.push(c);
        tmp = mkdtempSync(join(tmpdir(), 'voxd-'));
        writeFileSync(join(tmp, 'u.wav'), toWav(format, Buffer.concat(input)));
      }
      // Its own session and group (detached), so a stop, a timeout or the end of the
      // utterance can kill the player and everything it started, even what left its group (children/process-tree.ts).
      const tree = new ProcessTree();
      const child = this.#spawn(player, playerArgs(player, format, tmp && join(tmp, 'u.wav')), {
        stdio: [player === 'afplay' ? 'ignore' : 'pipe', 'ignore', 'pipe'],
        env: tree.env(this.#env),
        detached: true,
      });
      tree.track(child);
      this.#trees.add(tree);
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr = (stderr + d).slice(-2000);
      });
      // 'exit', not 'close': a child of the player that holds stderr open must not keep this waiting.
      const exited = new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, sig) => resolve(sig ? null : code));
      });
      exited.catch(() => {});
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const kill = () => tree.killNow();
      signal.addEventListener('abort', kill, { once: true });
      try {
        if (input) {
          firstAudioAt = performance.now();
          bytes = input.reduce((n, c) => n + c.length, 0);
        } else if (child.stdin) {
          const pacer = new Pacer(format);
          child.stdin.on('error', () => {}); // EPIPE when the player dies; its exit code tells why
          for await (const chunk of chunks) {
            if (signal.aborted) break;
            firstAudioAt ??= performance.now();
            bytes += chunk.length;
            if (!(await writeTo(child.stdin, chunk, exited, signal))) break;
            await pacer.wrote(chunk.length, signal);
          }
          child.stdin.end();
        }
        const code = await exited;
        if (!signal.aborted && code !== 0) {
          // Whatever it left behind goes too, so its last words are all read.
          tree.killNow();
          await Promise.race([closed, new Promise((r) => setTimeout(r, 500))]);
          // The last line says what failed; ALSA prints a page of config noise before it.
          const why = stderr.trim().split('\n').pop()?.trim();
          // Not reported as it is: the catch below keeps its words as the state's lastError and throws a SinkError.
          throw new Error(
            `${player} exited with ${code === null ? 'a signal' : `code ${code}`}${why ? `: ${why}` : ''}`,
          );
        }
      } finally {
        signal.removeEventListener('abort', kill);
        // Nothing the player started outlives the utterance, and the audio has
        // ended (the tree is dead) before play() returns.
        if (await tree.end()) this.#trees.delete(tree);
        else
          this.#log?.({ pid: child.pid, player, pids: tree.known }, 'player processes still alive 1 s after SIGKILL');
      }
      this.#lastError = undefined;
      return { aborted: signal.aborted, bytes, ...(firstAudioAt !== undefined ? { firstAudioAt } : {}) };
    } catch (err) {
      if (audioFailed(err)) throw err;
      const e = err as NodeJS.ErrnoException;
      this.#lastError = e.code === 'ENOENT' ? `${player} not found` : e.message;
      throw new SinkError(this.#lastError);
    } finally {
      this.#playing = false;
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }
  }

  /** Kills every player still running, with all it started. Harmless twice. */
  async close(): Promise<void> {
    await Promise.all([...this.#trees].map((t) => t.end()));
    this.#trees.clear();
  }
}
