/**
 * Speech to text inside voxd: sherpa-onnx-node's OfflineRecognizer on a model
 * in VOX_HOME/asr/NAME/, nothing leaves the machine.
 *
 * Design notes:
 * - A model directory holds `vox-asr.json` ({"format": 1, "type":
 *   "nemo_ctc", "files": {"model", "tokens"}}) beside its files; the first
 *   such directory by name is the one used. `vox voices install` writes it
 *   for a recognizer of the catalogue. Types: nemo_ctc (the synthetic test
 *   model, scripts/synthetic-recognizer.mjs, is one), whisper and moonshine
 *   (ASR_FILES in @vox/protocol/models says the files each needs); a
 *   manifest of another type is refused by name, not guessed at.
 * - createAsync and decodeAsync run on libuv's pool: voxd's event loop (and
 *   its playback) goes on while a model loads or decodes.
 * - The model is loaded on the first transcript and kept: sherpa's native
 *   objects do not give their memory back when collected (listen/silero.ts),
 *   so reloading per listen would grow voxd. An idle voxd that never listened
 *   has loaded nothing.
 * - A decode cannot be cancelled: past `timeoutMs`, or when the client goes,
 *   the listen answers at once and the decode's result is dropped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { ASR_FILES, ASR_TYPES, asrModelsDir, isAsrType, type AsrType } from '@vox/protocol/models';
import { VoxError } from '../errors.js';
import type { Transcript } from './transcriber.js';

/** Where local recognizer models live. */
export const asrDir = asrModelsDir;

export interface AsrModel {
  name: string;
  dir: string;
  type: AsrType;
  /** Absolute paths, by ASR_FILES' names. */
  files: Record<string, string>;
}

/** The sherpa-onnx OfflineRecognizer modelConfig for `model`. */
export function modelConfig(model: AsrModel): object {
  const f = model.files;
  const family =
    model.type === 'whisper'
      ? { whisper: { encoder: f.encoder, decoder: f.decoder } }
      : model.type === 'moonshine'
        ? {
            moonshine: {
              preprocessor: f.preprocessor,
              encoder: f.encoder,
              uncachedDecoder: f.uncachedDecoder,
              cachedDecoder: f.cachedDecoder,
            },
          }
        : { nemoCtc: { model: f.model } };
  return { ...family, tokens: f.tokens, numThreads: 1, provider: 'cpu', debug: 0 };
}

interface SherpaRecognizer {
  createStream(): { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void };
  decodeAsync(stream: ReturnType<SherpaRecognizer['createStream']>): Promise<unknown>;
  getResult(stream: ReturnType<SherpaRecognizer['createStream']>): { text?: string };
}
type RecognizerClass = { createAsync(config: object): Promise<SherpaRecognizer> };

/** The most of a manifest read. */
const MAX_MANIFEST_BYTES = 64 * 1024;

/** The installed model voxd would use, or undefined; a damaged one is an error naming the directory. */
export function findAsrModel(home: string): AsrModel | undefined {
  let names: string[];
  try {
    names = readdirSync(asrDir(home)).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const dir = join(asrDir(home), name);
    const manifest = join(dir, 'vox-asr.json');
    let st;
    try {
      st = statSync(manifest);
    } catch {
      continue;
    }
    const broken = (why: string) => unavailable(`model ${name} is damaged: ${why}`, reinstall(name, dir));
    if (st.size > MAX_MANIFEST_BYTES)
      throw broken(`${manifest} is over ${MAX_MANIFEST_BYTES / 1024} KB, not a manifest`);
    let m: { type?: unknown; files?: Record<string, unknown> };
    try {
      m = JSON.parse(readFileSync(manifest, 'utf8'));
    } catch {
      throw broken(`${manifest} is not JSON`);
    }
    if (!isAsrType(m.type))
      throw unavailable(
        `model ${name}: ${manifest}: type ${String(JSON.stringify(m.type)).slice(0, 40)} is not one voxd runs (${ASR_TYPES.join(', ')})`,
        `remove ${dir}, or install a model voxd runs ("vox voices install whisper-tiny.en-int8")`,
      );
    const files: Record<string, string> = {};
    for (const key of ASR_FILES[m.type]) files[key] = inside(dir, m.files?.[key], manifest, key, broken);
    return { name, dir, type: m.type, files };
  }
  return undefined;
}

/** A manifest's file, which must stay inside the model's directory. */
function inside(dir: string, file: unknown, manifest: string, key: string, broken: (why: string) => VoxError): string {
  if (typeof file !== 'string' || !file || isAbsolute(file) || normalize(file).split(sep).includes('..'))
    throw broken(`${manifest}: files.${key} must be a path inside ${dir}`);
  const path = join(dir, file);
  try {
    statSync(path);
  } catch {
    throw broken(`${path} (named in ${manifest}) is missing`);
  }
  return path;
}

/*
 * The local recognizer cannot run (VOX_ERR_RECOGNIZER_UNAVAILABLE): each cause
 * with its own fix, since the transcriber's (check transcriber.url) is no help
 * here. Decoding that fails is VOX_ERR_RECOGNIZER_FAILED (failed), one that
 * runs out of time a transcriber timeout.
 */
function unavailable(cause: string, fix: string): VoxError & { why: string; fix: string } {
  // The parts too, for GET /v1/status's account of the transcriber (transcription.ts).
  return Object.assign(new VoxError('VOX_ERR_RECOGNIZER_UNAVAILABLE', cause, fix), { why: cause, fix });
}

