/**
 * Barge-in by voice (the setting `listen.bargeIn: voice`, for headsets): while
 * vox plays speech the recorder runs and voice activity detection listens;
 * when the user starts speaking, the utterance is cut the way a
 * `vox listen --barge-in` cuts it (it ends `interrupted` and is not resumed).
 *
 * Design notes:
 * - Off by default, and then this module is not even loaded: nothing listens.
 *   On loudspeakers the microphone hears vox's own voice and would cut every
 *   utterance (docs/talk-back.md, "Barge-in").
 * - The recorder opens when a speech utterance starts (chimes are too short
 *   to interrupt) and stops once nothing plays: checked a turn after each
 *   utterance ends, so back-to-back utterances keep one recorder.
 * - Each utterance gets a fresh detector: what was heard before it started
 *   (or the speech that cut the one before) does not count.
 * - A listen recording owns the microphone: the monitor does not open then,
 *   and stops if one opens (a listen starts only once nothing plays anyway).
 * - A recorder that cannot start or dies is logged; speech plays on.
 */
import { VOICE_BARGE_IN_ID, type ListeningStatus, type VoxEvent } from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { Capture, CAPTURE_FORMAT, resolveRecorder, type SpawnFn } from './capture.js';
import type { EndPointer, EndPointerFactory } from './vad.js';

/** The holder `listening` names in GET /v1/status while the monitor's recorder runs (@vox/protocol). */
export { VOICE_BARGE_IN_ID };

/** No end to a detector's listening: it is replaced per utterance. */
const LONG_MS = 3_600_000;

export interface VoiceBargeInOptions {
  dispatcher: Pick<Dispatcher, 'playing' | 'cut' | 'on' | 'off'>;
  /** The `listen.recorder` setting. */
  recorder: string;
  /** End-pointers under `listen.vad` (silero.ts endPointers); only speech onset is used. */
  vad: EndPointerFactory;
  /** True while a listen's recorder runs. */
  micBusy?: () => boolean;
  env?: NodeJS.ProcessEnv;
  spawn?: SpawnFn;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

export class VoiceBargeIn {
  readonly #o: VoiceBargeInOptions;
  #capture: Capture | undefined;
  #starting: Promise<void> | undefined;
  /** The utterance listened over, and its detector. */
  #for: { id: string; ep: EndPointer; cut: boolean } | undefined;
  #closed = false;
  /** Times the user's voice cut an utterance (for the log and tests). */
  cuts = 0;

  constructor(options: VoiceBargeInOptions) {
    this.#o = options;
    options.dispatcher.on('event', this.#onEvent);
  }

  /** True while the recorder runs. */
  get open(): boolean {
    return this.#capture !== undefined;
  }

  /** The microphone in GET /v1/status while the monitor has it open, else null. */
  get status(): ListeningStatus | null {
    return this.open ? { id: VOICE_BARGE_IN_ID, open: true } : null;
  }

  /** Stop listening for good (voxd's shutdown); resolves once the recorder is gone. Harmless twice. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#o.dispatcher.off('event', this.#onEvent);
    await this.#stop();
  }

  readonly #onEvent = (e: VoxEvent): void => {
    if (e.type === 'started') this.#sync();
  };

  /** Open the microphone while speech plays, close it when none does. */
  #sync(): void {
    const p = this.#o.dispatcher.playing;
    if (this.#closed || !p || p.kind !== 'speech' || this.#o.micBusy?.()) {
      void this.#stop();
      return;
    }
    if (this.#for?.id !== p.id) this.#for = { id: p.id, ep: this.#detector(), cut: false };
    void this.#start();
    void p.ended?.then(() => setImmediate(() => this.#sync()));
  }

  #detector(): EndPointer {
    return this.#o.vad({
      sampleRate: CAPTURE_FORMAT.sampleRate,
      silenceMs: 500,
      startTimeoutMs: LONG_MS,
      maxMs: LONG_MS,
    });
  }

  #start(): Promise<void> {
    if (this.#capture || this.#starting) return this.#starting ?? Promise.resolve();
    const log = this.#o.log;
    this.#starting = (async () => {
      try {
        const recorder = resolveRecorder(this.#o.recorder, this.#o.env ?? process.env);
        const capture = await Capture.start({
          recorder,
          env: this.#o.env ?? process.env,
          ...(this.#o.spawn ? { spawn: this.#o.spawn } : {}),
          ...(log ? { log } : {}),
          onData: (chunk) => this.#hear(chunk),
        });
        this.#capture = capture;
        log?.info({ recorder: recorder.path, pid: capture.pid }, 'voice barge-in: microphone open while vox speaks');
        void capture.ended.then((end) => {
          if (this.#capture === capture) this.#capture = undefined;
          if (end.by === 'exit')
            log?.warn(
              { code: end.code, signal: end.signal, stderr: end.stderr },
              'voice barge-in: the recorder ended; speech plays on',
            );
        });
        // Nothing plays any more (a short utterance), or voxd closed meanwhile.
        const p = this.#o.dispatcher.playing;
        if (this.#closed || !p || p.kind !== 'speech') await this.#stop();
      } catch (err) {
        log?.warn({ err: (err as Error).message }, 'voice barge-in: the microphone cannot be opened; speech plays on');
      } finally {
        this.#starting = undefined;
      }
    })();
    return this.#starting;
  }

  async #stop(): Promise<void> {
    await this.#starting;
    const c = this.#capture;
    this.#capture = undefined;
    if (c) {
      await c.stop();
      this.#o.log?.info({ pid: c.pid }, 'voice barge-in: microphone closed');
    }
  }

  #hear(chunk: Buffer): void {
    const f = this.#for;
    if (!f || f.cut) return;
    if (this.#o.micBusy?.()) {
      void this.#stop();
      return;
    }
    const playing = this.#o.dispatcher.playing;
    if (playing?.id !== f.id) return;
    f.ep.push(chunk);
    // Speech has started once the detector places its end (energy: 60 ms voiced; Silero: its own onset).
    if (f.ep.speechEndMs === undefined) return;
    f.cut = true;
    this.cuts += 1;
    this.#o.log?.info({ id: f.id, heardMs: f.ep.elapsedMs }, 'voice barge-in: the user spoke; cutting the utterance');
    void this.#o.dispatcher.cut('cut by the user speaking (voice barge-in)');
  }
}
