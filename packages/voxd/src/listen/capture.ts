/**
 * The microphone: a recorder program (arecord, rec or sox) that writes s16le
 * 16 kHz mono PCM to its stdout, as node-record-lpcm16 spawns it.
 *
 * Design note — why not node-record-lpcm16 itself (docs/architecture.md has
 * the measurements): its child is spawned inside its constructor with options
 * a caller cannot extend, so it cannot run in its own process group, and a
 * recorder that is a wrapper script (rec is one on some systems) leaves a
 * grandchild holding the pipe after stop(); it has no `error` handler on the
 * child, so a missing binary crashes the process unless the caller attaches
 * one in the same tick; stop() is reported as a failure ("exited with error
 * code null"); its errors are strings; and it defaults to a WAV stream whose
 * header carries a bogus length. The parts of it that matter are the three
 * argument lists below, so this module spawns the recorder itself: detached
 * (its own group, its whole tree killed like a player's,
 * children/process-tree.ts, even a child that called setsid), with typed
 * errors, and a stop that is a stop.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { basename } from 'node:path';
import { findExecutable } from '@vox/protocol';
import { VoxError } from '../errors.js';
import { ProcessTree } from '../children/process-tree.js';

export const CAPTURE_RATE = 16_000;
export const CAPTURE_FORMAT = { sampleRate: CAPTURE_RATE, channels: 1, bitDepth: 16 } as const;

export type RecorderKind = 'arecord' | 'rec' | 'sox';
export type SpawnFn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

/* What to install is the catalogue's fix (VOX_ERR_RECORDER_MISSING): the cause here does not repeat it. */

/** The recorder's arguments: raw s16le, 16 kHz, mono, to stdout (node-record-lpcm16's, less the WAV header). */
export function recorderArgs(kind: RecorderKind, rate = CAPTURE_RATE): string[] {
  const r = String(rate);
  switch (kind) {
    case 'arecord':
      return ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', r, '-c', '1', '-'];
    case 'rec':
      return ['-q', '-r', r, '-c', '1', '-e', 'signed-integer', '-b', '16', '-t', 'raw', '-'];
    case 'sox':
      // sox reads the default device (-d); the options after it describe the output.
      return ['-q', '-d', '-r', r, '-c', '1', '-e', 'signed-integer', '-b', '16', '-t', 'raw', '-'];
  }
}

function kindOf(path: string): RecorderKind | undefined {
  const base = basename(path).replace(/\.exe$/i, '');
  return base === 'arecord' || base === 'rec' || base === 'sox' ? base : undefined;
}

/**
 * The recorder to run for the setting `listen.recorder`: `auto` takes the
 * first of arecord, rec, sox on PATH (rec first on macOS, which has no ALSA).
 * Throws VOX_ERR_RECORDER_MISSING naming what to install.
 */
