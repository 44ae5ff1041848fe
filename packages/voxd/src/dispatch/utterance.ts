/**
 * An utterance: one accepted request (speech or a chime) on its way through
 * the dispatcher, from admission to its one outcome. Its request fields are
 * the journal's (journal-records.ts, itself derived from the wire's
 * SpeakRequest), plus the caller's API key, which the journal never keeps.
 */
import type { HistoryEntry, SpeakRequest, SpeakResponse, VoxEvent } from '@vox/protocol';
import type { Engine } from '../engines/engine.js';
import type { JournalEntry } from './journal-records.js';

/** Why the playing utterance was cut: what becomes of it next (player.ts). */
export type AbortReason = 'stopped' | 'interrupt-resume' | 'interrupt-drop' | 'shutdown' | 'watchdog';

export type Utterance = Omit<JournalEntry, 'hadApiKey'> &
  Pick<SpeakRequest, 'apiKey'> & {
    /** The engine chosen at admission; one replayed from the journal has only its name (`engine`) until it plays. */
    resolved?: Engine;
    /** Replayed from the journal and not yet started again here. */
    restored?: boolean;
    /** In the journal (its settle is recorded there). */
    journaled?: boolean;
    /** Index of the sentence being played (where a resume starts); a narration's next one once a pass ends. */
    current: number;
    /** A narration that has played what it has so far, out of the queue until its next batch. */
    parked?: boolean;
    acceptedPerf: number;
    expiryTimer?: NodeJS.Timeout;
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
  };

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
] as const;

/** What the journal keeps of an utterance (never its API key). */
export function journalEntry(u: Utterance): JournalEntry {
  return {
    id: u.id,
    ...pick(u, KEPT),
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
