/**
 * Worker thread that owns the embedded eSpeak-NG (emscripten) instance. Its
 * synthesize call is synchronous, so it must never run on voxd's event loop.
 * The parent aborts a job by writing its id into the shared `abortFlag`; the
 * audio callback checks it between chunks and tells eSpeak to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import createModule from '@echogarden/espeak-ng-emscripten';
import { VoxError } from '../errors.js';

export type WorkerRequest =
  | { type: 'synthesize'; job: number; text: string; voice: string; rate: number }
  | { type: 'voices'; job: number }
  | { type: 'voice'; job: number; voice: string };

export type WorkerReply =
  | { type: 'ready'; sampleRate: number }
  | { type: 'chunk'; job: number; pcm: ArrayBuffer }
  | { type: 'done'; job: number }
  | { type: 'error'; job: number; message: string; unknownVoice?: true }
  | { type: 'voice'; job: number; known: boolean }
  | { type: 'voices'; job: number; voices: Array<{ identifier: string; name: string; languages: string[] }> };

const port = parentPort!;
const abortFlag = new Int32Array(workerData.abortFlag as SharedArrayBuffer);

interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wpm: number): number;
  get_samplerate(): number;
  list_voices(): Array<{ identifier: string; name: string; languages: Array<{ name: string }> }>;
  synthesize(text: string, cb: (audio: Int16Array, events: unknown[]) => boolean): void;
}

const mod = await (createModule as unknown as () => Promise<{ eSpeakNGWorker: new () => EspeakWorker }>)();
const espeak = new mod.eSpeakNGWorker();
espeak.set_voice('en-us');
// Warm up: the first synthesis pays for loading phoneme tables.
espeak.synthesize('ready', () => false);
port.postMessage({ type: 'ready', sampleRate: espeak.get_samplerate() } satisfies WorkerReply);

// Accept identifiers (gmw/en-US), names (English (America)) and language codes
// (en-gb), each with an optional +variant (en-us+f3), case-insensitively.
const catalogue = espeak.list_voices();
function setVoice(voice: string): boolean {
  if (espeak.set_voice(voice) === 0) return true;
  const [base = '', variant] = voice.toLowerCase().split('+');
  const match =
    catalogue.find((v) => v.identifier.toLowerCase() === base || v.name.toLowerCase() === base) ??
    catalogue.find((v) => v.languages[0]?.name.toLowerCase() === base) ??
    catalogue.find((v) => v.identifier.toLowerCase().endsWith(`/${base}`)) ??
    catalogue.find((v) => v.languages.some((l) => l.name.toLowerCase() === base));
  return match !== undefined && espeak.set_voice(variant ? `${match.identifier}+${variant}` : match.identifier) === 0;
}

port.on('message', (msg: WorkerRequest) => {
  // The very check synthesis makes (setVoice), without synthesizing: each synthesis sets its own voice again.
  if (msg.type === 'voice') {
    port.postMessage({ type: 'voice', job: msg.job, known: setVoice(msg.voice) } satisfies WorkerReply);
    return;
  }
  if (msg.type === 'voices') {
    const voices = espeak.list_voices().map((v) => ({
      identifier: v.identifier,
      name: v.name,
      languages: v.languages.map((l) => l.name),
    }));
    port.postMessage({ type: 'voices', job: msg.job, voices } satisfies WorkerReply);
    return;
  }
  try {
    if (!setVoice(msg.voice)) {
      throw new VoxError('VOX_ERR_VOICE_UNKNOWN', {
        message: `unknown voice "${msg.voice}" (run "vox voices" for the list)`,
      });
    }
    espeak.set_rate(msg.rate);
    espeak.synthesize(msg.text, (audio) => {
      if (Atomics.load(abortFlag, 0) === msg.job) return true;
      if (audio.length > 0) {
        const pcm = audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.byteLength) as ArrayBuffer;
        port.postMessage({ type: 'chunk', job: msg.job, pcm } satisfies WorkerReply, [pcm]);
      }
      return false;
    });
    port.postMessage({ type: 'done', job: msg.job } satisfies WorkerReply);
  } catch (err) {
    const unknownVoice = err instanceof VoxError && err.code === 'VOX_ERR_VOICE_UNKNOWN';
    port.postMessage({
      type: 'error',
      job: msg.job,
      message: (err as Error).message,
      ...(unknownVoice ? { unknownVoice } : {}),
    } satisfies WorkerReply);
  }
});