/** What a module or model threw, for a message: its first line, at most 200 characters. */
function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 200);
}

/** A decode that threw: the recognizer's own words, bounded, and the way to put the model back. */
function failed(err: unknown, model: AsrModel): VoxError {
  return new VoxError(
    'VOX_ERR_RECOGNIZER_FAILED',
    `model ${model.name} (${model.type}) threw "${firstLine(err)}"`,
    reinstall(model.name, model.dir),
  );
}

/** How to put a damaged model back: its name is its catalogue id when `vox voices install` put it there. */
function reinstall(name: string, dir: string): string {
  return `install it again: "vox voices install ${name} --force" (offline: "vox voices install ${name} --force --from FILE", the archive fetched elsewhere), or remove ${dir}`;
}

/** What to do with no model, or no sherpa-onnx-node: install it, or transcribe with the server. */
const NO_MODEL_FIX =
  'install one: "vox voices install whisper-tiny.en-int8" (offline: "vox voices install whisper-tiny.en-int8 --from FILE", the archive fetched elsewhere), or transcribe with a server: "vox daemon config set transcriber.kind server" and transcriber.url';

export interface RecognizerOptions {
  home: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  log?: { info(obj: object, msg?: string): void };
}

export class LocalRecognizer {
  readonly #o: RecognizerOptions;
  #loaded: { key: string; recognizer: Promise<SherpaRecognizer> } | undefined;

  constructor(options: RecognizerOptions) {
    this.#o = options;
  }

  /** Whether a model is installed (a damaged one counts: transcribing says what is wrong). */
  get installed(): boolean {
    try {
      return findAsrModel(this.#o.home) !== undefined;
    } catch {
      return true;
    }
  }

  /** Where it runs, for messages. */
  get endpoint(): string {
    return `the local recognizer in ${asrDir(this.#o.home)}`;
  }

  async transcribe(wav: Buffer, options: { signal?: AbortSignal } = {}): Promise<Transcript & { by: string }> {
    const model = findAsrModel(this.#o.home);
    if (!model)
      throw unavailable(
        `transcriber.kind is local, but no model is installed in ${asrDir(this.#o.home)}`,
        NO_MODEL_FIX,
      );
    const started = performance.now();
    const recognizer = await this.#recognizer(model);
    const samples = floatSamples(wav);
    const stream = recognizer.createStream();
    stream.acceptWaveform({ sampleRate: 16_000, samples });
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new VoxError('VOX_ERR_TRANSCRIBER_TIMEOUT', this.#o.timeoutMs)),
        this.#o.timeoutMs,
      );
      const cancel = () =>
        reject(
          Object.assign(new VoxError('VOX_ERR_TRANSCRIBER_FAILED', 'the listen was cancelled'), { aborted: true }),
        );
      if (options.signal?.aborted) cancel();
      else options.signal?.addEventListener('abort', cancel, { once: true });
    });
    try {
      await Promise.race([
        recognizer.decodeAsync(stream).catch((err: unknown) => Promise.reject(failed(err, model))),
        limit,
      ]);
    } finally {
      clearTimeout(timer);
    }
    const text = String(recognizer.getResult(stream).text ?? '').trim();
    return { text, ms: Math.round(performance.now() - started), by: `local ${model.name} (${model.type})` };
  }

  /** The loaded recognizer for `model`, loading it once (again only when another model is installed). */
  #recognizer(model: AsrModel): Promise<SherpaRecognizer> {
    const key = `${model.dir}:${JSON.stringify(model.files)}`;
    if (this.#loaded?.key === key) return this.#loaded.recognizer;
    const name = this.#o.env?.VOXD_SHERPA_MODULE ?? 'sherpa-onnx-node';
    let mod: { OfflineRecognizer?: RecognizerClass };
    try {
      mod = createRequire(import.meta.url)(name) as typeof mod;
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
      const why = missing
        ? 'is not installed (an optional dependency of voxd that did not install)'
        : `does not load (${firstLine(err)})`;
      throw unavailable(
        `${name}, which runs model ${model.name}, ${why}`,
        `"npm install sherpa-onnx-node" in vox's directory adds it, or transcribe with a server: "vox daemon config set transcriber.kind server" and transcriber.url`,
      );
    }
    if (!mod.OfflineRecognizer)
      throw unavailable(
        `${name} has no OfflineRecognizer (too old a version)`,
        `"npm install sherpa-onnx-node@latest" in vox's directory`,
      );
    const config = {
      featConfig: { sampleRate: 16_000, featureDim: 80 },
      modelConfig: modelConfig(model),
    };
    const recognizer = mod.OfflineRecognizer.createAsync(config).catch((err: Error) => {
      this.#loaded = undefined;
      throw unavailable(`model ${model.name} does not load (${firstLine(err)})`, reinstall(model.name, model.dir));
    });
    this.#loaded = { key, recognizer };
    this.#o.log?.info({ model: model.name, type: model.type }, 'loading the local recognizer');
    return recognizer;
  }
}

/** Our own WAV (toWav: 44-byte header, s16le mono 16 kHz) as float samples. */
function floatSamples(wav: Buffer): Float32Array {
  const pcm = wav.subarray(44);
  const out = new Float32Array(pcm.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = pcm.readInt16LE(i * 2) / 32768;
  return out;
}
