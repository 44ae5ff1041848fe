/**
 * The journal: accepted requests that have not settled yet, kept in
 * VOX_HOME/journal.jsonl so that a voxd that restarts (after `vox daemon
 * restart`, an upgrade or `kill -9`) speaks what had not finished, once.
 * docs/protocol.md ("The journal") has the replay rules.
 *
 * Design notes:
 * - One JSON object per line, appended (journal-records.ts has the records).
 *   This class keeps what is live and decides what is written; the open
 *   file (whole appends, group-commit syncs, atomic rewrites, failures said
 *   once) is JournalWriter's (journal-writer.ts). The dispatcher writes here
 *   only through utterance-journal.ts.
 * - Durability where it matters: an accept is written and fdatasync'd before
 *   the caller hears "queued" (group commit: accepts that arrive together
 *   share one sync, off the event loop). Progress and settle records are
 *   written at once (a write, no sync: they survive `kill -9`, which keeps
 *   the page cache; a power cut may lose the last ones, and then a sentence
 *   is spoken again rather than lost). The next sync covers them.
 * - Small: when the file has grown past twice what is live (unsettled
 *   accepts plus the recent settles kept for joining re-sends), it is
 *   rewritten with only that, atomically (tmp file, fsync, rename). Each
 *   record is rewritten O(1) times on average.
 * - A torn last line (a crash during an append) or a corrupt one is skipped
 *   and reported, never fatal. The file is 0600 like the token, and a link
 *   in its place is replaced, never followed (journal-file.ts).
 * - Nothing accepted is lost: an accept that would take the live records
 *   past `maxBytes`, or that cannot be written whole (a full disk, no file),
 *   throws a 503 VoxError before anything else changed, so the caller is
 *   refused rather than told "queued" for what a restart would not find. A
 *   partial write is cut off again, so the next record starts on its own
 *   line. At open, at most `maxBytes` of unsettled records are replayed, in
 *   order, and the rest reported (journal-records.ts).
 */
import { VoxError } from '../errors.js';
import { readJournalFile } from './journal-file.js';
import {
  JournalReader,
  lineBytes,
  type JournalEntry,
  type Line,
  type Replay,
  type SettledRecord,
} from './journal-records.js';
import { JournalWriter, type JournalLog } from './journal-writer.js';

/** Default cap on the live records (unsettled accepts and kept settles), in bytes. */
export const JOURNAL_MAX_BYTES = 256 * 1024 * 1024;
/** The smallest cap VOXD_JOURNAL_MAX_BYTES may set: one request of the longest text fits. */
export const JOURNAL_MIN_BYTES = 4096;

/** The cap from VOXD_JOURNAL_MAX_BYTES (bytes, an integer), or the default; a bad value is an error that says so. */
export function journalMaxBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.VOXD_JOURNAL_MAX_BYTES;
  if (raw === undefined || raw === '') return JOURNAL_MAX_BYTES;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < JOURNAL_MIN_BYTES) {
    throw new Error(
      `VOXD_JOURNAL_MAX_BYTES=${JSON.stringify(raw.slice(0, 40))} is not a number of bytes of at least ${JOURNAL_MIN_BYTES}; set it to an integer such as ${JOURNAL_MAX_BYTES}, or unset it`,
    );
  }
  return n;
}

export type { JournalEntry, PendingRecord, Replay, SettledRecord } from './journal-records.js';

export interface JournalOptions {
  /** Wall clock in ms (settle records and retention). Default Date.now. */
  clock?: () => number;
  /** Settled records kept for joining re-sends: at most this many. Default 256. */
  keepSettled?: number;
  /** ... and only for this long, in ms (or the request's duplicate window if longer). Default 10 min. */
  keepSettledMs?: number;
  /** Compact once the file is past this size and twice the live records. Default 64 KiB. */
  compactBytes?: number;
  /** Most bytes of live records: an accept past it is refused (503), a replay stops there. Default JOURNAL_MAX_BYTES. */
  maxBytes?: number;
  log?: JournalLog;
}

