/**
 * Installed voice models: the layout of `VOX_HOME/models`, the manifest each
 * model directory carries, and the check that tells a whole model from a
 * damaged or partial one. Shared by `vox voices install` (which writes the
 * manifest) and voxd (which loads only models that pass `checkModel`).
 *
 * Design notes:
 * - A model directory appears under its final name only by one rename of a
 *   fully unpacked staging directory, and `vox-model.json` is written into the
 *   staging directory last. A directory without it is not a model.
 * - The manifest records every file's size. `checkModel` compares them (a stat
 *   per file, no hashing): a truncated copy, a deleted or an added-to file is
 *   refused with its name before anything is loaded. Bit-level damage with the
 *   size intact is caught at install by the archive's SHA-256 and bzip2's CRCs;
 *   after that, voxd loads the model in a child process, so a model that still
 *   crashes the loader costs that child, not voxd.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The manifest's file name inside a model directory. */
export const MODEL_MANIFEST = 'vox-model.json';

/** A model's name: also its directory under `VOX_HOME/models`. */
export const MODEL_NAME = /^[a-z0-9][a-z0-9._-]{0,79}$/i;

/** The sherpa-onnx model families vox can load. */
export type ModelType = 'vits' | 'kokoro' | 'kitten' | 'matcha';
export const MODEL_TYPES: readonly ModelType[] = ['vits', 'kokoro', 'kitten', 'matcha'];

export interface ModelSpeaker {
  /** The speaker's name within the model, e.g. `af_bella`. */
  id: string;
  /** sherpa-onnx speaker id. */
  sid: number;
  /** Display name; default the id. */
  name?: string;
  /** BCP 47 codes; default the model's. */
  languages?: string[];
}

/** Paths inside the model directory, as sherpa-onnx's config names them. */
export interface ModelFiles {
  model: string;
  tokens: string;
  /** Kokoro and Kitten style vectors. */
  voices?: string;
  /** espeak-ng-data directory (Piper, Kokoro, Kitten). */
  dataDir?: string;
  lexicon?: string;
  /** Matcha's vocoder. */
  vocoder?: string;
}

export interface ModelManifest {
  format: 1;
  name: string;
  type: ModelType;
  files: ModelFiles;
  speakers: ModelSpeaker[];
  /** BCP 47 codes. */
  languages: string[];
  /** SPDX identifier or a short description. */
  licence: string;
  /** Where it came from: the archive's file name and SHA-256, and the URL when downloaded. */
  source: { archive: string; sha256: string; url?: string };
  /** Byte size of every file, by path relative to the directory (`/`-separated). */
  sizes: Record<string, number>;
  installedAt: string;
}

export type ModelCheck =
  { ok: true; manifest: ModelManifest; dir: string } | { ok: false; name: string; dir: string; reason: string };

export function modelsDir(home: string): string {
  return join(home, 'models');
}

/** Every regular file under `dir`, `/`-separated and relative, with its size. Skips nothing. */
export function fileSizes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) out[rel] = statSync(join(dir, rel)).size;
    }
  };
  walk('');
  return out;
}

/** Whether `rel` stays inside its directory (no absolute path, no `..`). */
function inside(rel: string): boolean {
  return (
    rel !== '' &&
    !rel.startsWith('/') &&
    !rel.startsWith(sep) &&
    !/^[a-z]:/i.test(rel) &&
    !rel.split(/[\\/]/).includes('..')
  );
}

