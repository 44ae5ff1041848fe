/**
 * Listening: voxd owns the microphone as it owns the speakers. One listen
 * records at a time (the floor, floor.ts: the others queue FIFO for their
 * waitMs, a conversation may keep it for its follow-up): hold the player (the dispatcher's hold()), play the `prompt` chime,
 * record until voice activity says the user is done, release the player and
 * the microphone, then transcribe.
 *
 * Design notes:
 * - Speech and listening are exclusive, so voxd never transcribes its own
 *   voice: the capture starts after the current utterance (or cuts it, with
 *   `interrupt`) and after the chime has played; speech that arrives while
 *   listening waits in the queue, at most the listen's maximum.
 * - The player and the floor are released when the recording ends, before
 *   transcription: queued speech and queued listens need not wait for a slow
 *   transcriber.
 * - The microphone is released on every path: end-pointing, POST /v1/stop,
 *   a client that disconnects (its signal), voxd's shutdown (close()), and
 *   a recorder that dies. A capture is never left running.
 * - Loaded on the first listen only (routes/listen.ts), so an idle voxd pays
 *   nothing for it.
 */
import { randomUUID } from 'node:crypto';
import {
  LISTEN_DEFAULTS,
  type ListeningStatus,
  type ListenRequest,
  type ListenResponse,
  type SpeakResponse,
  type StopScope,
} from '@vox/protocol';
import { chimePcm, CHIME_FORMAT } from '../audio/chimes.js';
import { Capture, CAPTURE_FORMAT, resolveRecorder, type ParkedRecorder, type SpawnFn } from './capture.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { VoxError } from '../errors.js';
import type { Sink } from '../sinks/sink.js';
import type { TranscriberConfig } from './transcriber.js';
import { Transcription, type TranscriberKind } from './transcription.js';
import type { EndPointerFactory } from './vad.js';
import { abortion, record, Recordings, type Recorded } from './recording.js';
import { endPointers, type VadMode } from './silero.js';
import { Floor, type Grant } from './floor.js';
import { toWav } from '../audio/wav.js';

export interface ListenerOptions {
  dispatcher: Pick<Dispatcher, 'hold'>;
  sink: Sink;
  /** VOX_HOME: recordings go to `<home>/listen/`. */
  home: string;
  /** The `listen.recorder` setting: auto, arecord, rec, sox or a path. */
  recorder: string;
  transcriber: TranscriberConfig & { kind?: TranscriberKind };
  /** The `listen.vad` setting. Default `auto`. */
  vad?: VadMode;
  env?: NodeJS.ProcessEnv;
  spawn?: SpawnFn;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

export const NO_TRANSCRIBER =
  'no transcriber is set, so the recording was not transcribed. Offline, in voxd: "vox voices install whisper-tiny.en-int8" (used from the next listen). Or a server: "vox daemon config set transcriber.url http://127.0.0.1:8080/v1" (a local whisper.cpp server or speaches) or https://api.openai.com/v1 with OPENAI_API_KEY, then "vox daemon restart" (docs/talk-back.md, "Offline speech-to-text")';

interface Active {
  id: string;
  session?: string;
  stop: AbortController;
  /** The recorder runs. */
  open?: boolean;
  /** Given the floor; answered. */
  granted?: boolean;
  done?: boolean;
  /** Its recorder, forked while it was next in line (Capture.park). */
  parked?: ParkedRecorder;
}

export class Listener {
  readonly #o: ListenerOptions;
  readonly #transcriber: Transcription;
  readonly #endPointer: EndPointerFactory;
  readonly #recordings: Recordings;
  /** The listen recording (it holds the floor). */
  #active: Active | undefined;
  /** Every listen not yet answered: queued, recording or transcribing. */
  readonly #pending = new Set<Active>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #floor: Floor;
  #closed = false;

