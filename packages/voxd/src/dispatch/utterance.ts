/**
 * An utterance: one accepted request (speech or a chime) on its way through
 * the dispatcher, from admission to its one outcome. Its request fields are
 * the journal's (journal-records.ts, itself derived from the wire's
 * SpeakRequest), plus the caller's API key, which the journal never keeps.
 *
 * Its life is this class's: the other modules read its state and move it on
 * with the transitions below, never by writing a field, so what each step
 * changes besides (the history entry, the expiry timer, the callers that
 * wait) is said once, here:
 * - queued: `accepted` (admission) or `replayed` (the journal, replay.ts);
 *   `expireAfter` arms its maxAgeMs;
 * - playing, one pass through the sink at a time (player.ts): `beginPass`,
 *   then `start` (started, resumed after a pause, or after a restart),
 *   `reach` for each sentence, `useEngine` and `spokenBy` (speech-stream.ts),
 *   `heard` at its first audio; `cut` ends the pass early, for a reason that
 *   says what follows: paused (queued again to resume), or an outcome;
 * - parked: a narration that played all it has waits out of the queue for
 *   its next batch (`park`, `unpark`), and `grow` adds that batch;
 * - settled in one outcome (`settle`, then `answer` tells the callers that
 *   wait, ledger.ts), or handed over to the next voxd at a shutdown
 *   (`handOver`).
 * What is recorded in the journal of these steps is utterance-journal.ts's.
 *
 * A class with private state rather than a record: a record written from
 * eight modules left no place that said which states exist and what moves
 * between them. The request fields are plain readonly properties (declared by
 * the interface merged below), so reading one costs what it did.
 */
import type { HistoryEntry, SpeakRequest, SpeakResponse, VoxEvent } from '@vox/protocol';
import type { Engine } from '../engines/engine.js';
import type { JournalEntry, NarrationMark, PendingRecord } from './journal-records.js';

/** Why the playing utterance was cut: what becomes of it next (player.ts). */
export type AbortReason = 'stopped' | 'interrupt-resume' | 'interrupt-drop' | 'shutdown' | 'watchdog';

/** What an utterance is accepted with: the journal's request fields, the caller's API key, the engine chosen. */
export type UtteranceFields = Omit<JournalEntry, 'hadApiKey'> &
  Pick<SpeakRequest, 'apiKey'> & {
    /** The engine chosen at admission; one replayed from the journal has only its name (`engine`) until it plays. */
    resolved?: Engine;
  };

/** The fields that never change once accepted. */
type Fixed = Omit<UtteranceFields, 'text' | 'sentences' | 'narration' | 'apiKey' | 'resolved'>;

/** How a pass began (start()): the first time, again after a pause, or again after voxd restarted. */
export type Start = 'first' | 'resumed' | 'restored';

// The fixed request fields, as readonly properties set once by the constructor.
export interface Utterance extends Readonly<Fixed> {}

export class Utterance {
  /** performance.now() at the accept: first audio is measured from it. */
  readonly acceptedPerf: number;
  /** Its history entry (the ledger's history holds the same object). */
  readonly #entry: HistoryEntry;
  #text: string;
  #sentences: string[];
  #narration: NarrationMark | undefined;
  #apiKey: string | undefined;
  #resolved: Engine | undefined;
  #current: number;
  #started: boolean;
  #restored: boolean;
  #parked = false;
  #expiryTimer: NodeJS.Timeout | undefined;
  #abort: AbortController | undefined;
  #abortReason: AbortReason | undefined;
  #abortDetail: string | undefined;
  #ended: Promise<void> | undefined;
  #turnMs = 0;
  #settled = false;
  #waiters: Array<(r: SpeakResponse) => void> = [];
  #result: SpeakResponse | undefined;

  private constructor(
    fields: UtteranceFields,
    state: { entry: HistoryEntry; current: number; started: boolean; restored: boolean },
  ) {
    const { text, sentences, narration, apiKey, resolved, ...fixed } = fields;
    Object.assign(this, fixed);
    this.acceptedPerf = performance.now();
    this.#entry = state.entry;
    this.#text = text;
    this.#sentences = sentences;
    this.#narration = narration;
    this.#apiKey = apiKey;
    this.#resolved = resolved;
    this.#current = state.current;
    this.#started = state.started;
    this.#restored = state.restored;
  }

