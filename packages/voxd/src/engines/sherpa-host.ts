/**
 * The process that owns one sherpa-onnx model (sherpa-process.ts starts it
 * with `fork`). It loads the model once, then renders jobs one at a time and
 * streams each as s16le chunks, one per sentence.
 *
 * Why a child process and not a worker thread: sherpa-onnx ends the whole
 * process on a bad model (`_Exit` on missing metadata, `abort` on an ONNX file
 * that does not parse, measured with a truncated model). In a worker that
 * would be voxd; here it is this process, and voxd reports why and falls back.
 * The same file also runs as a worker thread, only so that bench/sherpa.mjs can
 * measure both hosts.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

export interface HostLoad {
  type: 'load';
  /** Module to load: `sherpa-onnx-node`, or a path (tests point it nowhere to play a failed optional install). */
  module: string;
  /** sherpa-onnx's OfflineTtsConfig. */
  config: Record<string, unknown>;
}
export type HostRequest =
  | HostLoad
  /** `texts` are rendered in turn into one stream: a sentence, or a first phrase and the rest of it. */
  | { type: 'synthesize'; job: number; texts: string[]; sid: number; speed: number }
  | { type: 'abort'; job: number };

export type HostReply =
  | { type: 'loaded'; sampleRate: number; numSpeakers: number; loadMs: number }
  | { type: 'chunk'; job: number; pcm: Uint8Array }
  | { type: 'done'; job: number }
  | { type: 'error'; job?: number; message: string };

interface OfflineTts {
  sampleRate: number;
  numSpeakers: number;
  generateAsync(req: {
    text: string;
    sid: number;
    speed: number;
    onProgress: (info: { samples: Float32Array }) => number | boolean;
  }): Promise<unknown>;
}

const send: (msg: HostReply) => void = parentPort
  ? (msg) => parentPort!.postMessage(msg)
  : (msg) => {
      process.send?.(msg);
    };

let tts: OfflineTts | undefined;
const queue: Array<Extract<HostRequest, { type: 'synthesize' }>> = [];
const aborted = new Set<number>();
let busy = false;

function toS16(samples: Float32Array): Uint8Array {
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    out.writeInt16LE(Math.round(s * 32767), i * 2);
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

async function pump(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    for (let job = queue.shift(); job; job = queue.shift()) {
      if (aborted.delete(job.job)) continue;
      const id = job.job;
      try {
        for (const text of job.texts) {
          if (aborted.has(id)) break;
          await tts!.generateAsync({
            text,
            sid: job.sid,
            speed: job.speed,
            onProgress: ({ samples }) => {
              if (aborted.has(id)) return 0;
              if (samples.length > 0) send({ type: 'chunk', job: id, pcm: toS16(samples) });
              return 1;
            },
          });
        }
        send({ type: 'done', job: id });
      } catch (err) {
        send({ type: 'error', job: id, message: (err as Error).message });
      }
      aborted.delete(id);
    }
  } finally {
    busy = false;
  }
}

async function onMessage(msg: HostRequest): Promise<void> {
  if (msg.type === 'load') {
    const started = performance.now();
    try {
      const sherpa = createRequire(import.meta.url)(msg.module) as {
        OfflineTts: { createAsync(c: unknown): Promise<OfflineTts> };
      };
      tts = await sherpa.OfflineTts.createAsync(msg.config);
      send({
        type: 'loaded',
        sampleRate: tts.sampleRate,
        numSpeakers: tts.numSpeakers,
        loadMs: Math.round(performance.now() - started),
      });
    } catch (err) {
      // The addon's own message for an unloadable module is many lines (and names LD_LIBRARY_PATH, which vox does not need).
      send({ type: 'error', message: (err as Error).message.split('\n')[0]! });
    }
    return;
  }
  if (msg.type === 'abort') {
    aborted.add(msg.job);
    return;
  }
  if (!tts) {
    send({ type: 'error', job: msg.job, message: 'the model is not loaded' });
    return;
  }
  queue.push(msg);
  void pump();
}

if (parentPort) parentPort.on('message', (m: HostRequest) => void onMessage(m));
else {
  process.on('message', (m: HostRequest) => void onMessage(m));
  // voxd gone (its IPC channel closed): nothing is left to render for.
  process.on('disconnect', () => process.exit(0));
}