  constructor(options: ListenerOptions) {
    this.#o = options;
    this.#recordings = new Recordings(options.home);
    this.#transcriber = new Transcription(options.transcriber, {
      home: options.home,
      ...(options.env ? { env: options.env } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    this.#endPointer = endPointers({
      mode: options.vad ?? 'auto',
      home: options.home,
      ...(options.env ? { env: options.env } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    this.#floor = new Floor((obj, msg) => options.log?.info(obj, msg));
  }

  /** Who holds the microphone, whether it is open, and how many wait; null when nobody holds it. */
  get status(): ListeningStatus | null {
    const f = this.#floor.state;
    if (!f.holder) return null;
    const kept = f.kept && (f.kept.expiresInMs === undefined ? {} : { expiresInMs: f.kept.expiresInMs });
    return {
      id: f.holder.id,
      ...(f.holder.session ? { session: f.holder.session } : {}),
      open: this.#active?.open === true,
      queued: f.queued,
      ...(kept ? { kept } : {}),
    };
  }

  /** Hand a kept floor on (POST /v1/listen/release). */
  release(token: string): boolean {
    return this.#floor.release(token);
  }

  /**
   * Listen once. `signal` aborts it (the client went away): the microphone is
   * released and nothing is transcribed. Errors are VoxErrors; those raised
   * after audio was captured carry `audioPath`.
   */
  listen(request: ListenRequest, signal?: AbortSignal): Promise<ListenResponse> {
    if (this.#closed) throw new VoxError('VOX_ERR_SHUTTING_DOWN');
    // Before queueing, any chime or hold: a missing recorder is said at once.
    const recorder = resolveRecorder(this.#o.recorder, this.#o.env ?? process.env);
    const active: Active = {
      id: `listen-${randomUUID().slice(0, 8)}`,
      ...(request.session ? { session: request.session } : {}),
      stop: new AbortController(),
    };
    this.#pending.add(active);
    // A recorder forked for it and not run (it left the queue) goes with the listen.
    const run = this.#turn(request, active, recorder, signal).finally(
      () => (this.#pending.delete(active), (active.done = true), active.parked?.cancel()),
    );
    const settled = run.catch(() => undefined).finally(() => this.#running.delete(settled));
    this.#running.add(settled);
    return run;
  }

  /** End the listens in `scope` (POST /v1/stop) as `stopped`, queued ones too, and a kept floor; the ids it ended. */
  stop(scope: StopScope, target: { session?: string; id?: string } = {}): string[] {
    const match = (a: { id: string; session?: string }) =>
      scope === 'all' ||
      (scope === 'session' && a.session === target.session) ||
      (scope === 'id' && a.id === target.id);
    const ended = [...this.#pending].filter((a) => (scope === 'current' ? a === this.#active : match(a)));
    for (const a of ended) a.stop.abort();
    const dropped = scope === 'current' ? [] : this.#floor.drop(match);
    return [...new Set([...ended.map((a) => a.id), ...dropped])];
  }

  /** Shutdown: end every listen, queued or not, and wait until the recorder is gone. Harmless twice. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#floor.fail(
      () => true,
      () => new VoxError('VOX_ERR_SHUTTING_DOWN'),
    );
    // A kept floor's idle timer must not hold the exit.
    this.#floor.drop(() => true);
    for (const a of this.#pending) a.stop.abort();
    await Promise.all(this.#running);
  }

  /** Queue for the floor, listen, and give the floor back (or keep it) when the recording ends. */
  async #turn(
    request: ListenRequest,
    active: Active,
    recorder: ReturnType<typeof resolveRecorder>,
    signal?: AbortSignal,
  ): Promise<ListenResponse> {
    let grant: Grant;
    try {
      grant = await this.#floor.acquire({
        who: { id: active.id, ...(active.session ? { session: active.session } : {}) },
        waitMs: request.waitMs ?? LISTEN_DEFAULTS.waitMs,
        ...(request.floorToken ? { token: request.floorToken } : {}),
        ...(request.bargeIn ? { bargeIn: true } : {}),
        signal: signal ? AbortSignal.any([signal, active.stop.signal]) : active.stop.signal,
        // Next in line: fork the recorder now, so the hand-off need not (a turn later: not inside another's hand-off).
        onNext: () =>
          setImmediate(() => {
            if (active.granted || active.done || active.parked || active.stop.signal.aborted || signal?.aborted) return;
            active.parked = Capture.park({
              recorder,
              env: this.#o.env ?? process.env,
              ...(this.#o.spawn ? { spawn: this.#o.spawn } : {}),
            });
          }),
      });
      active.granted = true;
    } catch (err) {
      if (!active.stop.signal.aborted && !signal?.aborted) throw err;
      const reason = signal?.aborted ? 'the client went away' : 'stopped while waiting for the microphone';
      return { text: '', durationMs: 0, speechMs: 0, endedBy: 'stopped', transcribed: false, reason };
    }
    this.#active = active;
    const keep = request.keepFloor === true;
    let token: string | undefined;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      active.open = false;
      if (this.#active === active) this.#active = undefined;
      if (keep && !signal?.aborted && !active.stop.signal.aborted) token = grant.keep();
      else grant.release();
    };
    const releases: Array<Promise<void>> = [];
    const idleMs = request.floorIdleMs ?? LISTEN_DEFAULTS.floorIdleMs;
    let r: ListenResponse | undefined;
    try {
      r = await this.#listen(request, active, recorder, releases, free, signal);
    } finally {
      // The microphone is released before the listen answers, on every path.
      await Promise.all(releases);
      free();
      // The idle clock starts with the answer; a failed or abandoned listen hands the floor on.
      if (token && r && !signal?.aborted) this.#floor.arm(token, idleMs);
      else if (token) this.#floor.release(token);
    }
    return { ...r, waitedMs: grant.waitedMs, ...(token && !signal?.aborted ? { floor: { token, idleMs } } : {}) };
  }

  async #listen(
    request: ListenRequest,
    active: Active,
    recorder: ReturnType<typeof resolveRecorder>,
    releases: Array<Promise<void>>,
    free: () => void,
    clientSignal?: AbortSignal,
  ): Promise<ListenResponse> {
    const maxSeconds = request.maxSeconds ?? LISTEN_DEFAULTS.maxSeconds;
    const startTimeoutMs = request.startTimeoutMs ?? LISTEN_DEFAULTS.startTimeoutMs;
    const gone = clientSignal ? AbortSignal.any([active.stop.signal, clientSignal]) : active.stop.signal;
    const log = this.#o.log;
    const chime = (request.prompt ?? LISTEN_DEFAULTS.prompt) ? chimePcm('prompt', 0.5) : undefined;
    const chimeMs = chime ? Math.ceil((chime.length / 2 / CHIME_FORMAT.sampleRate) * 1000) : 0;
    // Chime, recorder start-up and the recording itself; then speech plays whatever happens here.
    const recordingMs = chimeMs + maxSeconds * 1000 + 2000;
    const hold = this.#o.dispatcher.hold({
      ...(request.interrupt || request.bargeIn ? { interrupt: true } : {}),
      limitMs: recordingMs,
      reason: `a listen${active.session ? ` (session ${active.session})` : ''}`,
    });
    let said: SpeakResponse | undefined;
    let capture: Capture | undefined;
    let got: Recorded | undefined;
    try {
      if (request.say) {
        // The question, under this listen's floor and hold: nothing plays between it and the recording.
        said = await hold.say({ ...request.say, ...(active.session ? { session: active.session } : {}) }, gone);
        hold.limit(recordingMs);
        if (said.status !== 'played') {
          const why = said.reason ?? said.error?.message ?? said.status;
          return {
            text: '',
            durationMs: 0,
            speechMs: 0,
            endedBy: 'stopped',
            transcribed: false,
            said,
            reason: `the question was not spoken (${said.status}: ${why}), so nothing was recorded`,
          };
        }
      }
      await Promise.race([hold.ready, abortion(gone)]);
      if (chime && !gone.aborted) {
        // Played here, not queued: the player is ours while held. A listen is not refused for want of speakers.
        await this.#o.sink
          .play(CHIME_FORMAT, once(chime), gone, { id: active.id })
          .catch((err: Error) => log?.warn({ id: active.id, err: err.message }, 'prompt chime failed'));
      }
      if (!gone.aborted) {
        got = await record({
          id: active.id,
          ...(active.session ? { session: active.session } : {}),
          recorder,
          ...(active.parked ? { parked: active.parked } : {}),
          endPointer: this.#endPointer,
          maxSeconds,
          silenceMs: request.silenceMs ?? LISTEN_DEFAULTS.silenceMs,
          startTimeoutMs,
          gone,
          env: this.#o.env ?? process.env,
          ...(this.#o.spawn ? { spawn: this.#o.spawn } : {}),
          recordings: this.#recordings,
          ...(log ? { log } : {}),
          onCapture: (c) => ((capture = c), (active.open = true)),
        });
      }
    } finally {
      // The recorder is killed here (stop() signals at once); the transcriber need not wait
      // for its group to be reaped, and queued speech plays once it has been.
      const c = capture;
      active.open = false;
      releases.push(
        (c ? c.stop() : Promise.resolve()).finally(() => {
          hold.release();
          free();
        }),
      );
    }
    const audio = got?.audio ?? Buffer.alloc(0);
    const durationMs = Math.round((audio.length / 2 / CAPTURE_FORMAT.sampleRate) * 1000);
    const speechMs = got?.speechMs ?? 0;
    const endedBy = got?.endedBy ?? 'stopped';
    const base = { durationMs, speechMs, endedBy, ...(said ? { said } : {}) };
    log?.info({ id: active.id, session: active.session, durationMs, speechMs, endedBy }, 'listen ended');
    if (clientSignal?.aborted) return { text: '', ...base, transcribed: false, reason: 'the client went away' };
    const wav = toWav(CAPTURE_FORMAT, audio);
    const keep = request.keepAudio === true || !this.#transcriber.configured;
    const save = () => this.#recordings.save(wav, active.id);
    if (speechMs === 0) {
      return {
        text: '',
        ...base,
        ...(keep && audio.length ? { audioPath: save() } : {}),
        transcribed: false,
        reason: endedBy === 'timeout' ? `no speech within ${startTimeoutMs} ms` : 'no speech was heard',
      };
    }
    if (!this.#transcriber.configured)
      return { text: '', ...base, audioPath: save(), transcribed: false, reason: NO_TRANSCRIBER };
    const audioPath = keep ? save() : undefined;
    try {
      const t = await this.#transcriber.transcribe(wav, {
        ...(request.language ? { language: request.language } : {}),
        ...(clientSignal ? { signal: clientSignal } : {}),
      });
      const latencyMs = got?.speechEndAt === undefined ? undefined : Math.round(performance.now() - got.speechEndAt);
      log?.info(
        { id: active.id, session: active.session, transcribeMs: t.ms, latencyMs, chars: t.text.length },
        'transcribed',
      );
      return {
        text: t.text,
        ...base,
        ...(audioPath ? { audioPath } : {}),
        transcribed: true,
        transcribeMs: t.ms,
        ...(t.by ? { transcriber: t.by } : {}),
      };
    } catch (err) {
      // The user's words are not lost with the transcriber: the recording is kept and named.
      throw Object.assign(err as Error, { audioPath: audioPath ?? save() });
    }
  }
}

async function* once(buf: Buffer): AsyncGenerator<Buffer> {
  yield buf;
}
