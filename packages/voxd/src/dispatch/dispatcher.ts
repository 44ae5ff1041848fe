/**
 * The dispatcher: accepts requests, filters duplicates, applies the priority
 * rules, and plays one utterance at a time through the sink. Every accepted
 * request ends in exactly one outcome (played, deduped, failed, expired,
 * interrupted, replaced, dropped, stopped) that is recorded in the history,
 * emitted as an event and returned to a caller that waits. Nothing is lost.
 *
 * An utterance is a unit: its sentences are synthesized one ahead of playback
 * and streamed to the sink as one stream, so no other request lands between
 * them unless it outranks it (queue.ts). An interrupted `message` or `text`
 * resumes later from the sentence that was cut, announced by a second
 * `started` event. A stop that lands between the cut and the requeue wins
 * over the resume. The rules in full: docs/priorities.md.
 *
 * With a journal (journal.ts), every accepted request is on disk before the
 * caller hears "queued", sentence starts and outcomes are recorded, and a
 * restarted voxd replays what had not settled (restore()): same ids, order,
 * priorities and sessions, resuming a cut utterance at its sentence. A
 * re-send with the same `requestId` is joined to the request it repeats.
 * On shutdown, queued speech is handed over to the next voxd instead of
 * failing, and callers that wait are cut off so that they re-send there.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_DEDUP_SECONDS,
  NOTIFICATION_MAX_AGE_MS,
  CHIME_DEDUP_SECONDS,
  wireError,
  type ChimeSignal,
  type EventType,
  type HistoryEntry,
  type Outcome,
  type Priority,
  type SinkHealth,
  type SpeakRequest,
  type SpeakResponse,
  type StatusResponse,
  type StopScope,
  type VoxEvent,
  type WireErrorCode,
} from '@vox/protocol';
import { chimePcm, CHIME_FORMAT } from '../audio/chimes.js';
import { DuplicateFilter } from './dedup.js';
import type { Engine, Synthesis, SynthesisRequest } from '../engines/engine.js';
import type { AudioFormat } from '../audio/pcm.js';
import type { Journal, JournalEntry, Replay } from './journal.js';
import { VoxError } from '../errors.js';
import { dedupKeyFor, storedKey } from './normalize.js';
import { applyGain, resample } from '../audio/pcm.js';
import { SpeechQueue } from './queue.js';
import { PlaybackWatchdog } from './playback-watchdog.js';
import { splitSentences } from '../text/sentences.js';
import type { PrepareFn } from '../text/preparer.js';
import { NO_OUTPUT_FIX, type Sink, type SinkState } from '../sinks/sink.js';

/** What the dispatcher needs of the engines (engines/registry.ts provides it). */
export interface Synthesizer {
  resolve(requested?: string, voice?: string): Promise<Engine>;
  synthesize(request: SynthesisRequest & { engine: string; apiKey?: string }): Promise<{
    engine: string;
    fallbackReason?: string;
    cached?: boolean;
    synthesis: Synthesis;
  }>;
}

export interface DispatcherOptions {
  synthesizer: Synthesizer;
  sink: Sink;
  /**
   * Turns a request's text into the text spoken and its sentences; `keepTags`
   * when the engine performs expressive tags. Default: the text as given.
   */
  prepare?: PrepareFn;
  /** Wall clock in ms; injected so tests control the duplicate window. */
  clock?: () => number;
  /** Most requests waiting at once. Default 10000. */
  maxQueue?: number;
  /** History entries kept for status. Default 200. */
  historySize?: number;
  /** Fail an utterance whose engine yields no audio for this long, in ms. Default 30000. */
  synthesisTimeoutMs?: number;
  /** A sink may take the audio's duration plus max(this, 50 %) to play it, in ms. Default 2000. */
  playbackGraceMs?: number;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  /** Where accepted requests are kept across restarts; none by default (nothing survives a restart). */
  journal?: Journal;
}

/** Journal entries older than this at a restart are reported expired, not spoken late. In ms. */
export const REPLAY_MAX_AGE_MS = 10 * 60_000;

/** Re-sends joined by request id: outcomes kept for this many recent requests. */
const RECENT_REQUESTS = 256;

/**
 * Marks the answer a waiting caller gets when voxd shuts down with its
 * request handed over to the next voxd (the journal): the route drops the
 * connection, so the caller re-sends and is joined to the replayed request.
 */
export const HANDED_OVER: unique symbol = Symbol('handed over');

export function handedOver(r: SpeakResponse): boolean {
  return (r as SpeakResponse & { [HANDED_OVER]?: true })[HANDED_OVER] === true;
}

/** A speak request as the dispatcher takes it: the wire type, less the HTTP-only `wait`. */
export type SpeakInput = Omit<SpeakRequest, 'wait'>;

type AbortReason = 'stopped' | 'interrupt-resume' | 'interrupt-drop' | 'shutdown' | 'watchdog';

