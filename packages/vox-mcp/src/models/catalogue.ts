/**
 * The voice models `vox voices install NAME` knows: where each is published,
 * what it holds, and under which licence.
 *
 * Design notes:
 * - `sha256` pins the archive: any other file is refused. The built-in pins
 *   were not computed here (this catalogue was written on a machine that
 *   reaches no network but the npm registry); each is the one that two
 *   independent public records of the same release asset agree on. An entry
 *   whose checksum nobody has verified is `null` and installs only with
 *   `--unverified`, which prints the SHA-256 it got so that it can be pinned
 *   (in `VOX_VOICES_CATALOGUE`, below).
 * - Sizes are the publishers' approximate figures, for the user to judge the
 *   download; nothing is checked against them.
 * - `VOX_VOICES_CATALOGUE` names a JSON file of more entries (same shape; an
 *   entry of the same name replaces the built-in one): another Piper voice, a
 *   mirror, a pinned checksum. It is the user's own environment, never read
 *   from a project; still, what it says sets paths, URLs and sizes, so each
 *   entry is checked whole (problemOf): a name is one path segment, `root`
 *   and `files` stay inside the model's directory, the URL is https (or http
 *   to this machine: a local mirror, the tests) with no credentials in it,
 *   `sizeMB` is at most MAX_SIZE_MB (the download cap and the unpacked cap
 *   derive from it, install.ts), and no text holds a control character. The
 *   file is read up to MAX_CATALOGUE_BYTES.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { hasUnprintable, printable } from '@vox/protocol';
import {
  ASR_FILES,
  isAsrType,
  MODEL_NAME,
  MODEL_TYPES,
  type AsrType,
  type ModelFiles,
  type ModelSpeaker,
  type ModelType,
} from '@vox/protocol/models';
import { ClientError } from '../errors.js';

/** The largest `sizeMB` an entry may give (the largest real voice archive is a few hundred MB). */
export const MAX_SIZE_MB = 4096;
/** The largest VOX_VOICES_CATALOGUE file read. */
export const MAX_CATALOGUE_BYTES = 1024 * 1024;
/** The most entries it may hold. */
export const MAX_CATALOGUE_ENTRIES = 1000;

export interface CatalogueEntry {
  name: string;
  title: string;
  /** A voice's family, or a recognizer's (installed into VOX_HOME/asr, used by vox listen). */
  type: ModelType | AsrType;
  /** The archive (`.tar.bz2`) as its publisher releases it. */
  url: string;
  /** The archive's top directory. */
  root: string;
  /** Approximate download size in MB, as published. */
  sizeMB?: number;
  /** The archive's SHA-256 (hex); null when not verified (see the design notes). */
  sha256: string | null;
  licence: string;
  /** Whether the licence lets anyone use the voice for anything (no non-commercial or similar clause). */
  free: boolean;
  /** What to read before installing a voice that is not free. */
  licenceNote?: string;
  languages: string[];
  /** Paths inside `root` (a recognizer's: ASR_FILES' names). */
  files: ModelFiles;
  /** None for a recognizer. */
  speakers: ModelSpeaker[];
}

/** Whether the entry is a speech recognizer, not a voice. */
export function isRecognizer(e: Pick<CatalogueEntry, 'type'>): boolean {
  return isAsrType(e.type);
}

const SHERPA_RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models';
const SHERPA_ASR = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models';