  /** A request just admitted, with its history entry. */
  static accepted(fields: UtteranceFields, entry: HistoryEntry): Utterance {
    return new Utterance(fields, { entry, current: 0, started: false, restored: false });
  }

  /** A request the journal held unsettled when voxd started: one that had started resumes at its sentence. */
  static replayed(p: PendingRecord): Utterance {
    const fields: UtteranceFields = {
      ...pick(p, KEPT),
      id: p.id,
      kind: p.kind,
      priority: p.priority,
      text: p.text,
      sentences: p.sentences,
      dedupKey: p.dedupKey,
      windowMs: p.windowMs,
      acceptedAt: p.acceptedAt,
    };
    const entry = historyEntry(fields, p.acceptedAt);
    return new Utterance(fields, {
      entry,
      current: p.sentence ?? 0,
      started: p.sentence !== undefined,
      restored: true,
    });
  }

  get entry(): Readonly<HistoryEntry> {
    return this.#entry;
  }
  get text(): string {
    return this.#text;
  }
  get sentences(): readonly string[] {
    return this.#sentences;
  }
  /** A narrated message (narration.ts): its last batch and where its text stands. */
  get narration(): NarrationMark | undefined {
    return this.#narration;
  }
  get apiKey(): string | undefined {
    return this.#apiKey;
  }
  get resolved(): Engine | undefined {
    return this.#resolved;
  }
  /** Index of the sentence being played (where a resume starts); a narration's next one once a pass ends. */
  get current(): number {
    return this.#current;
  }
  /** It has started playing (here, or before voxd restarted). */
  get started(): boolean {
    return this.#started;
  }
  /** A narration that has played what it has so far, out of the queue until its next batch. */
  get parked(): boolean {
    return this.#parked;
  }
  /** Why the current pass was cut, if it was. */
  get abortReason(): AbortReason | undefined {
    return this.#abortReason;
  }
  get abortDetail(): string | undefined {
    return this.#abortDetail;
  }
  /** Resolves when the current pass through the sink has ended (its play() returned). */
  get ended(): Promise<void> | undefined {
    return this.#ended;
  }
  get settled(): boolean {
    return this.#settled;
  }
  get result(): SpeakResponse | undefined {
    return this.#result;
  }

  /** A re-send brought the API key that the journal did not keep. */
  takeApiKey(apiKey: string | undefined): void {
    if (apiKey && !this.#apiKey) this.#apiKey = apiKey;
  }

  /** Call `onExpire` after `delayMs` unless it has started or settled by then. */
  expireAfter(delayMs: number, onExpire: () => void): void {
    this.#expiryTimer = setTimeout(() => {
      if (this.#started || this.#settled) return;
      onExpire();
    }, delayMs);
    this.#expiryTimer.unref();
  }

  /** A pass through the sink begins: its signal is aborted by cut(); `end()` once the sink returned. */
  beginPass(): { signal: AbortSignal; end(): void } {
    const abort = new AbortController();
    this.#abort = abort;
    this.#abortReason = undefined;
    let end!: () => void;
    this.#ended = new Promise((r) => (end = r));
    return { signal: abort.signal, end };
  }

  /** It plays: the first time, or again (after a pause, or a restart); the history says it plays. */
  start(clock: () => number): Start {
    const how: Start = !this.#started ? 'first' : this.#restored ? 'restored' : 'resumed';
    if (how === 'first') {
      this.#started = true;
      this.#entry.outcome = 'playing';
      this.#entry.startedAt = new Date(clock()).toISOString();
    } else if (how === 'restored') {
      this.#entry.outcome = 'playing';
      this.#entry.startedAt ??= new Date(clock()).toISOString();
    }
    if (how === 'first' || this.#restored) {
      if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
      this.#restored = false;
    }
    return how;
  }

  /**
   * Cut the pass playing, for `reason`. Once cut, and not yet settled or
   * queued again, a stop (or shutdown) overrides a pending pause: the user
   * wants silence, not a resume. A second interruption changes nothing.
   */
  cut(reason: AbortReason, detail: string): void {
    const abort = this.#abort;
    if (!abort) return;
    if (abort.signal.aborted) {
      if (
        (reason === 'stopped' || reason === 'shutdown') &&
        this.#abortReason !== 'stopped' &&
        this.#abortReason !== 'shutdown'
      ) {
        this.#abortReason = reason;
        this.#abortDetail = detail;
      }
      return;
    }
    this.#abortReason = reason;
    this.#abortDetail = detail;
    abort.abort();
  }

