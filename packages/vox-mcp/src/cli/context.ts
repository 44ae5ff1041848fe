/**
 * Everything a command touches of the outside world, injected so that tests
 * drive commands without patching globals (citty's runMain, the SDK's stdio transport).
 */
import type { Readable, Writable } from 'node:stream';

export interface CliContext {
  /** Arguments after the command name. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /**
   * Aborts on Ctrl-C (SIGINT) or SIGTERM. Only a command that reads it handles
   * those signals (and can end cleanly, exit 0); for the others they end the
   * process as usual. Tests pass their own.
   */
  readonly signal?: AbortSignal;
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
} as const;

let interrupt: AbortController | undefined;

/**
 * The context of this process for a command given `argv`. The streams are
 * getters, so that a command that never touches stdin never opens it;
 * `signal` is one so that only a command that asks for it takes over Ctrl-C.
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
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get signal() {
      if (!interrupt) {
        const ac = (interrupt = new AbortController());
        const stop = () => ac.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      }
      return interrupt.signal;
    },
  };
}
