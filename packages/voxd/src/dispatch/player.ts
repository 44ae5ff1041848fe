/**
 * The player: one utterance at a time from the queue to the sink. It starts
 * each (or resumes it from the sentence that was cut), cuts the one playing
 * when asked (a stop, an interruption, a shutdown, a playback timeout) and
 * decides what the cut means: an interrupted `message` or `text` goes back
 * to the front of its class, to resume later, unless a stop landed between
 * the cut and the requeue (the stop wins). A listen holds the player: nothing
 * new starts while the hold lasts. The quiet gate (quiet/gate.ts) holds it
 * too, for as long as its reasons last: the utterance playing is cut to
 * resume, and an ask waiting gets one chime.
 */
import { NARRATION_TURN_MS, type WireErrorCode } from '@vox/protocol';
import { CHIME_FORMAT, chimePcm } from '../audio/chimes.js';
import type { QuietGate } from '../quiet/gate.js';
import type { Sink } from '../sinks/sink.js';
import type { Ledger } from './ledger.js';
import { PlaybackWatchdog } from './playback-watchdog.js';
import type { SpeechQueue } from './queue.js';
import { chimeAudio, speechAudio, type SpeechStreamOptions } from './speech-stream.js';
import { eventBase, type AbortReason, type Utterance } from './utterance.js';

export interface PlayerOptions {
  queue: SpeechQueue<Utterance>;
  ledger: Ledger;
  sink: Sink;
  clock: () => number;
  /** A sink may take the audio's duration plus max(this, 50 %) to play it, in ms. */
  playbackGraceMs: number;
  stream: SpeechStreamOptions;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void } | undefined;
  /** Holds all speech while it is closed (quiet/gate.ts); none: never held. */
  gate?: QuietGate | undefined;
}

export class Player {
  readonly #o: PlayerOptions;
  #playing: Utterance | null = null;
  #running = false;
  #idle: Promise<void> = Promise.resolve();
  /** A listen's hold on the player (hold()): nothing new starts while it lasts, but its own question (`let()`). */
  #hold: Hold | undefined;