  /** Sentence `i` is the one playing (or, at a pass's end, the next to play). */
  reach(i: number): void {
    this.#current = i;
  }

  /** The engine it is spoken with, resolved when it first plays (a replayed one had only its name). */
  useEngine(engine: Engine): Engine {
    return (this.#resolved = engine);
  }

  /** Which engine spoke (the fallback, when it was not the one chosen), for the history. */
  spokenBy(engine: string, fallbackReason: string | undefined): void {
    this.#entry.engine = engine;
    if (fallbackReason) this.#entry.fallbackReason = fallbackReason;
  }

  /** Its first audio reached the sink at `at` (performance.now()): kept once, in the history. */
  heard(at: number): void {
    if (this.#entry.firstAudioMs === undefined)
      this.#entry.firstAudioMs = Math.round((at - this.acceptedPerf) * 10) / 10;
  }

  /** A narration that played all it has waits out of the queue for its next batch. */
  park(): void {
    this.#parked = true;
  }

  /** A narration's audio in its current turn, from the passes before this one, in ms. */
  get turnMs(): number {
    return this.#turnMs;
  }

  /**
   * A pass played `ms` of audio. A pass paused by another's speech (an ask)
   * and resumed continues the same turn: a fresh one would keep the other
   * narrating sessions waiting a whole turn more (docs/priorities.md).
   */
  spent(ms: number): void {
    this.#turnMs += ms;
  }

  /** Its turn is over (it yielded to others, or waits for its next batch): the next pass starts a new one. */
  newTurn(): void {
    this.#turnMs = 0;
  }

  /** Out of waiting: queued again with a new batch, or about to settle. */
  unpark(): void {
    this.#parked = false;
  }

  /** A narration's next batch: its sentences added, and the text and mark that now describe it. */
  grow(added: readonly string[], text: string, mark: NarrationMark): void {
    this.#sentences.push(...added);
    this.#text = text;
    this.#entry.text = text;
    this.#narration = mark;
  }

  /** Its one outcome, in the history; false (and nothing changes) when it has one already. */
  settle(outcome: HistoryEntry['outcome'], at: number, reason?: string): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#entry.outcome = outcome;
    this.#entry.finishedAt = new Date(at).toISOString();
    if (reason) this.#entry.reason = reason;
    return true;
  }

  /** The answer to every caller that waits, now and later. */
  answer(result: SpeakResponse): void {
    this.#result = result;
    for (const w of this.#waiters.splice(0)) w(result);
  }

  /** Shutting down with a journal: no outcome here; the callers that wait get `result` (the next voxd has the rest). False when settled already. */
  handOver(result: SpeakResponse): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    for (const w of this.#waiters.splice(0)) w(result);
    return true;
  }

  /** Its outcome, once it has one. */
  outcome(): Promise<SpeakResponse> {
    if (this.#result) return Promise.resolve(this.#result);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** The request fields the journal keeps and a replay restores, besides the required ones. */
export const KEPT = [
  'requestId',
  'session',
  'final',
  'voice',
  'rate',
  'volume',
  'engine',
  'model',
  'signal',
  'expiresAt',
  'narration',
  'cacheOnly',
] as const;

/** The fields every event about `u` carries. */
export function eventBase(u: Pick<Utterance, 'id' | 'priority' | 'session'>): Omit<VoxEvent, 'type' | 'at'> {
  return { id: u.id, priority: u.priority, ...(u.session ? { session: u.session } : {}) };
}

/** The history entry of a request just accepted (or replayed). */
export function historyEntry(
  u: Pick<Utterance, 'id' | 'text' | 'priority' | 'kind' | 'voice' | 'rate' | 'session' | 'engine'>,
  acceptedAt: number,
): HistoryEntry {
  return {
    id: u.id,
    text: u.text,
    priority: u.priority,
    kind: u.kind,
    outcome: 'queued',
    acceptedAt: new Date(acceptedAt).toISOString(),
    ...pick(u, ['voice', 'rate', 'session', 'engine']),
  };
}

export function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
