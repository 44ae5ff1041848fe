/**
 * The system `espeak-ng` binary, when installed. Faster to start than the
 * embedded wasm build and it has every voice the distribution ships.
 *
 * `espeak-ng --stdout` writes a WAV stream whose size fields are placeholders,
 * so the header is parsed for the format and the rest is streamed as PCM.
 * The text goes in on stdin (never argv): no length limit, and text that
 * starts with `-` cannot turn into an option.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { findExecutable, type Voice } from '@vox/protocol';
import { slices } from '../audio/pcm.js';
import { EngineError, type Engine, type Readiness, type Synthesis, type SynthesisRequest } from './engine.js';
import type { AudioFormat } from '../audio/pcm.js';

export interface EspeakNgEngineOptions {
  /** Read for PATH. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Binary name or path. Default `espeak-ng`. */
  bin?: string;
  platform?: NodeJS.Platform;
}

/**
 * Read a WAV stream: resolves with the format once the `data` chunk starts,
 * and streams the PCM after it, sample-aligned. A placeholder data size
 * (0 or near 2^31, as a pipe gives) means "until the end".
 */
export async function readWav(source: AsyncIterable<Buffer>): Promise<Synthesis> {
  const it = source[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  const need = async (n: number): Promise<boolean> => {
    while (buf.length < n) {
      const r = await it.next();
      if (r.done) return false;
      buf = buf.length ? Buffer.concat([buf, r.value]) : r.value;
    }
    return true;
  };
  if (!(await need(12)) || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    await it.return?.();
    throw new EngineError('not a WAV stream');
  }
  let pos = 12;
  let format: AudioFormat | undefined;
  for (;;) {
    if (!(await need(pos + 8))) throw new EngineError('WAV stream ended before its data');
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    pos += 8;
    if (id === 'data') {
      if (!format) throw new EngineError('WAV data before its fmt chunk');
      const limit = size === 0 || size >= 0x7fff0000 ? Infinity : size;
      const rest = buf.subarray(pos);
      return { format, chunks: slices(bounded(rest, it, limit), 1 << 20) };
    }
    if (!(await need(pos + size))) throw new EngineError(`WAV stream ended inside its ${id} chunk`);
    if (id === 'fmt ') {
      const tag = buf.readUInt16LE(pos);
      const channels = buf.readUInt16LE(pos + 2);
      const sampleRate = buf.readUInt32LE(pos + 4);
      const bits = buf.readUInt16LE(pos + 14);
      if ((tag !== 1 && tag !== 0xfffe) || channels !== 1 || bits !== 16) {
        throw new EngineError(
          `unsupported WAV format (tag ${tag}, ${channels} channels, ${bits} bits); need 16-bit mono PCM`,
        );
      }
      format = { sampleRate, channels: 1, bitDepth: 16 };
    }
    pos += size + (size % 2);
  }
}

async function* bounded(first: Buffer, it: AsyncIterator<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let left = limit;
  try {
    if (first.length) {
      const head = first.subarray(0, Math.min(first.length, left));
      left -= head.length;
      yield head;
    }
    while (left > 0) {
      const r = await it.next();
      if (r.done) return;
      const chunk = r.value.length > left ? r.value.subarray(0, left) : r.value;
      left -= chunk.length;
      yield chunk;
    }
  } finally {
    await it.return?.();
  }
}

export class EspeakNgEngine implements Engine {
  readonly name: string = 'espeak-ng';
  #env: NodeJS.ProcessEnv;
  #bin: string;
  #platform: NodeJS.Platform;
  #voices: Voice[] | undefined;
  #children = new Set<ChildProcess>();

  constructor(options: EspeakNgEngineOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#bin = options.bin ?? 'espeak-ng';
    this.#platform = options.platform ?? process.platform;
  }

  #path(): string | undefined {
    return findExecutable(this.#bin, this.#env, this.#platform);
  }

  async ready(): Promise<Readiness> {
    return this.#path()
      ? { ready: true }
      : {
          ready: false,
          reason: `${this.#bin} is not installed (not found on PATH); install it with "apt-get install espeak-ng" or "brew install espeak-ng"`,
        };
  }

  understandsTags(): boolean {
    return false;
  }

  async voices(): Promise<Voice[]> {
    if (this.#voices) return this.#voices;
    const path = this.#path();
    if (!path) return [];
    const out = spawnSync(path, ['--voices'], { encoding: 'utf8', timeout: 10_000, env: this.#env });
    if (out.status !== 0) return [];
    this.#voices = parseEspeakVoices(out.stdout, this.name);
    return this.#voices;
  }

  async synthesize(request: SynthesisRequest): Promise<Synthesis> {
    const path = this.#path();
    if (!path) throw new EngineError(`${this.#bin} is not installed`);
    request.signal?.throwIfAborted();
    const args = ['--stdout', '--stdin'];
    if (request.voice) args.push('-v', request.voice);
    if (request.rate !== undefined) args.push('-s', String(Math.round(request.rate)));
    // espeak-ng amplitude: 0–200, 100 is normal; vox volume 1 maps to 100.
    if (request.volume !== undefined)
      args.push('-a', String(Math.round(Math.max(0, Math.min(1, request.volume)) * 100)));
    const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'], env: this.#env, signal: request.signal });
    this.#children.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    }).finally(() => this.#children.delete(child));
    child.stdin!.on('error', () => {}); // EPIPE when espeak-ng exits early; `exited` reports why.
    child.stdin!.end(request.text);

    const failure = async (): Promise<Error> => {
      const { code, error } = await exited;
      if (request.signal?.aborted) return abortError(request.signal);
      if (error) return new EngineError(`${this.#bin} failed to start: ${error.message}`);
      return new EngineError(
        `${this.#bin} exited with code ${code}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
      );
    };

    let wav: Synthesis;
    try {
      wav = await readWav(child.stdout!);
    } catch {
      child.kill();
      throw await failure();
    }
    async function* chunks(): AsyncGenerator<Buffer> {
      let complete = false;
      try {
        yield* wav.chunks;
        complete = true;
      } catch {
        throw await failure();
      } finally {
        // A consumer that stops early (or an error) leaves nothing running.
        if (!complete && child.exitCode === null) child.kill();
      }
      const { code } = await exited;
      if (code !== 0) throw await failure();
    }
    return { format: wav.format, chunks: chunks() };
  }

  async close(): Promise<void> {
    for (const child of this.#children) child.kill();
    this.#children.clear();
  }
}

/** Parse `espeak-ng --voices`: one voice per language code, named by VoiceName. */
export function parseEspeakVoices(text: string, engine = 'espeak-ng'): Voice[] {
  const voices = new Map<string, Voice>();
  for (const line of text.split('\n').slice(1)) {
    const m = /^\s*\d+\s+(\S+)\s+\S+\s+(\S+)\s+\S+(?:\s+(.*))?$/.exec(line);
    if (!m) continue;
    const [, lang, name, other] = m as unknown as [string, string, string, string | undefined];
    if (voices.has(lang)) continue;
    const extra = [...(other ?? '').matchAll(/\(([^\s)]+)/g)].map((x) => x[1]!);
    voices.set(lang, {
      id: lang,
      name: name.replace(/_/g, ' '),
      languages: [lang, ...extra.filter((l) => l !== lang)],
      engine,
    });
  }
  return [...voices.values()];
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  // The platform's own abort error, as signal.reason is when abort() is given none.
  return r instanceof Error ? r : new DOMException('aborted', 'AbortError');
}
