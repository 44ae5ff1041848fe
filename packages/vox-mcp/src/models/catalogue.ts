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
 *   from a project.
 */
import { readFileSync } from 'node:fs';
import { MODEL_NAME, MODEL_TYPES, type ModelFiles, type ModelSpeaker, type ModelType } from '@vox/protocol/models';
import { ClientError } from '../errors.js';

export interface CatalogueEntry {
  name: string;
  title: string;
  type: ModelType;
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
  /** Paths inside `root`. */
  files: ModelFiles;
  speakers: ModelSpeaker[];
}

const SHERPA_RELEASES = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models';

const KOKORO_V019 = ['af', 'af_bella', 'af_nicole', 'af_sarah', 'af_sky', 'am_adam', 'am_michael', 'bf_emma', 'bf_isabella', 'bm_george', 'bm_lewis'];
const KITTEN_NANO = ['expr-voice-2-m', 'expr-voice-2-f', 'expr-voice-3-m', 'expr-voice-3-f', 'expr-voice-4-m', 'expr-voice-4-f', 'expr-voice-5-m', 'expr-voice-5-f'];

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
];

/** Check one entry's shape; returns the problem or undefined. */
function problemOf(e: Partial<CatalogueEntry>): string | undefined {
  if (typeof e.name !== 'string' || !MODEL_NAME.test(e.name)) return 'name must be letters, digits, ".", "_" or "-" (up to 80)';
  if (!MODEL_TYPES.includes(e.type as ModelType)) return `type must be one of ${MODEL_TYPES.join(', ')}`;
  if (typeof e.url !== 'string' || !/^https?:\/\//.test(e.url)) return 'url must be an http(s) URL';
  if (typeof e.root !== 'string' || e.root === '' || e.root.includes('..')) return 'root must name the archive\'s top directory';
  if (e.sha256 !== null && (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(e.sha256))) return 'sha256 must be 64 hex digits, or null';
  if (typeof e.licence !== 'string' || typeof e.free !== 'boolean') return 'licence (text) and free (true or false) are required';
  if (!e.files || typeof e.files.model !== 'string' || typeof e.files.tokens !== 'string') return 'files.model and files.tokens are required';
  if (!Array.isArray(e.speakers) || e.speakers.length === 0 || e.speakers.some((s) => typeof s?.id !== 'string' || !Number.isInteger(s.sid))) return 'speakers must list {id, sid} entries';
  if (!Array.isArray(e.languages)) return 'languages must be a list';
  return undefined;
}

/** The built-in catalogue plus the entries of `VOX_VOICES_CATALOGUE`; throws naming the file and entry on a bad one. */
export function catalogue(env: NodeJS.ProcessEnv): CatalogueEntry[] {
  const entries = new Map(CATALOGUE.map((e) => [e.name, e]));
  const file = env.VOX_VOICES_CATALOGUE;
  if (file) {
    let extra: unknown;
    try {
      extra = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ClientError('VOX_ERR_CLIENT_USAGE', `VOX_VOICES_CATALOGUE (${file}): ${(err as Error).message}`);
    }
    if (!Array.isArray(extra)) throw new ClientError('VOX_ERR_CLIENT_USAGE', `VOX_VOICES_CATALOGUE (${file}): must be a JSON list of entries`);
    extra.forEach((e: Partial<CatalogueEntry>, i) => {
      const problem = problemOf(e);
      if (problem) throw new ClientError('VOX_ERR_CLIENT_USAGE', `VOX_VOICES_CATALOGUE (${file}): entry ${i + 1}${typeof e?.name === 'string' ? ` (${e.name})` : ''}: ${problem}`);
      entries.set(e.name!, { title: e.name!, ...e } as CatalogueEntry);
    });
  }
  return [...entries.values()];
}
