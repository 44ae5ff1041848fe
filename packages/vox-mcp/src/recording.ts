/** `vox say --out FILE.wav`: POST /v1/synthesize and save the WAV, without playing it. */
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WireError } from '@vox/protocol';
import { call, requestBytes, resolveEndpoint } from './client.js';
import type { ResolvedConfig } from './config.js';
import { EXIT, type CliContext } from './context.js';
import { buildDelivery, type SpeechOverrides } from './speech.js';

/** Fetch the audio of `text` as WAV bytes, or a wire error. */
export async function synthesizeWav(
  env: NodeJS.ProcessEnv,
  text: string,
  config: ResolvedConfig,
  session: string,
  overrides: SpeechOverrides,
): Promise<{ wav: Buffer } | { error: WireError }> {
  // Recording ignores `speak: false`: the caller asked for the audio itself.
  const delivery = buildDelivery(text, { ...config, values: { ...config.values, speak: true } }, session, overrides);
  const { wait: _w, once: _o, dedupKey: _k, maxAgeMs: _m, priority: _p, ...body } = delivery.body as unknown as Record<string, unknown>;
  await call(env, 'GET', '/v1/health'); // starts voxd if needed
  const endpoint = resolveEndpoint(env)!;
  const res = await requestBytes(endpoint, 'POST', '/v1/synthesize', body, 120_000);
  if (res.status !== 200) {
    try {
      return { error: JSON.parse(res.bytes.toString('utf8')) as WireError };
    } catch {
      return { error: { code: 'VOX_ERR_INTERNAL', message: `HTTP ${res.status}`, statusCode: res.status } };
    }
  }
  return { wav: res.bytes };
}

export async function recordTo(
  ctx: CliContext,
  out: string,
  text: string,
  config: ResolvedConfig,
  session: string,
  overrides: SpeechOverrides,
): Promise<number> {
  const result = await synthesizeWav(ctx.env, text, config, session, overrides);
  if ('error' in result) {
    ctx.stderr.write(`vox say: ${result.error.code}: ${result.error.message}\n`);
    return result.error.statusCode === 401 || result.error.statusCode === 403 ? EXIT.AUTH : EXIT.REJECTED;
  }
  const path = resolve(ctx.cwd, out);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, result.wav);
  renameSync(tmp, path);
  return EXIT.OK;
}
