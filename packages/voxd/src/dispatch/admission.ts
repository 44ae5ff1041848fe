/**
 * Admission: whether a request is taken, and how. The sink must be able to
 * play (else 503 at once, not "queued" for speech nobody hears); the engine
 * is chosen once, here, and the text prepared for it; then the request is
 * joined to the one it re-sends (same request id), deduplicated, refused
 * when the queue is full, or queued by the priority rules (queue.ts), and
 * journaled before the caller hears "queued".
 */
import { randomUUID } from 'node:crypto';
import {
  CHIME_DEDUP_SECONDS,
  DEFAULT_DEDUP_SECONDS,
  NOTIFICATION_MAX_AGE_MS,
  type ChimeSignal,
  type Priority,
  type SinkHealth,
  type SpeakRequest,
  type SpeakResponse,
} from '@vox/protocol';
import { VoxError } from '../errors.js';
import { NO_OUTPUT_FIX, type Sink, type SinkState } from '../sinks/sink.js';
import type { Synthesizer } from '../synthesis/synthesizer.js';
import { prepareAsGiven, type PrepareFn, type PreparedText } from '../text/preparer.js';
import type { VoiceAssignment } from '../voices/assignment.js';
import type { DuplicateFilter } from './dedup.js';
import type { IdleWaits } from './idle-waits.js';
import type { NarrationMark } from './journal-records.js';
import { handedOver, sinkHealth, type Ledger } from './ledger.js';
import { dedupKeyFor, storedKey, withoutSecrets } from './normalize.js';
import type { Player } from './player.js';
import type { SpeechQueue } from './queue.js';
import type { UtteranceJournal } from './utterance-journal.js';
import { eventBase, historyEntry, pick, Utterance, type UtteranceFields } from './utterance.js';

/** A speak request as the dispatcher takes it: the wire type, less the HTTP-only `wait`. */
export type SpeakInput = Omit<SpeakRequest, 'wait'>;

/** What a request is admitted as. */
type Spec = Pick<UtteranceFields, 'kind' | 'text' | 'sentences' | 'priority' | 'dedupKey' | 'windowMs'> &
  Partial<
    Pick<
      UtteranceFields,
      | 'voice'
      | 'rate'
      | 'volume'
      | 'model'
      | 'apiKey'
      | 'session'
      | 'final'
      | 'engine'
      | 'resolved'
      | 'signal'
      | 'requestId'
      | 'narration'
      | 'cacheOnly'
    >
  > &
  Pick<SpeakRequest, 'maxAgeMs' | 'idlePrompt'> & {
    /** Held by attention.ts (a background session): settled `held`, never queued; why. */
    held?: string;
  };

export interface Admitted {
  response: SpeakResponse;
  settled: Promise<SpeakResponse>;
}

export interface AdmissionOptions {
  synthesizer: Synthesizer;
  sink: Sink;
  prepare: PrepareFn;
  clock: () => number;
  /** Most requests waiting at once. */
  maxQueue: number;
  queue: SpeechQueue<Utterance>;
  dedup: DuplicateFilter;
  /** Sessions waiting for their person: an idle prompt is said once per wait (idle-waits.ts). */
  waits: IdleWaits;
  ledger: Ledger;
  player: Player;
  journal: UtteranceJournal;
  /** A session's own voice, for a request that names none (voices/assignment.ts). */
  voices?: VoiceAssignment | undefined;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void } | undefined;
}

/** Nothing but punctuation and spaces. */
const UNSPEAKABLE = /^[\p{P}\s]*$/u;

export class Admission {
  readonly #o: AdmissionOptions;
  /** Admissions happen in arrival order, whatever each text took to prepare. */
  #admissions: Promise<unknown> = Promise.resolve();
  #checking: Promise<SinkState> | undefined;
  #closed = false;

  constructor(options: AdmissionOptions) {
    this.#o = options;
  }

