/**
 * macOS `say`. It cannot write audio to a pipe, so it renders a 16-bit
 * 22050 Hz WAV into a temp file, which is then streamed and deleted: the
 * first audio comes only after the whole utterance is rendered. `say` has no
 * volume flag, so volume is applied to the samples.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Voice } from '@vox/protocol';
import { applyGain } from '../audio/pcm.js';
import { EngineError, type Engine, type Readiness, type Synthesis, type SynthesisRequest } from './engine.js';
import { findExecutable } from '@vox/protocol';
import { readWav } from './espeak-ng.js';

export const SAY_SAMPLE_RATE = 22050;

export interface SayEngineOptions {
  /** Default process.platform; `say` is ready on darwin only. */
  platform?: NodeJS.Platform;
  /** Read for PATH. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Binary name or path. Default `say`. */
  bin?: string;
  /** Where the temp WAV files go. Default os.tmpdir(). */
  tmpDir?: string;
}

export class SayEngine implements Engine {
  readonly name = 'say';
  #platform: NodeJS.Platform;
  #env: NodeJS.ProcessEnv;
  #bin: string;
  #tmpDir: string;
  #voices: Voice[] | undefined;
  #children = new Set<ChildProcess>();

  constructor(options: SayEngineOptions = {}) {
    this.#platform = options.platform ?? process.platform;
    this.#env = options.env ?? process.env;
    this.#bin = options.bin ?? 'say';
    this.#tmpDir = options.tmpDir ?? tmpdir();
  }

  #path(): string | undefined {
    return this.#platform === 'darwin' ? findExecutable(this.#bin, this.#env, this.#platform) : undefined;
  }

  async ready(): Promise<Readiness> {
    if (this.#platform !== 'darwin') return { ready: false, reason: `say is macOS only (this is ${this.#platform})` };
    return this.#path() ? { ready: true } : { ready: false, reason: `${this.#bin} not found on PATH` };
  }

  understandsTags(): boolean {
    return false;
  }

  async voices(): Promise<Voice[]> {
    if (this.#voices) return this.#voices;
    const path = this.#path();
    if (!path) return [];
    const out = spawnSync(path, ['-v', '?'], { encoding: 'utf8', timeout: 10_000, env: this.#env });
    if (out.status !== 0) return [];
    this.#voices = parseSayVoices(out.stdout);
    return this.#voices;
  }

  async synthesize(request: SynthesisRequest): Promise<Synthesis> {
    const path = this.#path();
    if (!path)
      throw new EngineError(
        (await this.ready()).ready ? 'say unavailable' : `say is not available on ${this.#platform}`,
      );
    request.signal?.throwIfAborted();
    const dir = await mkdtemp(join(this.#tmpDir, 'vox-say-'));
    const file = join(dir, 'out.wav');
    const cleanup = () => rm(dir, { recursive: true, force: true }).catch(() => {});
    try {
      const args = ['--file-format=WAVE', `--data-format=LEI16@${SAY_SAMPLE_RATE}`, '-o', file, '-f', '-'];
      if (request.voice) args.push('-v', request.voice);
      if (request.rate !== undefined) args.push('-r', String(Math.round(request.rate)));
      await this.#run(path, args, request.text, request.signal);
      const wav = await readWav(createReadStream(file));
      const gain = Math.max(0, Math.min(1, request.volume ?? 1));
      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          for await (const chunk of wav.chunks) {
            request.signal?.throwIfAborted();
            yield applyGain(chunk, gain);
          }
        } finally {
          await cleanup();
        }
      }
      return { format: wav.format, chunks: chunks() };
    } catch (err) {
      await cleanup();
      throw err;
    }
  }

  #run(path: string, args: string[], text: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(path, args, { stdio: ['pipe', 'ignore', 'pipe'], env: this.#env, signal });
      this.#children.add(child);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        if (stderr.length < 2000) stderr += d;
      });
      child.stdin!.on('error', () => {});
      child.stdin!.end(text);
      child.once('error', (err) => {
        this.#children.delete(child);
        reject(signal?.aborted ? err : new EngineError(`say failed to start: ${err.message}`));
      });
      child.once('close', (code) => {
        this.#children.delete(child);
        if (code === 0) resolve();
        else
          reject(
            new EngineError(`say exited with code ${code}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`),
          );
      });
    });
  }

  async close(): Promise<void> {
    for (const child of this.#children) child.kill();
    this.#children.clear();
  }
}

/** Parse `say -v '?'`: `Name   en_US    # sample sentence`. Names may contain spaces. */
export function parseSayVoices(text: string): Voice[] {
  const voices: Voice[] = [];
  for (const line of text.split('\n')) {
    const m = /^(.+?)\s+([a-z]{2,3}[_-][A-Za-z0-9]+)\s+#/.exec(line);
    if (m) voices.push({ id: m[1]!.trim(), name: m[1]!.trim(), languages: [m[2]!.replace('_', '-')], engine: 'say' });
  }
  return voices;
}
