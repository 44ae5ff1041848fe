/**
 * Replay: what the journal held when voxd started, put back. Settled
 * requests seed the request-id joins and the duplicate windows; unsettled
 * ones are queued again in their order, with their priorities and sessions
 * (one that had started goes first in its class and resumes at its
 * sentence), unless they expired meanwhile (maxAgeMs from the original
 * accept, or REPLAY_MAX_AGE_MS): those are settled as `expired`.
 */
import { wireError } from '@vox/protocol';
import type { DuplicateFilter } from './dedup.js';
import type { Replay } from './journal-records.js';
import type { Ledger } from './ledger.js';
import type { Player } from './player.js';
import type { SpeechQueue } from './queue.js';
import type { UtteranceJournal } from './utterance-journal.js';
import { eventBase, Utterance } from './utterance.js';

/** Journal entries older than this at a restart are reported expired, not spoken late. In ms. */
export const REPLAY_MAX_AGE_MS = 10 * 60_000;

export interface ReplayContext {
  clock: () => number;
  ledger: Ledger;
  dedup: DuplicateFilter;
  queue: SpeechQueue<Utterance>;
  player: Player;
  journal: UtteranceJournal;
  log: { info(obj: object, msg?: string): void } | undefined;
}

export function restore(replay: Replay, ctx: ReplayContext): { replayed: number; resumed: number; expired: number } {
  const { clock, ledger, dedup, queue, player, journal, log } = ctx;
  const now = clock();
  for (const s of replay.settled) {
    if (s.requestId)
      ledger.remember(s.requestId, s.dedupKey, {
        id: s.id,
        status: s.outcome,
        ...(s.reason ? { reason: s.reason } : {}),
        ...(s.code ? { error: wireError(s.code, s.reason ?? s.outcome) } : {}),
      });
    if (s.outcome === 'played' || s.outcome === 'stopped') dedup.restore(s.dedupKey, s.id, s.windowMs, s.at, s.outcome);
  }
  const counts = { replayed: 0, resumed: 0, expired: 0 };
  const fronts: Utterance[] = [];
  for (const p of replay.pending) {
    const u = Utterance.replayed(p);
    journal.replayed(u);
    ledger.counters.accepted += 1;
    ledger.record(u.entry);
    ledger.byId.set(u.id, u);
    if (!u.started && u.expiresAt !== undefined && now > u.expiresAt) {
      ledger.settle(u, 'expired', 'not started within maxAgeMs (voxd restarted meanwhile)');
      counts.expired += 1;
      continue;
    }
    if (now - p.acceptedAt > REPLAY_MAX_AGE_MS) {
      ledger.settle(
        u,
        'expired',
        `accepted ${Math.round((now - p.acceptedAt) / 60_000)} min before voxd restarted: too old to speak now`,
      );
      counts.expired += 1;
      continue;
    }
    dedup.begin(u.dedupKey, u.id, u.windowMs);
    if (u.requestId) ledger.byRequest.set(u.requestId, u);
    if (u.narration && u.current >= u.sentences.length) {
      // A narration that had played all it had: done, or waiting for its next batch (narration.ts).
      if (u.narration.final) ledger.settle(u, 'played');
      else u.park();
      counts.replayed += 1;
      continue;
    }
    if (u.started) fronts.push(u);
    else queue.restore(u, false);
    if (u.expiresAt !== undefined && !u.started) player.expireAfter(u, Math.max(0, u.expiresAt - now) + 1);
    counts.replayed += 1;
    if (u.started) counts.resumed += 1;
    ledger.emit('queued', {
      ...eventBase(u),
      reason: u.started
        ? `replayed after voxd restarted; resumes at sentence ${u.current + 1} of ${Math.max(1, u.sentences.length)}`
        : 'replayed after voxd restarted',
    });
  }
  // Started ones go to the front of their class, in their accept order.
  for (const u of fronts.reverse()) queue.restore(u, true);
  if (counts.replayed || counts.expired) log?.info(counts, 'replayed the journal');
  player.kick();
  return counts;
}
