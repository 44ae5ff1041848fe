/**
 * `vox say --out FILE.wav`: the WAV that client/recording.ts synthesizes,
 * written whole (a temporary file renamed into place) and reported as the
 * command's output and exit code.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { synthesizeWav, wavSeconds } from '../client/recording.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import type { SpeechOverrides } from '../project/speech.js';
import { EXIT, type CliContext } from './context.js';

export interface RecordOptions {
  /** Print {path, bytes, seconds, engine} instead of the sentence. */
  json?: boolean;
  /** Print nothing. */
  quiet?: boolean;
}

export async function recordTo(
  ctx: CliContext,
  out: string,
  text: string,
  config: ResolvedConfig,
  session: string,
  overrides: SpeechOverrides,
  options: RecordOptions = {},
): Promise<number> {
  const result = await synthesizeWav(ctx.env, text, config, session, overrides);
  if ('error' in result) {
    if (!options.quiet) ctx.stderr.write(`vox say: ${result.error.code}: ${result.error.message}\n`);
    return result.error.statusCode === 401 || result.error.statusCode === 403 ? EXIT.AUTH : EXIT.REJECTED;
  }
  const path = resolve(ctx.cwd, out);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, result.wav);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    const e = err as NodeJS.ErrnoException;
    if (!options.quiet)
      ctx.stderr.write(
        `vox say: cannot write "${out}": ${e.code ?? e.message}${e.code === 'EACCES' ? ' (no permission to write there)' : ''}\n`,
      );
    return EXIT.INTERNAL;
  }
  const seconds = wavSeconds(result.wav);
  const engine = result.engine ?? 'unknown';
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ path, bytes: result.wav.length, seconds: seconds ?? null, engine, ...(result.fallbackReason ? { fallbackReason: result.fallbackReason } : {}) })}\n`,
    );
  } else if (!options.quiet) {
    if (result.fallbackReason) ctx.stderr.write(`vox say: recorded with ${engine}: ${result.fallbackReason}\n`);
    const length = seconds === undefined ? '' : `${seconds.toFixed(1)} s of audio, `;
    ctx.stdout.write(`Wrote ${length}${Math.ceil(result.wav.length / 1024)} KB (${engine}) to ${out}\n`);
  }
  return EXIT.OK;
}
