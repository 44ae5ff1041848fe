/**
 * One recording of a listen: the recorder runs until end-pointing, the
 * listen's maximum, a stop or the recorder's own end, and the audio is kept
 * up to where end-pointing decided. The listener (listener.ts) owns the
 * floor, the player's hold and the transcriber around it; this module owns
 * the capture and its failures, so each can be read alone.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ListenEnd } from '@vox/protocol';
import { toWav } from '../audio/wav.js';
import { VoxError } from '../errors.js';
import { Capture, CAPTURE_FORMAT, type ParkedRecorder, type resolveRecorder, type SpawnFn } from './capture.js';

type ResolvedRecorder = ReturnType<typeof resolveRecorder>;
import type { EndPointer, EndPointerFactory } from './vad.js';

/** s16le mono at CAPTURE_RATE. */
const BYTES_PER_MS = (CAPTURE_FORMAT.sampleRate * 2) / 1000;
/** Recordings kept in VOX_HOME/listen; older ones are removed. */
const KEEP_RECORDINGS = 20;

/** The recordings of VOX_HOME/listen: the newest few are kept. */
export class Recordings {
  readonly #dir: string;

  constructor(home: string) {
    this.#dir = join(home, 'listen');
  }

  /** Write a recording named after its listen, and prune the oldest. */
  save(wav: Buffer, id: string): string {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const path = join(this.#dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.wav`);
    writeFileSync(path, wav, { mode: 0o600 });
    try {
      const old = readdirSync(this.#dir)
        .filter((f) => f.endsWith('.wav'))
        .sort();
      for (const f of old.slice(0, Math.max(0, old.length - KEEP_RECORDINGS)))
        rmSync(join(this.#dir, f), { force: true });
    } catch {
      // Pruning is best effort.
    }
    return path;
  }
}

export interface RecordOptions {
  id: string;
  session?: string;
  recorder: ResolvedRecorder;
  /** A recorder forked while this listen was next in line (Capture.park). */
  parked?: ParkedRecorder;
  endPointer: EndPointerFactory;
  maxSeconds: number;
  silenceMs: number;
  startTimeoutMs: number;
  /** Stop, client gone: the recording ends `stopped`. */
  gone: AbortSignal;
  env: NodeJS.ProcessEnv;
  spawn?: SpawnFn;
  recordings: Recordings;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** The capture once it runs, so the caller can stop it on every path. */
  onCapture(capture: Capture): void;
}

export interface Recorded {
  endedBy: ListenEnd;
  /** The audio, up to where end-pointing decided, in whole samples. */
  audio: Buffer;
  speechMs: number;
  /** When end-pointing last saw speech end (performance.now()), for the latency log. */
  speechEndAt?: number;
}

/** Record once. Throws the recorder's failures (VOX_ERR_MIC_UNAVAILABLE, VOX_ERR_RECORDER_FAILED with `audioPath`). */
export async function record(o: RecordOptions): Promise<Recorded> {
  const { maxSeconds, startTimeoutMs } = o;
  const ep = o.endPointer({
    sampleRate: CAPTURE_FORMAT.sampleRate,
    silenceMs: o.silenceMs,
    startTimeoutMs,
    maxMs: maxSeconds * 1000,
  });
  const pcm: Buffer[] = [];
  let kept = 0;
  let speechEndAt: number | undefined;
  let decided!: (end: ListenEnd | 'quiet') => void;
  let done = false;
  let firstAudio: NodeJS.Timeout | undefined;
  const decision = new Promise<ListenEnd | 'quiet'>((r) => (decided = (end) => ((done = true), r(end))));
  // A recorder that writes nothing (a stuck device) is not silence: after startTimeoutMs without a byte it is reported.
  // (Within the wall clock's maximum below, when that is shorter.)
  const quietMs = Math.min(startTimeoutMs, maxSeconds * 1000 + 1500);
  let quiet: NodeJS.Timeout | undefined;
  const armQuiet = () => {
    clearTimeout(quiet);
    quiet = setTimeout(() => decided('quiet'), quietMs);
  };
  armQuiet();
  const maxBytes = maxSeconds * 1000 * BYTES_PER_MS;
  let wall: NodeJS.Timeout | undefined;
  try {
    const started = o.parked ? o.parked.start.bind(o.parked) : Capture.start;
    const capture = await started({
      recorder: o.recorder,
      env: o.env,
      ...(o.spawn ? { spawn: o.spawn } : {}),
      ...(o.log ? { log: o.log } : {}),
      onData: (chunk) => {
        if (done) return;
        armQuiet();
        // The audio's own clock starts with its first block (a recorder takes a while to open the device).
        firstAudio ??= setTimeout(() => decided('max'), maxSeconds * 1000 + 250);
        // Never more than maxSeconds of audio, however fast the recorder writes.
        const room = maxBytes - kept;
        const block = chunk.length > room ? chunk.subarray(0, room) : chunk;
        kept += block.length;
        pcm.push(block);
        const hadEnd = ep.speechEndMs;
        const end = ep.push(block) ?? (kept >= maxBytes ? 'max' : undefined);
        if (ep.speechEndMs !== hadEnd) speechEndAt = performance.now();
        if (end) decided(end);
      },
    });
    o.onCapture(capture);
    o.log?.info(
      { id: o.id, session: o.session, recorder: o.recorder.path, maxSeconds, silenceMs: o.silenceMs, startTimeoutMs },
      'listening',
    );
    // Wall clock too: a recorder that delivers slowly must not hold the player past the
    // maximum (the hold itself lapses 2 s after it).
    wall = setTimeout(() => decided('max'), maxSeconds * 1000 + 1500);
    const outcome = await Promise.race([decision, abortion(o.gone).then(() => 'stopped' as const), capture.ended]);
    done = true;
    if (outcome === 'quiet') throw stalled(o, quietMs, kept, pcm);
    if (typeof outcome !== 'string' && outcome.by === 'exit') throw died(o, outcome, pcm);
    const endedBy: ListenEnd = typeof outcome === 'string' ? outcome : 'stopped';
    return {
      endedBy,
      audio: trimmed(pcm, ep),
      speechMs: ep.speechMs,
      ...(speechEndAt !== undefined ? { speechEndAt } : {}),
    };
  } finally {
    clearTimeout(wall);
    clearTimeout(firstAudio);
    clearTimeout(quiet);
  }
}

function died(o: RecordOptions, end: Extract<Awaited<Capture['ended']>, { by: 'exit' }>, pcm: Buffer[]): VoxError {
  const how = end.signal ? `was killed (${end.signal})` : `exited with code ${end.code}`;
  const said = end.stderr ? `: ${end.stderr}` : '';
  o.log?.warn(
    { id: o.id, code: end.code, signal: end.signal, bytes: end.bytes, stderr: end.stderr },
    'recorder ended during a listen',
  );
  if (end.bytes === 0) return new VoxError('VOX_ERR_MIC_UNAVAILABLE', `the recorder ${how} before any audio${said}`);
  const audio = trimmed(pcm, undefined);
  const audioPath = o.recordings.save(toWav(CAPTURE_FORMAT, audio), o.id);
  const seconds = (audio.length / 2 / CAPTURE_FORMAT.sampleRate).toFixed(1);
  return Object.assign(new VoxError('VOX_ERR_RECORDER_FAILED', `the recorder ${how} after ${seconds} s${said}`), {
    audioPath,
  });
}

/** A recorder that stopped writing without exiting: before any audio, the microphone is unusable; after, the audio so far is kept. */
function stalled(o: RecordOptions, ms: number, bytes: number, pcm: Buffer[]): VoxError {
  o.log?.warn({ id: o.id, recorder: o.recorder.path, bytes, quietMs: ms }, 'recorder wrote no audio; stopped');
  const what = `the recorder (${basename(o.recorder.path)}) wrote no audio for ${ms} ms (startTimeoutMs) and was stopped`;
  if (bytes === 0) return new VoxError('VOX_ERR_MIC_UNAVAILABLE', `${what}; a stuck device or sound server?`);
  const audio = trimmed(pcm, undefined);
  return Object.assign(
    new VoxError(
      'VOX_ERR_RECORDER_FAILED',
      `${what}, after ${(audio.length / 2 / CAPTURE_FORMAT.sampleRate).toFixed(1)} s`,
    ),
    { audioPath: o.recordings.save(toWav(CAPTURE_FORMAT, audio), o.id) },
  );
}

/** The recording: up to where end-pointing decided (a block may run past it), in whole samples. */
function trimmed(pcm: Buffer[], ep: EndPointer | undefined): Buffer {
  const audio = Buffer.concat(pcm);
  const end = ep?.ended ? Math.min(audio.length, ep.elapsedMs * BYTES_PER_MS) : audio.length;
  return audio.subarray(0, end - (end % 2));
}

export function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
