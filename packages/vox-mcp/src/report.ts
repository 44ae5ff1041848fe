/** Shared exit handling for the small commands: wire errors and client errors to exit codes. */
import type { WireError } from '@vox/protocol';
import { ConfigError } from './config.js';
import { EXIT, type CliContext } from './context.js';
import { ClientError } from './errors.js';

export function exitForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status >= 500) return EXIT.UNREACHABLE;
  return EXIT.REJECTED;
}

export function reportWireError(ctx: CliContext, name: string, status: number, body: unknown): number {
  const err = body as Partial<WireError> | undefined;
  ctx.stderr.write(`vox ${name}: ${err?.code ?? `HTTP ${status}`}: ${err?.message ?? 'request refused'}\n`);
  return exitForStatus(status);
}

export function reportThrown(ctx: CliContext, name: string, err: unknown): number {
  if (err instanceof ConfigError) {
    ctx.stderr.write(`vox ${name}: ${err.message}\n`);
    return EXIT.CONFIG_INVALID;
  }
  if (err instanceof ClientError) {
    ctx.stderr.write(`vox ${name}: ${err.code}: ${err.message}\n`);
    return err.code === 'VOX_ERR_CLIENT_USAGE' ? EXIT.USAGE : EXIT.UNREACHABLE;
  }
  ctx.stderr.write(`vox ${name}: unexpected error: ${(err as Error).message}\n`);
  return EXIT.INTERNAL;
}

/** True when semver `a` is older than `b` (numeric compare of major.minor.patch). */
export function olderThan(a: string, b: string): boolean {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}
