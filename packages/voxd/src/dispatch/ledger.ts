/**
 * The ledger: what became of every request. It settles each accepted one in
 * exactly one outcome, recorded everywhere it is seen at once: the history,
 * the counters, an event, the journal, the duplicate window, and the answer
 * to every caller that waits. It keeps the outcomes of recent requests by
 * the caller's request id (for re-sends), and at a shutdown with a journal
 * hands a request over to the next voxd instead of settling it.
 */
import {
  wireError,
  type EventType,
  type HistoryEntry,
  type Outcome,
  type SinkHealth,
  type SpeakResponse,
  type StatusResponse,
  type VoxEvent,
  type WireErrorCode,
} from '@vox/protocol';
import { NO_OUTPUT_FIX, type Sink, type SinkState } from '../sinks/sink.js';
import type { DuplicateFilter } from './dedup.js';
import type { Recall } from './recall.js';
import type { UtteranceJournal } from './utterance-journal.js';
import { eventBase, type Utterance } from './utterance.js';

/**
 * Marks the answer a waiting caller gets when voxd shuts down with its
 * request handed over to the next voxd (the journal): the route drops the
 * connection, so the caller re-sends and is joined to the replayed request.
 */
export const HANDED_OVER: unique symbol = Symbol('handed over');

export function handedOver(r: SpeakResponse): boolean {
  return (r as SpeakResponse & { [HANDED_OVER]?: true })[HANDED_OVER] === true;
}

/** Re-sends joined by request id: outcomes kept for this many recent requests. */
const RECENT_REQUESTS = 256;

/** Settled in one go at most; more are settled in batches (settleLater). */
const BATCH = 256;

const EVENT_OF: Record<Outcome, EventType | undefined> = {
  played: 'finished',
  failed: 'failed',
  expired: 'expired',
  interrupted: 'interrupted',
  stopped: 'interrupted',
  replaced: 'replaced',
  dropped: 'dropped',
  held: 'held',
  queued: undefined,
  playing: undefined,
  deduped: undefined,
};

export type Counters = StatusResponse['counters'];

export interface LedgerOptions {
  clock: () => number;
  /** History entries kept for status. */
  historySize: number;
  dedup: DuplicateFilter;
  journal: UtteranceJournal;
  /** What was heard and missed, kept across restarts (recall.ts). */
  recall: Recall;
  sink: Sink;
  log: { info(obj: object, msg?: string): void } | undefined;
  /** Where events go (the dispatcher's `event`). */
  emit(event: VoxEvent): void;
}

export class Ledger {
  readonly counters: Counters = {
    accepted: 0,
    played: 0,
    deduped: 0,
    failed: 0,
    expired: 0,
    interrupted: 0,
    dropped: 0,
    held: 0,
  };
  /** Accepted and not yet settled, by id. */
  readonly byId = new Map<string, Utterance>();
  /** In-flight requests by the caller's request id. */
  readonly byRequest = new Map<string, Utterance>();
  /** Outcomes of recent requests by the caller's request id (oldest first), for re-sends. */
  readonly #recent = new Map<string, { dedupKey: string; result: SpeakResponse }>();
  #history: HistoryEntry[] = [];
  readonly #options: LedgerOptions;

  constructor(options: LedgerOptions) {
    this.#options = options;
  }

  /** Newest first. */
  history(): HistoryEntry[] {
    return this.#history.slice(-this.#options.historySize).reverse();
  }

  record(entry: HistoryEntry): void {
    this.#history.push(entry);
    // Trimmed in bulk, so each entry costs O(1).
    if (this.#history.length >= this.#options.historySize * 2)
      this.#history.splice(0, this.#history.length - this.#options.historySize);
  }

  emit(type: EventType, data: Omit<VoxEvent, 'type' | 'at'>): void {
    this.#options.emit({ type, ...data, at: new Date(this.#options.clock()).toISOString() });
  }

