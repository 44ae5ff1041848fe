/** What every `vox daemon` action works with and reports into, and how it fails. */
import type { CliContext } from '../../context.js';

export interface Io {
  ctx: CliContext;
  json: boolean;
  /** --timeout: how long to wait for voxd to start or exit. */
  timeoutMs: number;
  /** Facts for --json, one object per action. */
  result: Record<string, unknown>;
  say(line: string): void;
  warn(line: string): void;
}

export function makeIo(ctx: CliContext, json: boolean, timeoutMs: number): Io {
  const warnings: string[] = [];
  const result: Record<string, unknown> = { warnings };
  return {
    ctx,
    json,
    timeoutMs,
    result,
    say: (line) => {
      if (!json) ctx.stdout.write(`${line}\n`);
    },
    warn: (line) => {
      warnings.push(line);
      if (!json) ctx.stderr.write(`warning: ${line}\n`);
    },
  };
}

/** A failure to report: message for stderr (or --json's "error") and the exit code. */
export class Failure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
