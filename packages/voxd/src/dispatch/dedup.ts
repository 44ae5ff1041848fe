/**
 * The duplicate filter. Design notes:
 * - A request whose key is in flight (queued or playing) joins it: it is not played again.
 * - After the original has played, repeats are dropped until the window ends, measured
 *   from the end of playback. The window is the longer of the original's and the
 *   repeat's (`once`), so a Biff `--once 600` repeat is caught even minutes later.
 * - An original that failed, expired or was dropped is forgotten at once, so it never
 *   suppresses a retry (the reference implementation recorded before success).
 * - Pruning is amortized O(1): played originals are kept in the order they
 *   finished, and only the oldest are looked at (a scan of the whole map on
 *   every settle made stopping 10,000 queued requests take seconds).
 * The clock is injected so tests control time.
 */
import { MAX_ONCE_SECONDS } from '@vox/protocol';

export interface DedupEntry {
  id: string;
  windowMs: number;
  state: 'inflight' | 'played';
  /** How the original ended: played, or stopped by the user (either starts the window). */
  outcome?: 'played' | 'stopped';
  /** Clock time when playback finished. */
  playedAt?: number;
}

export interface DuplicateHit {
  original: DedupEntry;
  /** Milliseconds left in the window (for an in-flight original, the full window after it ends). */
  remainingMs: number;
}

export class DuplicateFilter {
  #entries = new Map<string, DedupEntry>();
  /** Played originals in the order they finished (clock time never goes back for these). */
  #finished: Array<{ key: string; entry: DedupEntry }> = [];
  #head = 0;
  #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  check(key: string, windowMs: number): DuplicateHit | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.state === 'inflight') return { original: entry, remainingMs: Math.max(entry.windowMs, windowMs) };
    const remainingMs = entry.playedAt! + Math.max(entry.windowMs, windowMs) - this.#clock();
    return remainingMs > 0 ? { original: entry, remainingMs } : undefined;
  }

  /** Record a newly accepted original. */
  begin(key: string, id: string, windowMs: number): void {
    this.#entries.set(key, { id, windowMs, state: 'inflight' });
  }

  /** The original played (or was stopped by the user): start its window. */
  played(key: string, id: string, outcome: 'played' | 'stopped' = 'played'): void {
    const entry = this.#entries.get(key);
    if (entry?.id !== id) return;
    entry.state = 'played';
    entry.outcome = outcome;
    entry.playedAt = this.#clock();
    this.#finished.push({ key, entry });
    this.#prune();
  }

  /**
   * An original that played (or was stopped) before voxd restarted, from the
   * journal: its window runs from `playedAt` as before. Call in the order
   * they finished, before anything else plays.
   */
  restore(key: string, id: string, windowMs: number, playedAt: number, outcome: 'played' | 'stopped'): void {
    if (playedAt + Math.max(windowMs, MAX_ONCE_SECONDS * 1000) <= this.#clock()) return;
    const entry: DedupEntry = { id, windowMs, state: 'played', outcome, playedAt };
    this.#entries.set(key, entry);
    this.#finished.push({ key, entry });
  }

  /** The original did not play: forget it, so a retry is not suppressed. */
  forget(key: string, id: string): void {
    if (this.#entries.get(key)?.id === id) this.#entries.delete(key);
  }

  /** Forget `key` whatever holds it: its window ends now (an idle prompt's wait is over, idle-waits.ts). */
  drop(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #prune(): void {
    // A later request may ask for a window up to MAX_ONCE_SECONDS, so keep that long.
    const oldest = this.#clock() - MAX_ONCE_SECONDS * 1000;
    while (this.#head < this.#finished.length && this.#finished[this.#head]!.entry.playedAt! <= oldest) {
      const { key, entry } = this.#finished[this.#head++]!;
      // Only if the key still holds that original (a later one may have replaced it).
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#finished.length) {
      this.#finished = this.#finished.slice(this.#head);
      this.#head = 0;
    }
  }
}