  remember(requestId: string, dedupKey: string, result: SpeakResponse): void {
    this.#recent.delete(requestId);
    this.#recent.set(requestId, { dedupKey, result });
    if (this.#recent.size > RECENT_REQUESTS) this.#recent.delete(this.#recent.keys().next().value!);
  }

  /** How the recent request with this id ended, if it is still remembered. */
  recent(requestId: string): { dedupKey: string; result: SpeakResponse } | undefined {
    return this.#recent.get(requestId);
  }

  outcomeOf(u: Utterance): Promise<SpeakResponse> {
    return u.outcome();
  }

  settle(u: Utterance, outcome: Outcome, reason?: string, code?: WireErrorCode): void {
    const { journal, dedup, clock, sink, log } = this.#options;
    if (!u.settle(outcome, clock(), reason)) return;
    journal.settle(u, outcome, reason, code);
    this.#options.recall.settled(u, outcome);
    // A stop starts the window too: what the user silenced is not repeated at once; so does a hold (a digest says it).
    if (outcome === 'played' || outcome === 'stopped' || outcome === 'held')
      dedup.played(u.dedupKey, u.id, outcome === 'held' ? 'played' : outcome);
    else dedup.forget(u.dedupKey, u.id);
    this.#count(outcome);
    const type = EVENT_OF[outcome];
    if (type) this.emit(type, { ...eventBase(u), ...(reason ? { reason } : {}) });
    const result: SpeakResponse = {
      id: u.id,
      status: outcome,
      text: u.text,
      ...(u.entry.engine ? { engine: u.entry.engine } : {}),
      ...(u.entry.fallbackReason ? { fallbackReason: u.entry.fallbackReason } : {}),
      ...(reason ? { reason } : {}),
      ...(code ? { error: wireError(code, reason ?? outcome) } : {}),
      sink: sinkHealth(sink.state()),
    };
    u.answer(result);
    this.byId.delete(u.id);
    if (u.requestId) {
      if (this.byRequest.get(u.requestId) === u) this.byRequest.delete(u.requestId);
      this.remember(u.requestId, u.dedupKey, result);
    }
    log?.info(
      { id: u.id, session: u.session, priority: u.priority, outcome, reason, engine: u.entry.engine },
      'utterance settled',
    );
  }

  /**
   * Settles `items` (already out of the queue) in batches, yielding between
   * them: 10,000 stopped requests take a while to report, and the sink must
   * get its turn to go silent first. Every one is still reported.
   */
  settleLater(items: Utterance[], outcome: Outcome, reason: string): void {
    const step = (from: number) => {
      for (const u of items.slice(from, from + BATCH)) this.settle(u, outcome, reason);
      if (from + BATCH < items.length) setImmediate(step, from + BATCH);
    };
    if (items.length <= BATCH) step(0);
    else setImmediate(step, 0);
  }

  /** At a shutdown: handed over to the next voxd with a journal, else failed with `reason`. */
  shutDown(u: Utterance, reason: string): void {
    if (this.#options.journal.enabled) this.#handOver(u);
    else this.settle(u, 'failed', reason, 'VOX_ERR_SHUTTING_DOWN');
  }

  /**
   * Shutting down with a journal: the request stays in it unsettled (with
   * its sentence) for the next voxd, and callers that wait are told to
   * re-send (the route drops their connection).
   */
  #handOver(u: Utterance): void {
    const result = { id: u.id, status: 'queued', text: u.text, [HANDED_OVER]: true } as SpeakResponse;
    if (!u.handOver(result)) return;
    this.byId.delete(u.id);
    if (u.requestId) this.byRequest.delete(u.requestId);
    this.#options.log?.info(
      { id: u.id, session: u.session, priority: u.priority, sentence: u.current },
      'utterance handed over to the next voxd (journal)',
    );
  }

  #count(outcome: Outcome): void {
    const c = this.counters;
    switch (outcome) {
      case 'played':
        c.played += 1;
        break;
      case 'failed':
        c.failed += 1;
        break;
      case 'expired':
        c.expired += 1;
        break;
      case 'interrupted':
      case 'stopped':
        c.interrupted += 1;
        break;
      case 'replaced':
      case 'dropped':
        c.dropped += 1;
        break;
      case 'held':
        c.held = (c.held ?? 0) + 1;
        break;
    }
  }
}

/** The sink's state as the wire carries it in speak responses. */
export function sinkHealth(s: SinkState): SinkHealth {
  return {
    name: s.name,
    ok: s.ok,
    ...(s.ok ? {} : { reason: s.lastError ?? s.detail ?? 'the audio output failed', fix: s.fix ?? NO_OUTPUT_FIX }),
  };
}