interface Utterance {
  id: string;
  /** The caller's id for the request, if it sent one. */
  requestId?: string;
  /** Replayed from the journal and not yet started again here. */
  restored?: boolean;
  /** In the journal (its settle is recorded there). */
  journaled?: boolean;
  kind: 'speech' | 'chime';
  priority: Priority;
  session?: string;
  final?: boolean;
  text: string;
  sentences: string[];
  /** Index of the sentence being played (where a resume starts). */
  current: number;
  voice?: string;
  rate?: number;
  volume?: number;
  engine?: string;
  model?: string;
  apiKey?: string;
  signal?: ChimeSignal;
  acceptedAt: number;
  acceptedPerf: number;
  expiresAt?: number;
  expiryTimer?: NodeJS.Timeout;
  dedupKey: string;
  windowMs: number;
  entry: HistoryEntry;
  started: boolean;
  abort?: AbortController;
  abortReason?: AbortReason;
  abortDetail?: string;
  /** Resolves when the current pass through the sink has ended (its play() returned). */
  ended?: Promise<void>;
  settled: boolean;
  waiters: Array<(r: SpeakResponse) => void>;
  result?: SpeakResponse;
}

export interface DispatcherEvents {
  event: [VoxEvent];
}

type Counters = StatusResponse['counters'];

export class Dispatcher extends EventEmitter<DispatcherEvents> {
  readonly #synth: Synthesizer;
  readonly #sink: Sink;
  readonly #prepare: PrepareFn;
  /** Admissions happen in arrival order, whatever each text took to prepare. */
  #admissions: Promise<unknown> = Promise.resolve();
  readonly #clock: () => number;
  readonly #maxQueue: number;
  readonly #historySize: number;
  readonly #synthesisTimeoutMs: number;
  readonly #playbackGraceMs: number;
  readonly #log: DispatcherOptions['log'];
  readonly #dedup: DuplicateFilter;
  readonly #queue = new SpeechQueue<Utterance>();
  readonly #byId = new Map<string, Utterance>();
  readonly #journal: Journal | undefined;
  /** In-flight requests by the caller's request id. */
  readonly #byRequest = new Map<string, Utterance>();
  /** Outcomes of recent requests by the caller's request id (oldest first), for re-sends. */
  readonly #recent = new Map<string, { dedupKey: string; result: SpeakResponse }>();
  #history: HistoryEntry[] = [];
  #playing: Utterance | null = null;
  #running = false;
  #closing = false;
  #idle: Promise<void> = Promise.resolve();
  #checking: Promise<SinkState> | undefined;
  /** A listen's hold on the player (hold()): nothing new starts while it lasts. */
  #hold: { gate: Promise<void>; open(): void } | undefined;
  readonly counters: Counters = { accepted: 0, played: 0, deduped: 0, failed: 0, expired: 0, interrupted: 0, dropped: 0 };

  constructor(options: DispatcherOptions) {
    super();
    this.#synth = options.synthesizer;
    this.#sink = options.sink;
    this.#prepare = options.prepare ?? (async (t) => ({ text: t, sentences: splitSentences(t) }));
    this.#clock = options.clock ?? Date.now;
    this.#maxQueue = options.maxQueue ?? 10_000;
    this.#historySize = options.historySize ?? 200;
    this.#synthesisTimeoutMs = options.synthesisTimeoutMs ?? 30_000;
    this.#playbackGraceMs = options.playbackGraceMs ?? 2000;
    this.#log = options.log;
    this.#dedup = new DuplicateFilter(this.#clock);
    this.#journal = options.journal;
  }

  /** True once close() began: nothing more is accepted. */
  get closing(): boolean {
    return this.#closing;
  }

  get queueLength(): number {
    return this.#queue.length;
  }

  get playing(): Readonly<Utterance> | null {
    return this.#playing;
  }

  /** Queued utterances `offset` to `offset + limit`, in playing order (O(offset + limit)). */
  queuedPage(offset: number, limit: number): ReadonlyArray<Readonly<Utterance>> {
    return this.#queue.first(offset + limit).slice(offset);
  }