const KOKORO_V019 = [
  'af',
  'af_bella',
  'af_nicole',
  'af_sarah',
  'af_sky',
  'am_adam',
  'am_michael',
  'bf_emma',
  'bf_isabella',
  'bm_george',
  'bm_lewis',
];
const KITTEN_NANO = [
  'expr-voice-2-m',
  'expr-voice-2-f',
  'expr-voice-3-m',
  'expr-voice-3-f',
  'expr-voice-4-m',
  'expr-voice-4-f',
  'expr-voice-5-m',
  'expr-voice-5-f',
];

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    name: 'kokoro-int8-en-v0_19',
    title: 'Kokoro-82M v0.19, int8 (English, 11 speakers)',
    type: 'kokoro',
    url: `${SHERPA_RELEASES}/kokoro-int8-en-v0_19.tar.bz2`,
    root: 'kokoro-int8-en-v0_19',
    sizeMB: 98,
    sha256: 'c9f0dd393615805b0bab050c340834d5e684e732aec91c0e860cd30e982c08bd',
    licence: 'Apache-2.0',
    free: true,
    languages: ['en-US', 'en-GB'],
    files: { model: 'model.int8.onnx', voices: 'voices.bin', tokens: 'tokens.txt', dataDir: 'espeak-ng-data' },
    speakers: KOKORO_V019.map((id, sid) => ({ id, sid, languages: [id.startsWith('b') ? 'en-GB' : 'en-US'] })),
  },
  {
    name: 'kitten-nano-en-v0_2-fp16',
    title: 'Kitten TTS nano v0.2, fp16 (English, 8 speakers)',
    type: 'kitten',
    url: `${SHERPA_RELEASES}/kitten-nano-en-v0_2-fp16.tar.bz2`,
    root: 'kitten-nano-en-v0_2-fp16',
    sizeMB: 25,
    sha256: '0345a8a2f4a710cb8f7912c9a731ded8b3e1e69b33a871efa95c2e64651518fe',
    licence: 'Apache-2.0',
    free: true,
    languages: ['en-US'],
    files: { model: 'model.fp16.onnx', voices: 'voices.bin', tokens: 'tokens.txt', dataDir: 'espeak-ng-data' },
    speakers: KITTEN_NANO.map((id, sid) => ({ id, sid })),
  },
  {
    name: 'vits-piper-en_US-lessac-medium',
    title: 'Piper en_US lessac, medium (English, 1 speaker)',
    type: 'vits',
    url: `${SHERPA_RELEASES}/vits-piper-en_US-lessac-medium.tar.bz2`,
    root: 'vits-piper-en_US-lessac-medium',
    sizeMB: 64,
    sha256: '9e3febfacf0abf4270172d2958bcec246032b7e88efc2720840cc80c93de334e',
    licence: 'Blizzard 2013 Lessac dataset licence (non-commercial)',
    free: false,
    licenceNote:
      'This Piper voice is trained on the Lessac data of the Blizzard Challenge 2013, whose licence allows non-commercial use only. Read the MODEL_CARD inside the archive (and rhasspy/piper-voices) before you use it for anything else.',
    languages: ['en-US'],
    files: { model: 'en_US-lessac-medium.onnx', tokens: 'tokens.txt', dataDir: 'espeak-ng-data' },
    speakers: [{ id: 'lessac', sid: 0 }],
  },
  {
    // A recognizer, for vox listen. The pin is the one two public model catalogues give for this asset (they may share a source); it was not computed here.
    name: 'whisper-tiny.en-int8',
    title: 'Whisper tiny.en, int8 (English speech to text, for vox listen)',
    type: 'whisper',
    url: `${SHERPA_ASR}/sherpa-onnx-whisper-tiny.en.tar.bz2`,
    root: 'sherpa-onnx-whisper-tiny.en',
    sizeMB: 118,
    sha256: '2bd6cf965c8bb3e068ef9fa2191387ee63a9dfa2a4e37582a8109641c20005dd',
    licence: 'MIT',
    free: true,
    languages: ['en'],
    files: {
      encoder: 'tiny.en-encoder.int8.onnx',
      decoder: 'tiny.en-decoder.int8.onnx',
      tokens: 'tiny.en-tokens.txt',
    } as unknown as ModelFiles,
    speakers: [],
  },
];

/** Whether `url` may be downloaded from: https, or http to this machine; no credentials. Returns the problem, or undefined. */
export function urlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'url must be an https URL';
  }
  if (u.username || u.password) return 'url must not hold a user name or password';
  if (u.protocol === 'https:') return undefined;
  const loopback = u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(u.hostname);
  if (u.protocol === 'http:' && loopback) return undefined;
  return 'url must be an https URL (plain http only to this machine: localhost, 127.0.0.1 or [::1])';
}

/** A URL as messages show it: without its query (where a signed URL keeps its token), escaped. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return printable(`${u.origin}${u.pathname}${u.search ? '?…' : ''}`);
  } catch {
    return printable(url.slice(0, 200));
  }
}

/** Whether `rel` is a relative path that stays inside its directory. */
function inside(rel: unknown): boolean {
  return (
    typeof rel === 'string' &&
    rel !== '' &&
    rel.length <= 200 &&
    !hasUnprintable(rel) &&
    !rel.startsWith('/') &&
    !rel.includes('\\') &&
    !/^[a-z]:/i.test(rel) &&
    !rel.split('/').includes('..')
  );
}

const isText = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && !hasUnprintable(v);

