/**
 * The WAV of a text without playing it (POST /v1/synthesize), for `vox say
 * --out FILE.wav` (cli/out-file.ts writes it) and the MCP `record` tool.
 *
 * `--out` writes WAV only: voxd makes WAV, and encoding MP3 or Ogg would mean
 * an encoder dependency on the client for little gain (any converter takes the
 * WAV). A missing directory is named, not created: from a shell it is more
 * often a typo than a wish (the MCP tool, whose paths come from the model,
 * creates it).
 */
import { statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import type { WireError } from '@vox/protocol';
import { call } from './call.js';
import { resolveEndpoint } from './endpoint.js';
import { requestBytes } from '../daemon/http.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { buildDelivery, type SpeechOverrides } from '../project/speech.js';

/** Fetch the audio of `text` as WAV bytes, or a wire error. */
export async function synthesizeWav(
  env: NodeJS.ProcessEnv,
  text: string,
  config: ResolvedConfig,
  session: string,
  overrides: SpeechOverrides,
): Promise<{ wav: Buffer; engine?: string; fallbackReason?: string } | { error: WireError }> {
  // Recording ignores `speak: false`: the caller asked for the audio itself.
  const delivery = buildDelivery(text, { ...config, values: { ...config.values, speak: true } }, session, overrides);
  const {
    wait: _w,
    once: _o,
    dedupKey: _k,
    maxAgeMs: _m,
    priority: _p,
    ...body
  } = delivery.body as unknown as Record<string, unknown>;
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
  const header = (name: string) => (typeof res.headers[name] === 'string' ? (res.headers[name] as string) : undefined);
  const engine = header('x-vox-engine');
  const fallbackReason = header('x-vox-fallback-reason');
  return { wav: res.bytes, ...(engine ? { engine } : {}), ...(fallbackReason ? { fallbackReason } : {}) };
}

/** Duration of a PCM WAV in seconds, from its `fmt ` and `data` chunks; undefined if the header is not understood. */
export function wavSeconds(wav: Buffer): number | undefined {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE')
    return undefined;
  let byteRate: number | undefined;
  for (let at = 12; at + 8 <= wav.length;) {
    const id = wav.toString('ascii', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 20 <= wav.length) byteRate = wav.readUInt32LE(at + 16);
    if (id === 'data') return byteRate ? Math.min(size, wav.length - at - 8) / byteRate : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/** Why `out` cannot be written to, checked before anything is synthesized; undefined when it can. */
export function outProblem(cwd: string, out: string): string | undefined {
  const ext = extname(out);
  if (ext.toLowerCase() !== '.wav') {
    return `--out writes WAV files only, and "${out}" ${ext ? `ends in ${ext}` : 'has no extension'}: give a name ending in .wav (convert it afterwards, e.g. ffmpeg -i speech.wav speech.mp3)`;
  }
  const dir = dirname(out);
  let isDir: boolean;
  try {
    isDir = statSync(resolve(cwd, dir)).isDirectory();
  } catch {
    return `cannot write "${out}": the directory "${dir}" does not exist; create it first (mkdir -p ${JSON.stringify(dir)})`;
  }
  if (!isDir) return `cannot write "${out}": "${dir}" is not a directory`;
  return undefined;
}