export function resolveRecorder(
  setting: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { path: string; kind: RecorderKind } {
  const names: RecorderKind[] =
    setting === 'auto' ? (platform === 'linux' ? ['arecord', 'rec', 'sox'] : ['rec', 'sox']) : [];
  if (setting !== 'auto') {
    const kind = kindOf(setting);
    if (!kind)
      throw new VoxError(
        'VOX_ERR_RECORDER_MISSING',
        `listen.recorder "${basename(setting)}" is none of arecord, rec, sox`,
      );
    const path = findExecutable(setting, env, platform);
    if (!path)
      throw new VoxError(
        'VOX_ERR_RECORDER_MISSING',
        `${setting.includes('/') ? `${basename(setting)} (listen.recorder) is not an executable file` : `${setting} is not on PATH`}`,
      );
    return { path, kind };
  }
  for (const name of names) {
    const path = findExecutable(name, env, platform);
    if (path) return { path, kind: name };
  }
  throw new VoxError('VOX_ERR_RECORDER_MISSING', `none of ${names.join(', ')} is on PATH`);
}

/** How a capture ended: stopped by us, or the recorder exited on its own. */
export type CaptureEnd =
  { by: 'stop' } | { by: 'exit'; code: number | null; signal: NodeJS.Signals | null; bytes: number; stderr: string };

export interface CaptureOptions {
  recorder: { path: string; kind: RecorderKind };
  env?: NodeJS.ProcessEnv;
  spawn?: SpawnFn;
  /** Called with each block of PCM as the recorder writes it. */
  onData(chunk: Buffer): void;
  log?: { warn(obj: object, msg?: string): void };
}

/**
 * One running recorder. `ended` resolves once, with how it ended; after
 * `stop()` resolves, the recorder's whole process group is gone.
 */
export class Capture {
  readonly pid: number | undefined;
  readonly ended: Promise<CaptureEnd>;
  readonly #tree: ProcessTree;
  readonly #log: CaptureOptions['log'];
  #stopping = false;
  #bytes = 0;
  #stderr = '';

  private constructor(child: ChildProcess, options: CaptureOptions, tree: ProcessTree) {
    this.#tree = tree.track(child);
    this.#log = options.log;
    this.pid = child.pid;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (this.#stopping) return;
      this.#bytes += chunk.length;
      options.onData(chunk);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.#stderr = (this.#stderr + d).slice(-2000);
    });
    // 'exit', not 'close': a grandchild holding the pipes must not keep the capture open.
    this.ended = new Promise((resolve) => {
      const drained = new Promise<void>((r) => child.stdout!.once('close', () => r()));
      child.once('exit', (code, signal) => {
        // Whatever it started goes with it, even what left the group.
        const swept = this.#tree.end().then((gone) => {
          if (!gone)
            this.#log?.warn(
              { pid: this.pid, pids: this.#tree.known },
              'recorder processes still alive 1 s after SIGKILL',
            );
        });
        // The last blocks it wrote may still be in the pipe: they are part of the capture.
        void Promise.all([Promise.race([drained, new Promise((r) => setTimeout(r, 200))]), swept]).then(() =>
          resolve(
            this.#stopping
              ? { by: 'stop' }
              : { by: 'exit', code, signal, bytes: this.#bytes, stderr: lastLine(this.#stderr) },
          ),
        );
      });
    });
  }

  /** Spawn the recorder. Rejects (VOX_ERR_RECORDER_MISSING) when it cannot be started at all. */
  static start(options: CaptureOptions): Promise<Capture> {
    const spawn = options.spawn ?? nodeSpawn;
    const { path, kind } = options.recorder;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      const tree = new ProcessTree();
      try {
        // Its own process group (detached), so a stop ends it and anything it started.
        const env = tree.env(options.env ?? process.env);
        child = spawn(path, recorderArgs(kind), { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
      } catch (err) {
        reject(
          new VoxError(
            'VOX_ERR_RECORDER_MISSING',
            `${basename(path)} cannot be started (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
          ),
        );
        return;
      }
      // The handler that node-record-lpcm16 lacks: ENOENT or EACCES is an error, not a crash.
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (child.pid === undefined)
          reject(
            new VoxError(
              'VOX_ERR_RECORDER_MISSING',
              `${basename(path)} cannot be started (${err.code ?? err.message})`,
            ),
          );
      });
      child.once('spawn', () => resolve(new Capture(child, options, tree)));
    });
  }

  /**
   * Fork the recorder ahead of need: a shell, in the recorder's own group and
   * tree, parked on its stdin until `start()` has it exec the recorder (the
   * same pid, the same pipes). For the floor's next in line (listener.ts):
   * a fork's cost grows with voxd's RSS (its page tables are copied: some
   * 5 ms per 100 MB here, several times that on a loaded machine), and paid
   * while the listen queues it is off the hand-off (bench/barge-in.mjs). Until
   * the exec nothing holds the device. Undefined where there is no /bin/sh.
   */
  static park(options: Pick<CaptureOptions, 'recorder' | 'env' | 'spawn'>): ParkedRecorder | undefined {
    if (process.platform === 'win32') return undefined;
    const spawn = options.spawn ?? nodeSpawn;
    const { path, kind } = options.recorder;
    const tree = new ProcessTree();
    let child: ChildProcess;
    try {
      // `read` fails at EOF: a voxd that dies, or cancel(), ends the shell without running the recorder.
      child = spawn('/bin/sh', ['-c', 'read -r _ || exit 0; exec "$0" "$@" </dev/null', path, ...recorderArgs(kind)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: tree.env(options.env ?? process.env),
        detached: true,
      });
    } catch {
      return undefined;
    }
    let failed = false;
    child.once('error', () => (failed = true));
    child.stdin!.on('error', () => {}); // EPIPE when the shell is gone; start() then spawns afresh
    tree.track(child);
    let used = false;
    return {
      start: (o: CaptureOptions) => {
        const alive =
          !used && !failed && child.pid !== undefined && child.exitCode === null && child.signalCode === null;
        used = true;
        if (!alive) {
          tree.killNow();
          void tree.end();
          return Capture.start(o);
        }
        child.stdin!.end('go\n');
        return Promise.resolve(new Capture(child, o, tree));
      },
      cancel: async () => {
        if (used) return;
        used = true;
        child.stdin!.destroy();
        await tree.end();
      },
    };
  }

  /** Bytes of PCM received so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Kill the recorder's tree and resolve once it is gone. Harmless twice. */
  async stop(): Promise<void> {
    this.#stopping = true;
    // Its exit sweeps the rest of the tree (`ended` waits for that).
    this.#tree.killNow();
    await this.ended;
  }
}

/** A recorder forked but not yet run (Capture.park). */
export interface ParkedRecorder {
  /** Run the recorder (or, if the parked shell is gone, spawn it afresh); the capture as Capture.start gives it. */
  start(options: CaptureOptions): Promise<Capture>;
  /** Not needed after all: the shell is killed; resolves once it is gone. Nothing after start(). */
  cancel(): Promise<void>;
}

/** The last non-empty line: ALSA prints a page of configuration noise before the one that says what failed. */
function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}