/** Check one entry's shape; returns the problem or undefined. */
function problemOf(e: Partial<CatalogueEntry>): string | undefined {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return 'each entry must be an object';
  if (typeof e.name !== 'string' || !MODEL_NAME.test(e.name) || e.name.includes('..'))
    return 'name must be letters, digits, ".", "_" or "-" (up to 80; no "..")';
  if (e.title !== undefined && !isText(e.title, 200))
    return 'title must be text of up to 200 characters, without control characters';
  const asr = isAsrType(e.type);
  if (!asr && !MODEL_TYPES.includes(e.type as ModelType))
    return `type must be one of ${MODEL_TYPES.join(', ')} (voices) or ${Object.keys(ASR_FILES).join(', ')} (recognizers)`;
  if (typeof e.url !== 'string' || e.url.length > 2000) return 'url must be an https URL';
  const url = urlProblem(e.url);
  if (url) return url;
  if (!inside(e.root))
    return 'root must name the archive\'s top directory (a relative path inside it: no "..", no leading "/")';
  if (
    e.sizeMB !== undefined &&
    !(typeof e.sizeMB === 'number' && Number.isFinite(e.sizeMB) && e.sizeMB > 0 && e.sizeMB <= MAX_SIZE_MB)
  )
    return `sizeMB must be a number above 0 and at most ${MAX_SIZE_MB}`;
  if (e.sha256 !== null && (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(e.sha256)))
    return 'sha256 must be 64 hex digits, or null';
  if (!isText(e.licence, 200) || typeof e.free !== 'boolean')
    return 'licence (text of up to 200 characters) and free (true or false) are required';
  if (e.licenceNote !== undefined && !isText(e.licenceNote, 2000))
    return 'licenceNote must be text of up to 2000 characters, without control characters';
  const need = asr ? ASR_FILES[e.type as AsrType] : ['model', 'tokens'];
  const files = e.files as Record<string, unknown> | undefined;
  if (!files || typeof files !== 'object' || need.some((k) => typeof files[k] !== 'string'))
    return `${need.map((k) => `files.${k}`).join(', ')} are required`;
  if (!Object.values(files).every(inside)) return "files must be paths inside the model's directory";
  if (asr) e = { ...e, speakers: [{ id: e.name, sid: 0 }] };
  if (
    !Array.isArray(e.speakers) ||
    e.speakers.length === 0 ||
    e.speakers.length > 1000 ||
    e.speakers.some((s) => !isText(s?.id, 100) || !Number.isInteger(s.sid) || s.sid < 0)
  )
    return 'speakers must list 1 to 1000 {id, sid} entries';
  if (!Array.isArray(e.languages) || e.languages.length > 100 || !e.languages.every((l) => isText(l, 35)))
    return 'languages must be a list of language codes';
  return undefined;
}

/** The file, read up to one byte past the cap. */
function readBounded(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_CATALOGUE_BYTES + 1);
    const got = readSync(fd, buf, 0, buf.length, 0);
    if (got > MAX_CATALOGUE_BYTES) throw new Error(`the file is over ${MAX_CATALOGUE_BYTES} bytes`);
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The built-in catalogue plus the entries of `VOX_VOICES_CATALOGUE`; throws naming the file and entry on a bad one. */
export function catalogue(env: NodeJS.ProcessEnv): CatalogueEntry[] {
  const entries = new Map(CATALOGUE.map((e) => [e.name, e]));
  const file = env.VOX_VOICES_CATALOGUE;
  if (file) {
    const shown = printable(file);
    let extra: unknown;
    try {
      extra = JSON.parse(readBounded(file));
    } catch (err) {
      throw new ClientError(
        'VOX_ERR_CLIENT_USAGE',
        `VOX_VOICES_CATALOGUE (${shown}): ${printable((err as Error).message)}`,
      );
    }
    if (!Array.isArray(extra))
      throw new ClientError('VOX_ERR_CLIENT_USAGE', `VOX_VOICES_CATALOGUE (${shown}): must be a JSON list of entries`);
    if (extra.length > MAX_CATALOGUE_ENTRIES)
      throw new ClientError(
        'VOX_ERR_CLIENT_USAGE',
        `VOX_VOICES_CATALOGUE (${shown}): ${extra.length} entries, more than the ${MAX_CATALOGUE_ENTRIES} allowed`,
      );
    extra.forEach((e: Partial<CatalogueEntry>, i) => {
      const problem = problemOf(e);
      if (problem)
        throw new ClientError(
          'VOX_ERR_CLIENT_USAGE',
          `VOX_VOICES_CATALOGUE (${shown}): entry ${i + 1}${typeof e?.name === 'string' ? ` (${printable(e.name.slice(0, 80))})` : ''}: ${problem}`,
        );
      entries.set(e.name!, { title: e.name!, ...e, ...(isAsrType(e.type) ? { speakers: [] } : {}) } as CatalogueEntry);
    });
  }
  return [...entries.values()];
}