  /** How many are queued in each class. */
  queuedByPriority(): Record<Priority, number> {
    return { important: this.#queue.count('important'), message: this.#queue.count('message'), text: this.#queue.count('text'), progress: this.#queue.count('progress'), notification: this.#queue.count('notification') };
  }

  history(): HistoryEntry[] {
    return this.#history.slice(-this.#historySize).reverse();
  }

  /**
   * Accept a speech request. Resolves at once with the acceptance (queued,
   * deduped or dropped); `settled` resolves with the final outcome.
   */
  async speak(input: SpeakInput): Promise<{ response: SpeakResponse; settled: Promise<SpeakResponse> }> {
    this.#assertOpen();
    const sink = await this.#audible();
    const turn = this.#admissions.then(async () => {
      const engine = await this.#synth.resolve(input.engine, input.voice);
      // An unknown voice is the caller's mistake: refused now (400, as /v1/synthesize does), not failed at play time.
      // The engine's own lookup, asked once per voice; an engine that cannot tell (or fails to answer) lets it through.
      if (input.voice && engine.knowsVoice && !(await engine.knowsVoice(input.voice).catch(() => true))) {
        throw new VoxError('VOX_ERR_VOICE_UNKNOWN', JSON.stringify(input.voice), engine.name);
      }
      const prepared = await this.#prepare(input.text, { keepTags: engine.understandsTags(input.model), ...(input.maxChars ? { maxChars: input.maxChars } : {}) });
      return { engine, prepared };
    });
    this.#admissions = turn.catch(() => undefined);
    const { engine, prepared } = await turn;
    this.#assertOpen();
    const windowMs = (input.once ?? DEFAULT_DEDUP_SECONDS) * 1000;
    // A sentence of punctuation alone ("...", "!!!") is no speech: the engine
    // renders it as a few ms of near-silence. A text of nothing else is dropped
    // with a reason (#play), and is nobody's duplicate: its key would be empty,
    // shared by every such text.
    const sentences = prepared.sentences.filter((t) => !UNSPEAKABLE.test(t));
    const key = dedupKeyFor(input.text, input.dedupKey);
    const admitted = this.#admit({
      kind: 'speech',
      text: prepared.text,
      sentences,
      priority: input.priority ?? 'message',
      dedupKey: sentences.length > 0 && key !== '' ? storedKey(key) : `unspeakable:${randomUUID()}`,
      windowMs,
      engine: engine.name,
      ...pick(input, ['voice', 'rate', 'volume', 'model', 'apiKey', 'session', 'final', 'maxAgeMs', 'requestId']),
    }, sink);
    // "queued" is said only once the request is on disk: a crash after this replays it.
    await admitted.durable;
    return admitted;
  }

  /** Accept a chime. Each signal has a fixed 5 s duplicate window. */
  async chime(signal: ChimeSignal, options: { session?: string; priority?: Priority; volume?: number } = {}): Promise<{ response: SpeakResponse; settled: Promise<SpeakResponse> }> {
    this.#assertOpen();
    const sink = await this.#audible();
    const admitted = this.#admit({
      kind: 'chime',
      signal,
      text: `(${signal} chime)`,
      sentences: [],
      priority: options.priority ?? 'message',
      dedupKey: `chime:${signal}`,
      windowMs: CHIME_DEDUP_SECONDS * 1000,
      ...(options.session ? { session: options.session } : {}),
      ...(options.volume !== undefined ? { volume: options.volume } : {}),
    }, sink);
    await admitted.durable;
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
    this.#checking ??= this.#sink.check().finally(() => (this.#checking = undefined));
    const health = sinkHealth(await this.#checking);
    if (!health.ok) {
      this.#log?.warn({ sink: health }, 'request refused: no audio output');
      const err = wireError('VOX_ERR_AUDIO_UNAVAILABLE', health.reason ?? 'the audio output failed', health.fix ?? NO_OUTPUT_FIX);
      throw Object.assign(new Error(err.message), { code: err.code, statusCode: err.statusCode });
    }
    return health;
  }

  #admit(
    spec: Pick<Utterance, 'kind' | 'text' | 'sentences' | 'priority' | 'dedupKey' | 'windowMs'> &
      Partial<Pick<Utterance, 'voice' | 'rate' | 'volume' | 'model' | 'apiKey' | 'session' | 'final' | 'engine' | 'signal' | 'requestId'>> & { maxAgeMs?: number },
    sink: SinkHealth,
  ): { response: SpeakResponse; settled: Promise<SpeakResponse>; durable?: Promise<void> } {
    if (spec.requestId) {
      const joined = this.#join(spec.requestId, spec.dedupKey, spec.apiKey, sink);
      if (joined) return joined;
    }
    const now = this.#clock();
    const id = randomUUID().slice(0, 8);
    const entry: HistoryEntry = {
      id,
      text: spec.text,
      priority: spec.priority,
      kind: spec.kind,
      outcome: 'queued',
      acceptedAt: new Date(now).toISOString(),
      ...pick(spec, ['voice', 'rate', 'session', 'engine']),
    };

    const hit = this.#dedup.check(spec.dedupKey, spec.windowMs);
    if (hit) {
      const original = this.#byId.get(hit.original.id);
      const originalStatus = hit.original.state === 'played' ? (hit.original.outcome ?? 'played') : original?.started ? 'playing' : 'queued';
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
      this.#record(entry);
      this.counters.deduped += 1;
      this.#emit('deduped', { id, priority: spec.priority, ...(spec.session ? { session: spec.session } : {}), originalId: hit.original.id });
      // A waiting duplicate learns how the original ended (or, at a shutdown, that it was handed over).
      const settled = original && !original.settled ? this.#outcomeOf(original).then((r) => (handedOver(r) ? r : ({ ...response, status: r.status === 'played' ? 'deduped' : r.status, ...(r.reason ? { reason: r.reason } : {}) } as SpeakResponse))) : Promise.resolve(response);
      return { response, settled };
    }

    if (this.#queue.length >= this.#maxQueue) {
      const err = wireError('VOX_ERR_QUEUE_FULL', this.#maxQueue);
      throw Object.assign(new Error(err.message), { code: err.code, statusCode: err.statusCode });
    }

    const maxAgeMs = spec.maxAgeMs ?? (spec.priority === 'notification' ? NOTIFICATION_MAX_AGE_MS : undefined);
    const u: Utterance = {
      ...spec,
      id,
      current: 0,
      acceptedAt: now,
      acceptedPerf: performance.now(),
      entry,
      started: false,
      settled: false,
      waiters: [],
      ...(maxAgeMs !== undefined ? { expiresAt: now + maxAgeMs } : {}),
    };
    this.counters.accepted += 1;
    this.#record(entry);
    this.#byId.set(id, u);

    const admission = this.#queue.admit(u, this.#playing);
    if (!admission.admitted) {
      this.#emit('queued', this.#eventBase(u));
      this.#settle(u, 'dropped', admission.reason);
      return { response: { id, status: 'dropped', text: u.text, reason: admission.reason!, sink }, settled: this.#outcomeOf(u) };
    }
    this.#dedup.begin(u.dedupKey, id, u.windowMs);
    if (u.requestId) this.#byRequest.set(u.requestId, u);
    const durable = this.#journal ? this.#journalAccept(u) : undefined;
    this.#emit('queued', this.#eventBase(u));
    for (const r of admission.removed) this.#settle(r.item, r.outcome, r.reason);
    if (admission.playing !== 'continue' && this.#playing) {
      this.#abortPlaying(admission.playing, `${admission.playing === 'interrupt-resume' ? 'paused' : 'interrupted'} for ${u.priority} speech`);
    }
    if (maxAgeMs !== undefined) {
      u.expiryTimer = setTimeout(() => this.#expire(u), maxAgeMs + 1);
      u.expiryTimer.unref();
    }
    this.#kick();
    return { response: { id, status: 'queued', text: u.text, sink }, settled: this.#outcomeOf(u), ...(durable ? { durable } : {}) };
  }

  /**
   * A re-send of a request voxd has (by the caller's request id, with the
   * same duplicate key): the answer is that request's, in flight or final.
   * A replayed request gets back the API key the journal did not keep.
   */
  #join(requestId: string, dedupKey: string, apiKey: string | undefined, sink: SinkHealth): { response: SpeakResponse; settled: Promise<SpeakResponse> } | undefined {
    const live = this.#byRequest.get(requestId);
    if (live && !live.settled && live.dedupKey === dedupKey) {
      if (apiKey && !live.apiKey) live.apiKey = apiKey;
      this.#log?.info({ id: live.id, session: live.session, requestId }, 'a re-sent request joined the one in flight');
      return { response: { id: live.id, status: 'queued', text: live.text, sink }, settled: this.#outcomeOf(live) };
    }
    const done = this.#recent.get(requestId);
    if (done && done.dedupKey === dedupKey) {
      this.#log?.info({ id: done.result.id, requestId, outcome: done.result.status }, 'a re-sent request got the outcome of the one it repeats');
      return { response: done.result, settled: Promise.resolve(done.result) };
    }
    return undefined;
  }

  #journalAccept(u: Utterance): Promise<void> {
    u.journaled = true;
    return this.#journal!.accept(journalEntry(u));
  }

  /**
   * Replay what the journal held when voxd started: settled requests seed the
   * request-id joins and the duplicate windows; unsettled ones are queued again
   * in their order, with their priorities and sessions (one that had started
   * goes first in its class and resumes at its sentence), unless they expired
   * meanwhile (maxAgeMs from the original accept, or REPLAY_MAX_AGE_MS): those
   * are settled as `expired`. Call once, before serving.
   */
  restore(replay: Replay): { replayed: number; resumed: number; expired: number } {
    const now = this.#clock();
    for (const s of replay.settled) {
      if (s.requestId) this.#remember(s.requestId, s.dedupKey, { id: s.id, status: s.outcome, ...(s.reason ? { reason: s.reason } : {}), ...(s.code ? { error: wireError(s.code, s.reason ?? s.outcome) } : {}) });
      if (s.outcome === 'played' || s.outcome === 'stopped') this.#dedup.restore(s.dedupKey, s.id, s.windowMs, s.at, s.outcome);
    }
    const counts = { replayed: 0, resumed: 0, expired: 0 };
    const fronts: Utterance[] = [];
    for (const p of replay.pending) {
      const entry: HistoryEntry = {
        id: p.id,
        text: p.text,
        priority: p.priority,
        kind: p.kind,
        outcome: 'queued',
        acceptedAt: new Date(p.acceptedAt).toISOString(),
        ...pick(p, ['voice', 'rate', 'session', 'engine']),
      };
      const u: Utterance = {
        ...pick(p, ['requestId', 'session', 'final', 'voice', 'rate', 'volume', 'engine', 'model', 'signal', 'expiresAt']),
        id: p.id,
        kind: p.kind,
        priority: p.priority,
        text: p.text,
        sentences: p.sentences,
        current: p.sentence ?? 0,
        dedupKey: p.dedupKey,
        windowMs: p.windowMs,
        acceptedAt: p.acceptedAt,
        acceptedPerf: performance.now(),
        entry,
        started: p.sentence !== undefined,
        restored: true,
        journaled: true,
        settled: false,
        waiters: [],
      };
      this.counters.accepted += 1;
      this.#record(entry);
      this.#byId.set(u.id, u);
      if (!u.started && u.expiresAt !== undefined && now > u.expiresAt) {
        this.#settle(u, 'expired', 'not started within maxAgeMs (voxd restarted meanwhile)');
        counts.expired += 1;
        continue;
      }
      if (now - p.acceptedAt > REPLAY_MAX_AGE_MS) {
        this.#settle(u, 'expired', `accepted ${Math.round((now - p.acceptedAt) / 60_000)} min before voxd restarted: too old to speak now`);
        counts.expired += 1;
        continue;
      }
      this.#dedup.begin(u.dedupKey, u.id, u.windowMs);
      if (u.requestId) this.#byRequest.set(u.requestId, u);
      if (u.started) fronts.push(u);
      else this.#queue.restore(u, false);
      if (u.expiresAt !== undefined && !u.started) {
        u.expiryTimer = setTimeout(() => this.#expire(u), Math.max(0, u.expiresAt - now) + 1);
        u.expiryTimer.unref();
      }
      counts.replayed += 1;
      if (u.started) counts.resumed += 1;
      this.#emit('queued', { ...this.#eventBase(u), reason: u.started ? `replayed after voxd restarted; resumes at sentence ${u.current + 1} of ${Math.max(1, u.sentences.length)}` : 'replayed after voxd restarted' });
    }
    // Started ones go to the front of their class, in their accept order.
    for (const u of fronts.reverse()) this.#queue.restore(u, true);
    if (counts.replayed || counts.expired) this.#log?.info(counts, 'replayed the journal');
    this.#kick();
    return counts;
  }

  #remember(requestId: string, dedupKey: string, result: SpeakResponse): void {
    this.#recent.delete(requestId);
    this.#recent.set(requestId, { dedupKey, result });
    if (this.#recent.size > RECENT_REQUESTS) this.#recent.delete(this.#recent.keys().next().value!);
  }

  /**
   * Stop speech in a scope. Resolves with the ids that were stopped once the
   * audio of the one that was playing has really ended (the sink returned).
   */
  async stop(scope: StopScope = 'all', target?: { session?: string; id?: string }): Promise<string[]> {
    const stopped: string[] = [];
    const match = (u: Utterance): boolean => {
      switch (scope) {
        case 'all':
          return true;
        case 'current':
          return false;
        case 'session':
          return u.session === target?.session;
        case 'id':
          return u.id === target?.id;
      }
    };
    // The audio is cut first: settling a deep queue takes a while, and the user asked for silence.
    // The queue is emptied before anything is awaited, so nothing of it starts meanwhile.
    const p = this.#playing;
    const cut = p && (scope === 'current' || match(p)) ? p : undefined;
    if (cut) {
      stopped.push(cut.id);
      this.#abortPlaying('stopped', `stopped (${scope})`);
    }
    const removed = scope === 'current' ? [] : this.#queue.removeWhere(match);
    for (const u of removed) stopped.push(u.id);
    this.#settleLater(removed, 'stopped', `stopped (${scope})`);
    if (cut) await cut.ended;
    return stopped;
  }

  /**
   * Settles `items` (already out of the queue) in batches, yielding between
   * them: 10,000 stopped requests take a while to report, and the sink must
   * get its turn to go silent first. Every one is still reported.
   */
  #settleLater(items: Utterance[], outcome: Outcome, reason: string): void {
    const BATCH = 256;
    const step = (from: number) => {
      for (const u of items.slice(from, from + BATCH)) this.#settle(u, outcome, reason);
      if (from + BATCH < items.length) setImmediate(step, from + BATCH);
    };
    if (items.length <= BATCH) step(0);
    else setImmediate(step, 0);
  }

  /**
   * Hold the player for a listen (listener.ts): nothing queued starts until
   * `release()`, or until `limitMs` after the hold took effect, whichever is
   * first, so no request (an `important` one included) waits longer than the
   * listen's maximum. `ready` resolves once nothing plays: at the end of the
   * current utterance, or at once when `interrupt` cuts it (it settles
   * `interrupted`). Speech that arrives meanwhile queues by the usual rules.
   */
  hold(options: { interrupt?: boolean; limitMs: number; reason: string }): { ready: Promise<void>; release(): void } {
    if (this.#hold) throw new Error('the player is held already');
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let timer: NodeJS.Timeout | undefined;
    const hold = {
      gate,
      open: () => {
        clearTimeout(timer);
        if (this.#hold === hold) this.#hold = undefined;
        open();
      },
    };
    this.#hold = hold;
    const p = this.#playing;
    if (p && options.interrupt) this.#abortPlaying('interrupt-drop', `cut by ${options.reason}`);
    const ready = (p?.ended ?? Promise.resolve()).then(() => {
      timer = setTimeout(hold.open, options.limitMs);
      timer.unref();
    });
    return { ready, release: hold.open };
  }

  /** Resolves when the queue is empty and nothing plays. */
  idle(): Promise<void> {
    return this.#idle;
  }

  /**
   * Stop accepting; let the current utterance finish for up to `graceMs`, then
   * cut it. With a journal, what was cut or still queued is handed over to the
   * next voxd; without one, it is reported failed.
   */
  async close(graceMs = 1500): Promise<void> {
    if (this.#closing) return this.#idle;
    this.#closing = true;
    this.#hold?.open();
    for (const u of this.#queue.removeWhere(() => true)) {
      if (this.#journal) this.#handOver(u);
      else this.#settle(u, 'failed', 'voxd shut down before it was spoken', 'VOX_ERR_SHUTTING_DOWN');
    }
    if (this.#playing) {
      const timer = setTimeout(() => this.#abortPlaying('shutdown', 'voxd shut down'), graceMs);
      await this.#idle;
      clearTimeout(timer);
    }
  }

  #assertOpen(): void {
    if (this.#closing) {
      const err = wireError('VOX_ERR_SHUTTING_DOWN');
      throw Object.assign(new Error(err.message), { code: err.code, statusCode: err.statusCode });
    }
  }

  #abortPlaying(reason: AbortReason, detail: string): void {
    const p = this.#playing;
    if (!p?.abort) return;
    if (p.abort.signal.aborted) {
      // Already cut, and not yet settled or requeued. A stop (or shutdown) that
      // lands in that gap overrides a pending pause: the user wants silence, not
      // a resume. A second interruption changes nothing.
      if ((reason === 'stopped' || reason === 'shutdown') && p.abortReason !== 'stopped' && p.abortReason !== 'shutdown') {
        p.abortReason = reason;
        p.abortDetail = detail;
      }
      return;
    }
    p.abortReason = reason;
    p.abortDetail = detail;
    p.abort.abort();
  }

  #expire(u: Utterance): void {
    if (u.started || u.settled) return;
    if (this.#queue.remove(u)) this.#settle(u, 'expired', 'not started within maxAgeMs');
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = true;
    let done!: () => void;
    this.#idle = new Promise((r) => (done = r));
    void (async () => {
      try {
        for (;;) {
          // A listen holds the player (hold()): queued speech waits for it.
          if (this.#hold) await this.#hold.gate;
          const u = this.#queue.shift();
          if (!u) break;
          if (u.expiresAt !== undefined && !u.started && this.#clock() > u.expiresAt) {
            this.#settle(u, 'expired', 'not started within maxAgeMs');
            continue;
          }
          await this.#play(u);
        }
      } catch (err) {
        this.#log?.error({ err }, 'player loop failed');
      } finally {
        this.#running = false;
        done();
      }
    })();
  }

  async #play(u: Utterance): Promise<void> {
    if (u.kind === 'speech' && u.sentences.length === 0) {
      // Only code, emoji or markup: reported, and the sink is never touched.
      this.#settle(u, 'dropped', 'nothing left to say after cleanup (the text was only code, emoji, markup or punctuation)');
      return;
    }
    const abort = new AbortController();
    u.abort = abort;
    u.abortReason = undefined;
    let ended!: () => void;
    u.ended = new Promise((r) => (ended = r));
    this.#playing = u;
    if (!u.started) {
      u.started = true;
      if (u.expiryTimer) clearTimeout(u.expiryTimer);
      u.entry.outcome = 'playing';
      u.entry.startedAt = new Date(this.#clock()).toISOString();
      this.#emit('started', this.#eventBase(u));
    } else {
      // Resuming after an interruption (or a restart): watchers see it start again, and where.
      const where = u.kind === 'chime' ? 'resumed' : `resumed from sentence ${u.current + 1} of ${u.sentences.length}`;
      if (u.restored) {
        u.entry.outcome = 'playing';
        u.entry.startedAt ??= new Date(this.#clock()).toISOString();
      }
      this.#emit('started', { ...this.#eventBase(u), reason: u.restored ? `${where} after voxd restarted` : where });
    }
    if (u.restored) {
      u.restored = false;
      if (u.expiryTimer) clearTimeout(u.expiryTimer);
      if (u.entry.outcome !== 'playing') {
        u.entry.outcome = 'playing';
        u.entry.startedAt = new Date(this.#clock()).toISOString();
      }
    }
    try {
      const { format, chunks } = u.kind === 'chime' ? chimeAudio(u) : await this.#speechAudio(u, abort.signal);
      // Cut before any audio was ready: nothing reaches the sink (no empty WAV, no click).
      if (abort.signal.aborted) {
        this.#afterAbort(u);
        return;
      }
      const watchdog = new PlaybackWatchdog(format, this.#playbackGraceMs, () => {
        const audio = (watchdog.audioMs / 1000).toFixed(1);
        const limit = (watchdog.limitMs / 1000).toFixed(1);
        this.#abortPlaying('watchdog', `the player ${this.#sink.state().name} had not finished ${audio} s of audio after ${limit} s (the playback timeout), so it was killed`);
      });
      let result;
      try {
        result = await this.#sink.play(format, watchdog.watch(chunks), abort.signal, { id: u.id });
      } finally {
        watchdog.done();
      }
      if (result.firstAudioAt !== undefined && u.entry.firstAudioMs === undefined) {
        u.entry.firstAudioMs = Math.round((result.firstAudioAt - u.acceptedPerf) * 10) / 10;
      }
      if (abort.signal.aborted) this.#afterAbort(u);
      else if (result.bytes === 0 && u.kind === 'speech') this.#settle(u, 'failed', `the ${u.entry.engine ?? 'speech'} engine produced no audio`, 'VOX_ERR_SYNTHESIS_FAILED');
      else this.#settle(u, 'played');
    } catch (err) {
      if (abort.signal.aborted) {
        this.#afterAbort(u);
      } else {
        const e = err as Error & { code?: string };
        const code: WireErrorCode = e.code === 'VOX_ERR_SYNTHESIS_FAILED' ? 'VOX_ERR_SYNTHESIS_FAILED' : 'VOX_ERR_PLAYBACK_FAILED';
        this.#log?.warn({ id: u.id, session: u.session, err: e.message }, 'utterance failed');
        this.#settle(u, 'failed', e.message, code);
      }
    } finally {
      this.#playing = null;
      ended();
    }
  }

  #afterAbort(u: Utterance): void {
    switch (u.abortReason) {
      case 'interrupt-resume': {
        const newer = this.#queue.requeue(u);
        if (newer) {
          this.#settle(u, 'replaced', `${u.abortDetail}; replaced by newer ${u.priority} ${newer.id} from the same session`);
          return;
        }
        this.#emit('interrupted', { ...this.#eventBase(u), reason: `${u.abortDetail}; will resume` });
        return;
      }
      case 'interrupt-drop':
        this.#settle(u, 'interrupted', u.abortDetail);
        return;
      case 'shutdown':
        if (this.#journal) this.#handOver(u);
        else this.#settle(u, 'failed', 'voxd shut down while speaking', 'VOX_ERR_SHUTTING_DOWN');
        return;
      case 'watchdog':
        this.#log?.warn({ id: u.id, session: u.session, reason: u.abortDetail }, 'playback timed out');
        this.#settle(u, 'failed', u.abortDetail, 'VOX_ERR_PLAYBACK_TIMEOUT');
        return;
      default:
        this.#settle(u, 'stopped', u.abortDetail ?? 'stopped');
    }
  }

  /** One stream for the whole utterance: sentence i+1 is synthesized while i plays. */
  /**
   * One stream for the whole utterance: sentence i+1 is synthesized while i plays.
   * A watchdog fails the utterance when the engine yields nothing for
   * synthesisTimeoutMs (a hung engine must not stall the queue for everyone).
   */
  async #speechAudio(u: Utterance, signal: AbortSignal): Promise<{ format: AudioFormat; chunks: AsyncIterable<Buffer> }> {
    const watchdog = new AbortController();
    const synthSignal = AbortSignal.any([signal, watchdog.signal]);
    const timeoutMs = this.#synthesisTimeoutMs;
    const stalled = () =>
      Object.assign(new Error(`the ${u.engine ?? 'speech'} engine produced no audio for ${Math.round(timeoutMs / 1000)} s`), { code: 'VOX_ERR_SYNTHESIS_FAILED' });
    let timer: NodeJS.Timeout | undefined;
    let onStall: ((err: Error) => void) | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        watchdog.abort();
        onStall?.(stalled());
      }, timeoutMs);
    };
    const disarm = () => clearTimeout(timer);
    signal.addEventListener('abort', disarm, { once: true });
    // Rejects when the watchdog fires, so a hung first chunk does not hang the player.
    const stall = new Promise<never>((_, reject) => (onStall = reject));
    stall.catch(() => {});
    const stopped = new Promise<typeof STOPPED>((resolve) => {
      if (signal.aborted) resolve(STOPPED);
      else signal.addEventListener('abort', () => resolve(STOPPED), { once: true });
    });
    const start = (i: number) =>
      Promise.race([
        this.#synth.synthesize({
          text: u.sentences[i]!,
          engine: u.engine!,
          ...pick(u, ['voice', 'rate', 'model', 'apiKey']),
          signal: synthSignal,
          leading: i === first,
        }),
        stall,
      ]).catch((err: Error & { code?: string }) => {
        throw Object.assign(new Error(err.message), { code: 'VOX_ERR_SYNTHESIS_FAILED' });
      });
    const first = u.current;
    arm();
    let pending = start(first);
    let head: Awaited<ReturnType<Synthesizer['synthesize']>>;
    try {
      head = await pending;
    } catch (err) {
      disarm();
      throw err;
    }
    this.#noteEngine(u, head);
    const format = head.synthesis.format;
    const gain = u.volume ?? 1;
    const self = this;
    async function* chunks(): AsyncGenerator<Buffer> {
      let cur = head;
      try {
        for (let i = first; i < u.sentences.length; i++) {
          u.current = i;
          // One small write per sentence, no sync: where a restart resumes.
          if (u.journaled) self.#journal!.progress(u.id, i);
          if (i > first) {
            const r = await Promise.race([pending, stopped]);
            if (r === STOPPED) return;
            cur = r;
          }
          if (i + 1 < u.sentences.length) {
            pending = start(i + 1);
            pending.catch(() => {}); // surfaced when awaited
          }
          if (i > first) self.#noteEngine(u, cur);
          // Each chunk races the watchdog and a stop, so an engine that ignores its
          // abort signal can neither stall the queue nor delay a stop.
          const it = cur.synthesis.chunks[Symbol.asyncIterator]();
          for (;;) {
            const next = await Promise.race([it.next(), stall, stopped]);
            if (next === STOPPED || signal.aborted) {
              void it.return?.();
              return;
            }
            if (next.done) break;
            const chunk = next.value;
            arm();
            const c = cur.synthesis.format.sampleRate === format.sampleRate ? chunk : resample(chunk, cur.synthesis.format.sampleRate, format.sampleRate);
            yield gain < 1 ? applyGain(Buffer.from(c), gain) : c;
          }
          if (watchdog.signal.aborted && !signal.aborted) throw stalled();
        }
      } finally {
        disarm();
      }
    }
    return { format, chunks: chunks() };
  }

  #noteEngine(u: Utterance, r: { engine: string; fallbackReason?: string }): void {
    u.entry.engine = r.engine;
    if (r.fallbackReason) u.entry.fallbackReason = r.fallbackReason;
  }

  /**
   * Shutting down with a journal: the request stays in it unsettled (with
   * its sentence) for the next voxd, and callers that wait are told to
   * re-send (the route drops their connection).
   */
  #handOver(u: Utterance): void {
    if (u.settled) return;
    u.settled = true;
    if (u.expiryTimer) clearTimeout(u.expiryTimer);
    const result = { id: u.id, status: 'queued', text: u.text, [HANDED_OVER]: true } as SpeakResponse;
    for (const w of u.waiters.splice(0)) w(result);
    this.#byId.delete(u.id);
    if (u.requestId) this.#byRequest.delete(u.requestId);
    this.#log?.info({ id: u.id, session: u.session, priority: u.priority, sentence: u.current }, 'utterance handed over to the next voxd (journal)');
  }

  #settle(u: Utterance, outcome: Outcome, reason?: string, code?: WireErrorCode): void {
    if (u.settled) return;
    u.settled = true;
    if (u.journaled) this.#journal!.settle({ id: u.id, ...(u.requestId ? { requestId: u.requestId } : {}), dedupKey: u.dedupKey, windowMs: u.windowMs, outcome, ...(reason ? { reason } : {}), ...(code ? { code } : {}) });
    if (u.expiryTimer) clearTimeout(u.expiryTimer);
    u.entry.outcome = outcome;
    u.entry.finishedAt = new Date(this.#clock()).toISOString();
    if (reason) u.entry.reason = reason;
    // A stop starts the window too: what the user silenced is not repeated at once.
    if (outcome === 'played' || outcome === 'stopped') this.#dedup.played(u.dedupKey, u.id, outcome);
    else this.#dedup.forget(u.dedupKey, u.id);
    const event: Record<Outcome, EventType | undefined> = {
      played: 'finished',
      failed: 'failed',
      expired: 'expired',
      interrupted: 'interrupted',
      stopped: 'interrupted',
      replaced: 'replaced',
      dropped: 'dropped',
      queued: undefined,
      playing: undefined,
      deduped: undefined,
    };
    switch (outcome) {
      case 'played':
        this.counters.played += 1;
        break;
      case 'failed':
        this.counters.failed += 1;
        break;
      case 'expired':
        this.counters.expired += 1;
        break;
      case 'interrupted':
      case 'stopped':
        this.counters.interrupted += 1;
        break;
      case 'replaced':
      case 'dropped':
        this.counters.dropped += 1;
        break;
    }
    const type = event[outcome];
    if (type) this.#emit(type, { ...this.#eventBase(u), ...(reason ? { reason } : {}) });
    const result: SpeakResponse = {
      id: u.id,
      status: outcome,
      text: u.text,
      ...(u.entry.engine ? { engine: u.entry.engine } : {}),
      ...(u.entry.fallbackReason ? { fallbackReason: u.entry.fallbackReason } : {}),
      ...(reason ? { reason } : {}),
      ...(code ? { error: wireError(code, reason ?? outcome) } : {}),
      sink: sinkHealth(this.#sink.state()),
    };
    u.result = result;
    for (const w of u.waiters.splice(0)) w(result);
    this.#byId.delete(u.id);
    if (u.requestId) {
      if (this.#byRequest.get(u.requestId) === u) this.#byRequest.delete(u.requestId);
      this.#remember(u.requestId, u.dedupKey, result);
    }
    this.#log?.info({ id: u.id, session: u.session, priority: u.priority, outcome, reason, engine: u.entry.engine }, 'utterance settled');
  }

  #outcomeOf(u: Utterance): Promise<SpeakResponse> {
    if (u.result) return Promise.resolve(u.result);
    return new Promise((resolve) => u.waiters.push(resolve));
  }

  #record(entry: HistoryEntry): void {
    this.#history.push(entry);
    // Trimmed in bulk, so each entry costs O(1).
    if (this.#history.length >= this.#historySize * 2) this.#history.splice(0, this.#history.length - this.#historySize);
  }

  #eventBase(u: Utterance): Omit<VoxEvent, 'type' | 'at'> {
    return { id: u.id, priority: u.priority, ...(u.session ? { session: u.session } : {}) };
  }

  #emit(type: EventType, data: Omit<VoxEvent, 'type' | 'at'>): void {
    this.emit('event', { type, ...data, at: new Date(this.#clock()).toISOString() });
  }
}

const STOPPED = Symbol('stopped');
/** Nothing but punctuation and spaces. */
const UNSPEAKABLE = /^[\p{P}\s]*$/u;

/** The sink's state as the wire carries it in speak responses. */
function sinkHealth(s: SinkState): SinkHealth {
  return { name: s.name, ok: s.ok, ...(s.ok ? {} : { reason: s.lastError ?? s.detail ?? 'the audio output failed', fix: s.fix ?? NO_OUTPUT_FIX }) };
}

function chimeAudio(u: Utterance): { format: AudioFormat; chunks: AsyncIterable<Buffer> } {
  const pcm = chimePcm(u.signal!, u.volume ?? 0.5);
  return {
    format: CHIME_FORMAT,
    chunks: (async function* () {
      yield pcm;
    })(),
  };
}

/** What the journal keeps of an utterance (never its API key). */
function journalEntry(u: Utterance): JournalEntry {
  return {
    id: u.id,
    ...pick(u, ['requestId', 'session', 'final', 'voice', 'rate', 'volume', 'engine', 'model', 'signal', 'expiresAt']),
    kind: u.kind,
    priority: u.priority,
    text: u.text,
    sentences: u.sentences,
    dedupKey: u.dedupKey,
    windowMs: u.windowMs,
    acceptedAt: u.acceptedAt,
    ...(u.apiKey ? { hadApiKey: true } : {}),
  };
}

function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