/** Parse and check a manifest's shape; throws naming the first problem. */
export function parseManifest(text: string): ModelManifest {
  const m = JSON.parse(text) as Partial<ModelManifest>;
  const fail = (what: string): never => {
    // Caught by checkModel, the one caller, which words it as the model's reason; the protocol throws no catalogue errors of its own.
    throw new Error(`${MODEL_MANIFEST}: ${what}`);
  };
  if (m === null || typeof m !== 'object') fail('not an object');
  if (m.format !== 1) fail(`unknown format ${JSON.stringify(m.format)}`);
  if (typeof m.name !== 'string' || !MODEL_NAME.test(m.name)) fail('bad name');
  if (!MODEL_TYPES.includes(m.type as ModelType)) fail(`unknown model type ${JSON.stringify(m.type)}`);
  const files = m.files as ModelFiles | undefined;
  if (!files || typeof files.model !== 'string' || typeof files.tokens !== 'string')
    fail('files.model and files.tokens are required');
  for (const [k, v] of Object.entries(files!))
    if (typeof v !== 'string' || !inside(v)) fail(`files.${k} must be a path inside the model directory`);
  if (!Array.isArray(m.speakers) || m.speakers.length === 0) fail('speakers must list at least one speaker');
  for (const s of m.speakers!)
    if (typeof s?.id !== 'string' || !Number.isInteger(s.sid) || s.sid < 0)
      fail('each speaker needs an id and an integer sid');
  if (!Array.isArray(m.languages)) fail('languages must be a list');
  if (!m.sizes || typeof m.sizes !== 'object') fail('sizes is required');
  for (const [k, v] of Object.entries(m.sizes!))
    if (!inside(k) || !Number.isInteger(v) || v < 0) fail(`bad size entry ${JSON.stringify(k)}`);
  return m as ModelManifest;
}

/**
 * Check one model directory: the manifest parses, every file it lists is there
 * with its recorded size, and the files sherpa-onnx will open are among them.
 */
export function checkModel(dir: string, name: string): ModelCheck {
  let manifest: ModelManifest;
  try {
    manifest = parseManifest(readFileSync(join(dir, MODEL_MANIFEST), 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason =
      e.code === 'ENOENT'
        ? `it has no ${MODEL_MANIFEST} (not installed by "vox voices install", or the install did not finish)`
        : `its manifest is unreadable: ${e.message}`;
    return { ok: false, name, dir, reason };
  }
  if (manifest.name !== name)
    return { ok: false, name, dir, reason: `its manifest names it "${manifest.name}", not "${name}"` };
  for (const [rel, size] of Object.entries(manifest.sizes)) {
    let actual: number;
    try {
      actual = statSync(join(dir, rel)).size;
    } catch {
      return { ok: false, name, dir, reason: `file ${rel} is missing` };
    }
    if (actual !== size)
      return {
        ok: false,
        name,
        dir,
        reason: `file ${rel} is ${actual} bytes, ${size} expected (damaged or partly copied)`,
      };
  }
  const { dataDir, ...paths } = manifest.files;
  for (const [k, rel] of Object.entries(paths)) {
    if (rel && manifest.sizes[rel] === undefined)
      return { ok: false, name, dir, reason: `its ${k} file ${rel} is not among its files` };
  }
  if (dataDir && !Object.keys(manifest.sizes).some((k) => k.startsWith(`${dataDir}/`))) {
    return { ok: false, name, dir, reason: `its data directory ${dataDir} is empty or missing` };
  }
  return { ok: true, manifest, dir };
}

/** Every model directory under `VOX_HOME/models` (names starting with `.` are staging or trash), checked, sorted by name. */
export function listModels(home: string): ModelCheck[] {
  const root = modelsDir(home);
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && MODEL_NAME.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => checkModel(join(root, n), n));
}

/**
 * Local speech recognizers (voxd's listen/recognizer.ts): `VOX_HOME/asr/NAME/`
 * with a `vox-asr.json` of {format: 1, type, files}; the files each type
 * needs, as sherpa-onnx's OfflineRecognizer config names them.
 */
export type AsrType = 'nemo_ctc' | 'whisper' | 'moonshine';
export const ASR_TYPES: readonly AsrType[] = ['nemo_ctc', 'whisper', 'moonshine'];
export const ASR_FILES: Record<AsrType, readonly string[]> = {
  nemo_ctc: ['model', 'tokens'],
  whisper: ['encoder', 'decoder', 'tokens'],
  moonshine: ['preprocessor', 'encoder', 'uncachedDecoder', 'cachedDecoder', 'tokens'],
};
export const ASR_MANIFEST = 'vox-asr.json';

export function asrModelsDir(home: string): string {
  return join(home, 'asr');
}

export function isAsrType(type: unknown): type is AsrType {
  return ASR_TYPES.includes(type as AsrType);
}