  constructor(options: PlayerOptions) {
    // A narration's turn ends at a sentence boundary once it has held the voice for its turn and another waits.
    const endTurn = (u: Utterance, audioMs: number): boolean =>
      u.narration !== undefined && audioMs >= NARRATION_TURN_MS && options.queue.waitingAtOrAbove(u.priority);
    this.#o = { ...options, stream: { ...options.stream, endTurn } };
    // Held: what plays is cut, to resume from its sentence once the gate opens. A chime ends on its own.
    options.gate?.on('change', (held) => {
      if (held && this.#playing?.kind === 'speech') this.abort('interrupt-resume', 'held: ' + heldWhy(options.gate!));
      this.kick();
    });
  }

  get playing(): Utterance | null {
    return this.#playing;
  }

  /** Resolves when the queue is empty and nothing plays. */
  idle(): Promise<void> {
    return this.#idle;
  }

  /**
   * Hold the player for a listen (listen/listener.ts): nothing queued starts
   * until `release()`, or until `limitMs` after the hold took effect,
   * whichever is first, so no request (an `important` one included) waits
   * longer than the listen's maximum. `ready` resolves once nothing plays: at
   * the end of the current utterance, or at once when `interrupt` cuts it (it
   * settles `interrupted`). Speech that arrives meanwhile queues as usual.
   *
   * `let(u)` lets one queued utterance through the hold: a listen's own
   * question, spoken under the hold so that nothing plays between it and the
   * recording. The time limit stops while the question is due and restarts
   * with `limit(ms)`, once the listen knows how long the rest takes.
   */
  hold(options: { interrupt?: boolean; limitMs: number; reason: string }): HoldHandle {
    // Can't happen: the listener holds once per listen, and one listen at a time (the floor).
    if (this.#hold) throw new Error('the player is held already');
    const hold = new Hold(() => {
      if (this.#hold === hold) this.#hold = undefined;
    });
    this.#hold = hold;
    const p = this.#playing;
    if (p && options.interrupt) this.abort('interrupt-drop', `cut by ${options.reason}`);
    const ready = (p?.ended ?? Promise.resolve()).then(() => hold.start(options.limitMs));
    return {
      ready,
      release: () => hold.open(),
      limit: (ms) => hold.limit(ms),
      let: (u) => {
        hold.let(u);
        this.kick();
      },
    };
  }

  /** Ends a listen's hold, if one lasts (at a shutdown). */
  release(): void {
    this.#hold?.open();
  }

  /** Cut the utterance playing, for `reason` (Utterance.cut); what follows is #afterAbort's. */
  abort(reason: AbortReason, detail: string): void {
    this.#playing?.cut(reason, detail);
  }

  /** Settle `u` as expired after `delayMs` unless it has started by then. */
  expireAfter(u: Utterance, delayMs: number): void {
    u.expireAfter(delayMs, () => {
      if (this.#o.queue.remove(u)) this.#o.ledger.settle(u, 'expired', 'not started within maxAgeMs');
    });
  }

  /** Start the loop, unless it runs. */
  kick(): void {
    this.#o.gate?.poke();
    if (this.#running) return;
    this.#running = true;
    let done!: () => void;
    this.#idle = new Promise((r) => (done = r));
    void (async () => {
      try {
        for (;;) {
          // A listen holds the player (hold()): queued speech waits for it, but its own question.
          const held = this.#hold;
          if (held) {
            const lead = held.lead && this.#o.queue.remove(held.lead) ? held.lead : undefined;
            held.lead = undefined;
            if (lead) await this.#play(lead);
            else await held.wake();
            continue;
          }
          const gate = this.#o.gate;
          if (gate?.held) {
            if (this.#o.queue.length === 0) break;
            await this.#whileHeld(gate);
            continue;
          }
          const u = this.#o.queue.shift();
          if (!u) break;
          if (u.expiresAt !== undefined && !u.started && this.#o.clock() > u.expiresAt) {
            this.#o.ledger.settle(u, 'expired', 'not started within maxAgeMs');
            continue;
          }
          await this.#play(u);
        }
      } catch (err) {
        this.#o.log?.error({ err }, 'player loop failed');
      } finally {
        this.#running = false;
        done();
      }
    })();
  }

  /** Held by the quiet gate: each ask waiting is announced by one chime (never spoken), then wait for a change. */
  async #whileHeld(gate: QuietGate): Promise<void> {
    const woken = gate.wake();
    const asks = this.#o.queue.first(this.#o.queue.count('important'));
    if (asks.some((u) => u.kind === 'speech' && gate.firstSight(u))) {
      const pcm = chimePcm('attention');
      await this.#o.sink
        .play(
          CHIME_FORMAT,
          (async function* () {
            yield pcm;
          })(),
          new AbortController().signal,
          { id: 'quiet-chime' },
        )
        .catch((err: Error) => this.#o.log?.warn({ err: err.message }, 'the chime for an ask held in quiet failed'));
    }
    await woken;
  }

  async #play(u: Utterance): Promise<void> {
    const { ledger, sink } = this.#o;
    if (u.kind === 'speech' && u.sentences.length === 0) {
      // Only code, emoji or markup: reported, and the sink is never touched.
      ledger.settle(
        u,
        'dropped',
        'nothing left to say after cleanup (the text was only code, emoji, markup or punctuation)',
      );
      return;
    }
    const pass = u.beginPass();
    this.#playing = u;
    this.#announce(u);
    try {
      const { format, chunks } = u.kind === 'chime' ? chimeAudio(u) : await speechAudio(u, pass.signal, this.#o.stream);
      // Cut before any audio was ready: nothing reaches the sink (no empty WAV, no click).
      if (pass.signal.aborted) {
        this.#afterAbort(u);
        return;
      }
      const watchdog = new PlaybackWatchdog(format, this.#o.playbackGraceMs, () => {
        const audio = (watchdog.audioMs / 1000).toFixed(1);
        const limit = (watchdog.limitMs / 1000).toFixed(1);
        this.abort(
          'watchdog',
          `the player ${sink.state().name} had not finished ${audio} s of audio after ${limit} s (the playback timeout), so it was killed`,
        );
      });
      let result;
      try {
        result = await sink.play(format, watchdog.watch(chunks), pass.signal, { id: u.id });
      } finally {
        watchdog.done();
      }
      if (result.firstAudioAt !== undefined) u.heard(result.firstAudioAt);
      if (pass.signal.aborted) this.#afterAbort(u);
      else if (result.bytes === 0 && u.kind === 'speech')
        ledger.settle(
          u,
          'failed',
          `the ${u.entry.engine ?? 'speech'} engine produced no audio`,
          'VOX_ERR_SYNTHESIS_FAILED',
        );
      else if (u.narration) this.#afterPass(u);
      else ledger.settle(u, 'played');
    } catch (err) {
      if (pass.signal.aborted) {
        this.#afterAbort(u);
      } else {
        const e = err as Error & { code?: string };
        const code: WireErrorCode =
          e.code === 'VOX_ERR_SYNTHESIS_FAILED' ? 'VOX_ERR_SYNTHESIS_FAILED' : 'VOX_ERR_PLAYBACK_FAILED';
        this.#o.log?.warn({ id: u.id, session: u.session, err: e.message }, 'utterance failed');
        ledger.settle(u, 'failed', e.message, code);
      }
    } finally {
      this.#playing = null;
      pass.end();
    }
  }

  /** `started`, or started again (after an interruption or a restart) and where. */
  #announce(u: Utterance): void {
    const how = u.start(this.#o.clock);
    if (how === 'first') {
      this.#o.ledger.emit('started', eventBase(u));
      return;
    }
    const where = u.kind === 'chime' ? 'resumed' : `resumed from sentence ${u.current + 1} of ${u.sentences.length}`;
    this.#o.ledger.emit('started', {
      ...eventBase(u),
      reason: how === 'restored' ? `${where} after voxd restarted` : where,
    });
  }

  /** A narration's pass ended: its turn is over (back behind the others), it waits for its next batch, or it is done. */
  #afterPass(u: Utterance): void {
    u.newTurn();
    if (u.current < u.sentences.length) this.#o.queue.pushBack(u);
    else if (!u.narration!.final) u.park();
    else this.#o.ledger.settle(u, 'played');
  }

  #afterAbort(u: Utterance): void {
    const { ledger, queue } = this.#o;
    switch (u.abortReason) {
      case 'interrupt-resume': {
        const newer = queue.requeue(u);
        if (newer) {
          ledger.settle(
            u,
            'replaced',
            `${u.abortDetail}; replaced by newer ${u.priority} ${newer.id} from the same session`,
          );
          return;
        }
        ledger.emit('interrupted', { ...eventBase(u), reason: `${u.abortDetail}; will resume` });
        return;
      }
      case 'interrupt-drop':
        ledger.settle(u, 'interrupted', u.abortDetail);
        return;
      case 'shutdown':
        ledger.shutDown(u, 'voxd shut down while speaking');
        return;
      case 'watchdog':
        this.#o.log?.warn({ id: u.id, session: u.session, reason: u.abortDetail }, 'playback timed out');
        ledger.settle(u, 'failed', u.abortDetail, 'VOX_ERR_PLAYBACK_TIMEOUT');
        return;
      default:
        ledger.settle(u, 'stopped', u.abortDetail ?? 'stopped');
    }
  }
}

const heldWhy = (gate: QuietGate): string =>
  gate
    .reasons()
    .map((r) => r.detail)
    .join('; ');

/** What a listen holds: release it, let its question through, restart its time limit. */
export interface HoldHandle {
  ready: Promise<void>;
  release(): void;
  /** Open the hold `ms` from now, whatever happens (a listen that hangs must not silence voxd). */
  limit(ms: number): void;
  /** Play `u` (queued) through the hold; the time limit waits until limit() is called again. */
  let(u: Utterance): void;
}

/** A hold's state: open or not, the utterance it lets through, and its time limit. */
class Hold {
  lead: Utterance | undefined;
  #open = false;
  /** An utterance was let through: the listen restarts the limit itself. */
  #led = false;
  #timer: NodeJS.Timeout | undefined;
  #wakers: Array<() => void> = [];
  readonly #onOpen: () => void;

  constructor(onOpen: () => void) {
    this.#onOpen = onOpen;
  }

  /** Resolves when the hold opens or lets an utterance through. */
  wake(): Promise<void> {
    if (this.#open || this.lead) return Promise.resolve();
    return new Promise((r) => this.#wakers.push(r));
  }

  /** The first time limit, once nothing plays; not when a question is due (it is timed from its end). */
  start(ms: number): void {
    if (!this.#led) this.limit(ms);
  }

  let(u: Utterance): void {
    if (this.#open) return;
    this.#led = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.lead = u;
    this.#wakeAll();
  }

  limit(ms: number): void {
    if (this.#open) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.open(), ms);
    this.#timer.unref();
  }

  open(): void {
    if (this.#open) return;
    this.#open = true;
    clearTimeout(this.#timer);
    this.lead = undefined;
    this.#onOpen();
    this.#wakeAll();
  }

  #wakeAll(): void {
    const w = this.#wakers;
    this.#wakers = [];
    for (const r of w) r();
  }
}
