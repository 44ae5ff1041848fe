/**
 * How a command reports what went wrong: voxd's refusals (wire errors) and
 * what a command throws, each as one line on stderr and an exit code by kind.
 * The definer (command.ts) reports every throw with these, so a command
 * catches only what it reports differently.
 */
import { printable, type WireError } from '@vox/protocol';
import { UsageError, usageLine } from './usage.js';
import { ConfigError } from '../project/config-validation.js';
import { EXIT, type CliContext } from './context.js';
import { ClientError } from '../errors.js';

export function exitForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status >= 500) return EXIT.UNREACHABLE;
  return EXIT.REJECTED;
}

/** With `quiet`, the exit code is the only report. */
export interface ReportOptions {
  quiet?: boolean;
}

/** A report's text, line by line, with the control characters that any quoted key, value or path holds escaped. */
const shown = (text: string) => text.split('\n').map(printable).join('\n');

function write(ctx: CliContext, name: string, line: string, options: ReportOptions): void {
  if (!options.quiet) ctx.stderr.write(`vox ${name}: ${shown(line)}\n`);
}

export function reportWireError(
  ctx: CliContext,
  name: string,
  status: number,
  body: unknown,
  options: ReportOptions = {},
): number {
  const err = body as Partial<WireError> | undefined;
  write(ctx, name, `${err?.code ?? `HTTP ${status}`}: ${err?.message ?? 'request refused'}`, options);
  // voxd is up but nothing can be heard: that is a playback failure, not an unreachable daemon.
  if (err?.code === 'VOX_ERR_AUDIO_UNAVAILABLE') return EXIT.PLAYBACK_FAILED;
  return exitForStatus(status);
}

/** A thrown error: its cause (and the fix its message names) on stderr; the exit code by kind. */
export function reportThrown(ctx: CliContext, name: string, err: unknown, options: ReportOptions = {}): number {
  if (err instanceof ConfigError) {
    write(ctx, name, `${err.code}: ${err.firstProblem}`, options);
    return EXIT.CONFIG_INVALID;
  }
  if (err instanceof UsageError) {
    if (!options.quiet) ctx.stderr.write(usageLine(name, err.message));
    return EXIT.USAGE;
  }
  if (err instanceof ClientError) {
    write(ctx, name, `${err.code}: ${err.message}`, options);
    return err.code === 'VOX_ERR_CLIENT_USAGE' ? EXIT.USAGE : EXIT.UNREACHABLE;
  }
  write(ctx, name, `unexpected error: ${err instanceof Error ? err.message : String(err)}`, options);
  return EXIT.INTERNAL;
}

/**
 * A warning of a command that must not fail (vox hook): one line whatever the
 * text holds, and never a throw of its own, even when stderr is closed.
 */
export function warn(ctx: CliContext, name: string, line: string): void {
  try {
    ctx.stderr.write(`vox ${name}: ${printable(line.replace(/\s*\n\s*/g, ' '))}\n`);
  } catch {
    // stderr closed: nothing more to do
  }
}

/** What a command that must not fail threw, as its warning: the error's code (when its message lacks it) and message. */
export function warnThrown(ctx: CliContext, name: string, err: unknown): void {
  if (!(err instanceof Error)) return warn(ctx, name, String(err));
  const { code } = err as Error & { code?: unknown };
  warn(ctx, name, `${code && !err.message.includes(String(code)) ? `${String(code)}: ` : ''}${err.message}`);
}