  /** True once close() was called: nothing more is accepted. */
  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /**
   * Resolves at once with the acceptance (queued, deduped or dropped); `settled` with the final outcome.
   * A narration (dispatch/narration.ts) comes with its text prepared and its mark; a replay (play-again.ts)
   * with its sentences as rendered, played from the cache only (`cacheOnly`).
   */
  async speech(
    input: SpeakInput,
    given?: { prepared?: PreparedText; mark?: NarrationMark; cacheOnly?: boolean; held?: string },
  ): Promise<Admitted> {
    this.#assertOpen();
    // Secrets are said as their kind, and so never reach history, the journal or a log.
    input = withoutSecrets(input);
    const sink = await this.#audible();
    const turn = this.#admissions.then(async () => {
      const engine = await this.#o.synthesizer.resolve(input.engine, input.voice);
      // An unknown voice is the caller's mistake: refused now (400, as /v1/synthesize does), not failed at play time.
      // The engine's own lookup, asked once per voice; an engine that cannot tell (or fails to answer) lets it through.
      if (input.voice && engine.knowsVoice && !(await engine.knowsVoice(input.voice).catch(() => true))) {
        throw new VoxError('VOX_ERR_VOICE_UNKNOWN', JSON.stringify(input.voice), engine.name);
      }
      const prepared =
        given?.prepared ??
        (input.verbatim
          ? await prepareAsGiven(input.text, { keepTags: false })
          : await this.#o.prepare(input.text, {
              keepTags: engine.understandsTags(input.model),
              ...(input.maxChars ? { maxChars: input.maxChars } : {}),
            }));
      // Inside the turn: two sessions arriving together are not given one free voice.
      const voice =
        input.voice ??
        (input.session && this.#o.voices ? await this.#o.voices.voiceFor(input.session, engine) : undefined);
      return { engine, prepared, voice };
    });
    this.#admissions = turn.catch(() => undefined);
    const { engine, prepared, voice } = await turn;
    this.#assertOpen();
    const windowMs = (input.once ?? DEFAULT_DEDUP_SECONDS) * 1000;
    // A sentence of punctuation alone ("...", "!!!") is no speech: the engine
    // renders it as a few ms of near-silence. A text of nothing else is dropped
    // with a reason (player.ts), and is nobody's duplicate: its key would be
    // empty, shared by every such text.
    const sentences = prepared.sentences.filter((t) => !UNSPEAKABLE.test(t));
    const key = dedupKeyFor(input.text, input.dedupKey);
    return this.#admitDurably(
      {
        kind: 'speech',
        text: prepared.text,
        sentences,
        priority: input.priority ?? 'message',
        dedupKey: sentences.length > 0 && key !== '' ? storedKey(key) : `unspeakable:${randomUUID()}`,
        windowMs,
        engine: engine.name,
        resolved: engine,
        ...pick(input, [
          'rate',
          'volume',
          'model',
          'apiKey',
          'session',
          'final',
          'maxAgeMs',
          'requestId',
          'idlePrompt',
        ]),
        ...(voice !== undefined ? { voice } : {}),
        ...(given?.mark ? { narration: given.mark } : {}),
        ...(given?.cacheOnly || given?.held ? pick(given, ['cacheOnly', 'held']) : {}),
      },
      sink,
    );
  }

  /** A chime. Each signal has a fixed 5 s duplicate window. */
  async chime(
    signal: ChimeSignal,
    options: { session?: string; priority?: Priority; volume?: number; held?: string },
  ): Promise<Admitted> {
    this.#assertOpen();
    const sink = await this.#audible();
    return this.#admitDurably(
      {
        kind: 'chime',
        signal,
        text: `(${signal} chime)`,
        sentences: [],
        priority: options.priority ?? 'message',
        dedupKey: `chime:${signal}`,
        windowMs: CHIME_DEDUP_SECONDS * 1000,
        ...(options.session ? { session: options.session } : {}),
        ...pick(options, ['volume', 'held']),
      },
      sink,
    );
  }

  /**
   * "queued" is said only once the request is on disk: a crash after this
   * replays it. A sync that fails takes back a request still queued, and the
   * caller is refused (503) rather than told "queued" for what a crash could lose.
   */
  async #admitDurably(spec: Spec, sink: SinkHealth): Promise<Admitted> {
    const admitted = this.#admit(spec, sink);
    // A narration's batch is answered once written, not synced: the page cache survives a kill -9, and
    // the hook must not hold Claude Code's screen for a disk flush (narration.ts).
    if (!admitted.durable || spec.narration) return admitted;
    try {
      await admitted.durable.done;
    } catch (err) {
      const u = admitted.durable.u;
      if (!this.#o.queue.remove(u) && !u.parked) return admitted; // already playing: it is spoken, and the caller hears so
      this.#o.ledger.settle(u, 'failed', (err as Error).message, 'VOX_ERR_JOURNAL_UNWRITABLE');
      throw err;
    }
    return admitted;
  }

  /**
   * The sink must be able to play before anything is accepted: when it cannot
   * (no device, no player, or it failed and a fresh probe fails too), the
   * caller is refused at once with the cause and the fix (503
   * VOX_ERR_AUDIO_UNAVAILABLE) instead of hearing "queued" for speech nobody
   * will hear. Callers that arrive together share one probe.
   */
  async #audible(): Promise<SinkHealth> {
    this.#checking ??= this.#o.sink.check().finally(() => (this.#checking = undefined));
    const health = sinkHealth(await this.#checking);
    if (!health.ok) {
      this.#o.log?.warn({ sink: health }, 'request refused: no audio output');
      throw new VoxError(
        'VOX_ERR_AUDIO_UNAVAILABLE',
        health.reason ?? 'the audio output failed',
        health.fix ?? NO_OUTPUT_FIX,
      );
    }
    return health;
  }

  #admit(spec: Spec, sink: SinkHealth): Admitted & { durable?: { done: Promise<void>; u: Utterance } } {
    const { clock, dedup, ledger, queue, player, journal } = this.#o;
    if (spec.requestId) {
      const joined = this.#join(spec.requestId, spec.dedupKey, spec.apiKey, sink);
      if (joined) return joined;
    }
    if (spec.session) {
      // Anything else from the session ends its wait: its next idle prompt is said again.
      if (spec.idlePrompt) this.#o.waits.waiting(spec.session, spec.dedupKey);
      else this.#o.waits.end(spec.session);
    }
    const now = clock();
    const id = randomUUID().slice(0, 8);
    const entry = historyEntry({ ...spec, id }, now);

    const hit = dedup.check(spec.dedupKey, spec.windowMs);
    if (hit) {
      const original = ledger.byId.get(hit.original.id);
      const originalStatus =
        hit.original.state === 'played' ? (hit.original.outcome ?? 'played') : original?.started ? 'playing' : 'queued';
      const response: SpeakResponse = {
        id,
        status: 'deduped',
        text: spec.text,
        originalId: hit.original.id,
        duplicate: {
          originalId: hit.original.id,
          originalStatus,
          ...(hit.original.playedAt !== undefined ? { playedAt: new Date(hit.original.playedAt).toISOString() } : {}),
          windowRemainingMs: Math.round(hit.remainingMs),
        },
        sink,
      };
      entry.outcome = 'deduped';
      entry.duplicateOf = hit.original.id;
      entry.finishedAt = entry.acceptedAt;
      ledger.record(entry);
      ledger.counters.deduped += 1;
      ledger.emit('deduped', {
        id,
        priority: spec.priority,
        ...(spec.session ? { session: spec.session } : {}),
        originalId: hit.original.id,
      });
      // A waiting duplicate learns how the original ended (or, at a shutdown, that it was handed over).
      const settled =
        original && !original.settled
          ? ledger.outcomeOf(original).then((r) =>
              handedOver(r)
                ? r
                : ({
                    ...response,
                    status: r.status === 'played' ? 'deduped' : r.status,
                    ...(r.reason ? { reason: r.reason } : {}),
                  } as SpeakResponse),
            )
          : Promise.resolve(response);
      return { response, settled };
    }

    if (queue.length >= this.#o.maxQueue) throw new VoxError('VOX_ERR_QUEUE_FULL', this.#o.maxQueue);

    const { maxAgeMs: askedMaxAgeMs, idlePrompt: _idle, held, ...fields } = spec;
    const maxAgeMs = askedMaxAgeMs ?? (spec.priority === 'notification' ? NOTIFICATION_MAX_AGE_MS : undefined);
    const u = Utterance.accepted(
      { ...fields, id, acceptedAt: now, ...(maxAgeMs !== undefined ? { expiresAt: now + maxAgeMs } : {}) },
      entry,
    );
    // On disk before anything else changes: when it cannot be (the cap, a full
    // disk), this throws a 503 and the request was never taken.
    const done = journal.accept(u);
    ledger.counters.accepted += 1;
    ledger.record(entry);
    ledger.byId.set(id, u);

    if (held) return settleHeld(u, held, this.#o, sink);
    if (u.narration && u.sentences.length === 0) {
      // A narration with no whole sentence yet waits for its next batch, out of the queue.
      u.park();
      dedup.begin(u.dedupKey, id, u.windowMs);
      ledger.emit('queued', eventBase(u));
      return {
        response: { id, status: 'queued', text: u.text, sink },
        settled: ledger.outcomeOf(u),
        ...(done ? { durable: { done, u } } : {}),
      };
    }
    const admission = queue.admit(u, player.playing);
    if (!admission.admitted) {
      ledger.emit('queued', eventBase(u));
      ledger.settle(u, 'dropped', admission.reason);
      const reason = admission.reason!;
      return { response: { id, status: 'dropped', text: u.text, reason, sink }, settled: ledger.outcomeOf(u) };
    }
    dedup.begin(u.dedupKey, id, u.windowMs);
    if (u.requestId) ledger.byRequest.set(u.requestId, u);
    ledger.emit('queued', eventBase(u));
    for (const r of admission.removed) ledger.settle(r.item, r.outcome, r.reason);
    if (admission.playing !== 'continue' && player.playing) {
      player.abort(
        admission.playing,
        `${admission.playing === 'interrupt-resume' ? 'paused' : 'interrupted'} for ${u.priority} speech`,
      );
    }
    if (maxAgeMs !== undefined) player.expireAfter(u, maxAgeMs + 1);
    player.kick();
    return {
      response: { id, status: 'queued', text: u.text, sink },
      settled: ledger.outcomeOf(u),
      ...(done ? { durable: { done, u } } : {}),
    };
  }

  /**
   * A re-send of a request voxd has (by the caller's request id, with the
   * same duplicate key): the answer is that request's, in flight or final.
   * A replayed request gets back the API key the journal did not keep.
   */
  #join(requestId: string, dedupKey: string, apiKey: string | undefined, sink: SinkHealth): Admitted | undefined {
    const { ledger, log } = this.#o;
    const live = ledger.byRequest.get(requestId);
    if (live && !live.settled && live.dedupKey === dedupKey) {
      live.takeApiKey(apiKey);
      log?.info({ id: live.id, session: live.session, requestId }, 'a re-sent request joined the one in flight');
      return { response: { id: live.id, status: 'queued', text: live.text, sink }, settled: ledger.outcomeOf(live) };
    }
    const done = ledger.recent(requestId);
    if (done && done.dedupKey === dedupKey) {
      log?.info(
        { id: done.result.id, requestId, outcome: done.result.status },
        'a re-sent request got the outcome of the one it repeats',
      );
      return { response: done.result, settled: Promise.resolve(done.result) };
    }
    return undefined;
  }

  #assertOpen(): void {
    if (this.#closed) throw new VoxError('VOX_ERR_SHUTTING_DOWN');
  }
}

/** Not queued: settled at once, its duplicate window started (ledger.ts), kept for the digest (recall.ts). */
function settleHeld(u: Utterance, held: string, o: AdmissionOptions, sink: SinkHealth): Admitted {
  o.ledger.emit('queued', eventBase(u));
  o.dedup.begin(u.dedupKey, u.id, u.windowMs);
  o.ledger.settle(u, 'held', held);
  return { response: { id: u.id, status: 'held', text: u.text, reason: held, sink }, settled: o.ledger.outcomeOf(u) };
}