export class Journal {
  readonly path: string;
  /** What the file held at open (read once by the dispatcher). */
  readonly replay: Replay;
  readonly #clock: () => number;
  readonly #keepSettled: number;
  readonly #keepSettledMs: number;
  readonly #compactBytes: number;
  readonly #maxBytes: number;
  readonly #log: JournalOptions['log'];
  readonly #file: JournalWriter;
  /** Unsettled accepts, in accept order (Map keeps insertion order), with their last progress. */
  readonly #pending = new Map<string, { entry: JournalEntry; bytes: number; sentence?: number }>();
  /** Recent settles, oldest first; trimmed from the front. */
  #settled: Array<{ rec: SettledRecord; bytes: number }> = [];
  #settledHead = 0;
  #liveBytes = 0;
  #closed = false;
  /** A compaction waiting for the end of this turn (#compactSoon). */
  #compactTimer: NodeJS.Immediate | undefined;

  private constructor(path: string, options: JournalOptions) {
    this.path = path;
    this.#clock = options.clock ?? Date.now;
    this.#keepSettled = options.keepSettled ?? 256;
    this.#keepSettledMs = options.keepSettledMs ?? 10 * 60_000;
    this.#compactBytes = options.compactBytes ?? 64 * 1024;
    this.#maxBytes = options.maxBytes ?? JOURNAL_MAX_BYTES;
    this.#log = options.log;
    this.#file = new JournalWriter(path, options.log);
    const replay = this.#read();
    for (const p of replay.pending) {
      const { sentence, ...entry } = p;
      this.#pending.set(p.id, {
        entry,
        bytes: lineBytes({ t: 'a', ...entry }),
        ...(sentence !== undefined ? { sentence } : {}),
      });
    }
    for (const rec of replay.settled) this.#settled.push({ rec, bytes: lineBytes({ t: 's', ...rec }) });
    this.#recount();
    // Only what is kept: settles past their retention are gone already.
    this.replay = { ...replay, settled: this.#settled.slice(this.#settledHead).map((s) => s.rec) };
    // Start from a clean file: no torn tail, nothing settled long ago.
    this.#compact();
  }

  /** Open (or create) the journal at `path` and read what it holds. Never throws for bad content; throws when the file cannot be written. */
  static open(path: string, options: JournalOptions = {}): Journal {
    return new Journal(path, options);
  }

  /** Bytes in the file now (for tests and benchmarks). */
  get size(): number {
    return this.#file.bytes;
  }

  /** Requests accepted and not settled. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** The cap on live records, in bytes. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /**
   * Record an accepted request. The record is written at once (in call
   * order), or this throws a 503 VoxError and nothing changed: past the cap
   * (VOX_ERR_JOURNAL_FULL), or not written whole (VOX_ERR_JOURNAL_UNWRITABLE).
   * The promise resolves once it is on disk (fdatasync), and rejects with
   * VOX_ERR_JOURNAL_UNWRITABLE when that sync fails.
   */
  accept(entry: JournalEntry): Promise<void> {
    return this.#accept(entry, undefined);
  }

  /**
   * Record a narrated message again, whole, with what its last batch added
   * (the reader keeps the last record of an id). Written at once, or this
   * throws as an accept does; the sync follows (group commit) without being
   * waited for, as for progress: a `kill -9` keeps what was written.
   */
  grow(entry: JournalEntry): void {
    const old = this.#pending.get(entry.id);
    this.#accept(entry, old).catch((err: Error) =>
      this.#log?.warn({ id: entry.id, err: err.message }, 'a narration batch was written but not synced'),
    );
  }

  #accept(entry: JournalEntry, old: { bytes: number; sentence?: number } | undefined): Promise<void> {
    if (this.#closed) throw new VoxError('VOX_ERR_SHUTTING_DOWN');
    const line: Line = { t: 'a', ...entry };
    const text = `${JSON.stringify(line)}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.#liveBytes - (old?.bytes ?? 0) + bytes > this.#maxBytes) {
      throw new VoxError('VOX_ERR_JOURNAL_FULL', this.#pending.size, this.#maxBytes);
    }
    // A journal that was missing or failed is tried again: a freed disk or a removed directory lets speech in again.
    this.#file.accept(text, bytes);
    this.#pending.set(entry.id, { entry, bytes, ...(old?.sentence !== undefined ? { sentence: old.sentence } : {}) });
    this.#liveBytes += bytes - (old?.bytes ?? 0);
    // A narration written again at each batch leaves its older records behind.
    if (old) this.#compactSoon();
    return this.#file.synced();
  }

  /** Sentence `n` of request `id` started playing. Written, not synced (cheap: one small write). */
  progress(id: string, n: number): void {
    const p = this.#pending.get(id);
    if (!p || p.sentence === n) return;
    p.sentence = n;
    this.#write({ t: 'p', id, n });
  }

  /** Request `id` settled. Written, not synced; the next sync covers it. */
  settle(rec: Omit<SettledRecord, 'at'> & { at?: number }): void {
    const p = this.#pending.get(rec.id);
    if (!p) return;
    this.#pending.delete(rec.id);
    this.#liveBytes -= p.bytes;
    const full: SettledRecord = { ...rec, at: rec.at ?? this.#clock() };
    if (full.reason && full.reason.length > 300) full.reason = `${full.reason.slice(0, 300)}…`;
    const bytes = this.#write({ t: 's', ...full });
    this.#settled.push({ rec: full, bytes });
    this.#liveBytes += bytes;
    this.#trimSettled();
    this.#compactSoon();
  }

  /**
   * Sync what was written and close. Pending accepts stay in the file: the
   * next voxd replays them. Harmless twice.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#compactTimer) clearImmediate(this.#compactTimer);
    await this.#file.close();
  }

  /** Progress and settle records: written at once; a failure is logged (JournalWriter), and speech goes on. */
  #write(line: Line): number {
    const text = `${JSON.stringify(line)}\n`;
    const bytes = Buffer.byteLength(text);
    this.#file.write(text, bytes);
    return bytes;
  }

  #trimSettled(): void {
    const now = this.#clock();
    const live = this.#settled.length - this.#settledHead;
    let excess = live - this.#keepSettled;
    while (this.#settledHead < this.#settled.length) {
      const { rec, bytes } = this.#settled[this.#settledHead]!;
      if (excess <= 0 && rec.at + Math.max(rec.windowMs, this.#keepSettledMs) > now) break;
      this.#liveBytes -= bytes;
      this.#settledHead++;
      excess--;
    }
    if (this.#settledHead > 1024 && this.#settledHead * 2 > this.#settled.length) {
      this.#settled = this.#settled.slice(this.#settledHead);
      this.#settledHead = 0;
    }
  }

  #recount(): void {
    this.#trimSettled();
    this.#liveBytes = 0;
    for (const p of this.#pending.values()) this.#liveBytes += p.bytes;
    for (let i = this.#settledHead; i < this.#settled.length; i++) this.#liveBytes += this.#settled[i]!.bytes;
  }

  /**
   * Compact once the file is past compactBytes and twice the live records, at
   * the end of this turn: a stop of 200 long texts settles them in one turn,
   * and compacting at each halving of what is live meant seven rewrites, each
   * with its syncs, while the event loop waited. A file at four times what is
   * live is compacted at once (a long burst in one turn stays bounded).
   */
  #compactSoon(): void {
    const bytes = this.#file.bytes;
    if (bytes <= this.#compactBytes || bytes <= 2 * this.#liveBytes) return;
    if (bytes > 2 * this.#compactBytes && bytes > 4 * this.#liveBytes) {
      this.#compact();
      return;
    }
    this.#compactTimer ??= setImmediate(() => {
      this.#compactTimer = undefined;
      if (this.#closed) return;
      const now = this.#file.bytes;
      if (now > this.#compactBytes && now > 2 * this.#liveBytes) this.#compact();
    });
  }

  /** Rewrite the file with what is live, atomically: tmp file, sync, rename, sync the directory. */
  #compact(): void {
    if (this.#compactTimer) {
      clearImmediate(this.#compactTimer);
      this.#compactTimer = undefined;
    }
    this.#trimSettled();
    const parts: string[] = [];
    for (let i = this.#settledHead; i < this.#settled.length; i++)
      parts.push(JSON.stringify({ t: 's', ...this.#settled[i]!.rec }));
    for (const { entry, sentence } of this.#pending.values()) {
      parts.push(JSON.stringify({ t: 'a', ...entry }));
      if (sentence !== undefined) parts.push(JSON.stringify({ t: 'p', id: entry.id, n: sentence }));
    }
    const text = parts.length ? `${parts.join('\n')}\n` : '';
    // Rewritten and synced: every accept written so far is on disk.
    if (this.#file.rewrite(text)) this.#recount();
  }

  #read(): Replay {
    const problems: string[] = [];
    const reader = new JournalReader({ maxPendingBytes: this.#maxBytes, problems, now: this.#clock() });
    // A journal voxd wrote is at most twice its live records past the compaction threshold (compaction's rule).
    return readJournalFile(this.path, reader, 2 * this.#maxBytes + this.#compactBytes + 16 * 1024 * 1024, problems);
  }
}
