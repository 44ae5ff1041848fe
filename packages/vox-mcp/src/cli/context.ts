/**
 * Everything a command touches of the outside world, injected so that tests
 * drive commands without patching globals (citty's runMain, the SDK's stdio transport).
 */
import type { Readable, Writable } from 'node:stream';
import { AbortError } from '../errors.js';

export interface CliContext {
  /** Arguments after the command name. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /**
   * Takes over SIGINT, SIGTERM and SIGHUP for this process and returns a
   * signal that aborts on the first of them; the command then ends itself,
   * promptly, exit 0 (docs/cli.md). A method, not a getter: spreading or
   * copying the context must not take over the signals (a getter's side
   * effect ran on `{ ...ctx }` and left `vox mcp` deaf to them). Only a
   * command that calls it handles the signals; for the others they end the
   * process as usual. Tests pass their own.
   */
  takeSignals?: () => AbortSignal;
}

/** A command returns its exit code. */
export type Command = (ctx: CliContext) => Promise<number>;

/** Exit codes of `vox` (docs/cli.md). */
export const EXIT = {
  OK: 0,
  /** Unexpected failure inside vox. */
  INTERNAL: 1,
  /** Bad flags or arguments. */
  USAGE: 2,
  /** voxd could not be reached or started. */
  UNREACHABLE: 3,
  /** voxd refused the input (400, 413). */
  REJECTED: 4,
  /** Playback or synthesis failed (with --wait). */
  PLAYBACK_FAILED: 5,
  /** voxd refused the token (401/403). */
  AUTH: 6,
  /** The project's .vox/config.md is invalid. */
  CONFIG_INVALID: 7,
  /** `vox talk`: the text was held, but the session's Claude Code will not show it, or vox cannot tell that it will. */
  NOT_SHOWN: 8,
} as const;

/** The signals a long-running command ends on: Ctrl-C, a polite kill, the terminal (or the session) going away. */
export const END_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let interrupt: AbortController | undefined;

/**
 * Whether a signal has asked this process to end (after `takeSignals`). The
 * entry then exits once the command returns, whatever handle is left open (a
 * request to voxd, a voxd being started): nothing may keep a process that was
 * told to stop waiting on voxd.
 */
export function interrupted(): boolean {
  return interrupt?.signal.aborted === true;
}

/** How long an exit waits for stdout and stderr to drain to a reader that has stopped reading. */
const FLUSH_MS = 1000;

/**
 * Ends the process with `code` once stdout and stderr have taken what was
 * written (a pipe's writes can be asynchronous, as on macOS), or after
 * FLUSH_MS when a reader has stopped reading.
 */
export function exitAfterFlush(code: number): void {
  let left = 2;
  const done = () => {
    if (--left === 0) process.exit(code);
  };
  setTimeout(() => process.exit(code), FLUSH_MS).unref();
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/**
 * `work`, or an AbortError once `signal` aborts, whichever comes first: a
 * command waiting on voxd (an answer, a voxd being started) stops waiting at
 * once; what is left of the work ends with the process.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new AbortError('stopped by a signal'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

function takeSignals(): AbortSignal {
  if (!interrupt) {
    const ac = (interrupt = new AbortController());
    const stop = () => {
      // A second signal while the command is ending (Claude Code sends SIGTERM 100 ms after SIGINT): end now.
      if (ac.signal.aborted) exitAfterFlush(typeof process.exitCode === 'number' ? process.exitCode : 0);
      else ac.abort();
    };
    for (const name of END_SIGNALS) process.on(name, stop);
  }
  return interrupt.signal;
}

let pipeWatched = false;

/**
 * process.stdout as commands get it: when its reader stops early (`vox voices
 * | head`), a write fails with EPIPE, and the process ends at once, exit 0,
 * with nothing on stderr (docs/cli.md), whatever the command was doing, as a
 * killed-by-SIGPIPE C tool would but without the 141. A command that handles
 * its stdout's end itself (`vox mcp`, `vox logs -f`) listens too, and goes on
 * its own way; any other error of stdout is thrown as before.
 */
function watchedStdout(): NodeJS.WriteStream {
  if (!pipeWatched) {
    pipeWatched = true;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (process.stdout.listenerCount('error') > 1) return;
      if (err.code === 'EPIPE') process.exit(EXIT.OK);
      throw err;
    });
  }
  return process.stdout;
}

/**
 * The context of this process for a command given `argv`. The streams are
 * getters, so that a command that never touches stdin never opens it;
 * `takeSignals` is a method, so that only a command that calls it takes over
 * the signals.
 */
export function processContext(argv: string[]): CliContext {
  return {
    argv,
    env: process.env,
    cwd: process.cwd(),
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return watchedStdout();
    },
    get stderr() {
      return process.stderr;
    },
    takeSignals,
  };
}
