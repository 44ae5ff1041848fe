/**
 * The stream pino writes voxd's log lines into, in front of the file stream.
 *
 * Design note. pino writes each line as it is logged and ignores
 * back-pressure; rotating-file-stream (a Node Writable) awaits one fs write
 * per buffered line and queues the rest in memory without a limit. Under a
 * flood of requests (one info line each) the queue grew by megabytes a
 * second and voxd's memory with it, for as long as the flood lasted.
 *
 * LogStream keeps memory bounded whatever the rate:
 * - it hands the file stream one chunk at a time: every line that waited,
 *   joined (one fs write per turn of the event loop, not one per line), so
 *   the log keeps up with any flood a working disk can take;
 * - lines logged while more than `limit` bytes wait (a slow, full or blocked
 *   disk) are dropped and counted, never queued; once the file stream takes
 *   lines again, one warn line, in the place of the dropped ones, says how
 *   many were dropped and between which times.
 * Requests are never held up by the log: write() never blocks or throws.
 */
import type { Writable } from 'node:stream';

export interface LogStreamOptions {
  /** Bytes of lines that may wait for the file stream before new ones are dropped. Default 1 MiB. */
  limit?: number;
  /** Fields put first in the "dropped" line, as pino's `base` (e.g. `{ pid }`). */
  base?: Record<string, unknown>;
  /** The clock, ms since the epoch (tests). Default Date.now. */
  now?: () => number;
}

/** pino's numeric level for warn. */
const WARN = 40;
const DEFAULT_LIMIT = 1024 * 1024;

export class LogStream {
  /** Lines waiting for the file stream. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** Bytes handed to the file stream and not yet written. */
  private inFlight = 0;
  /** The current spell of drops: how many, since and until when, and where in `pending` they belong. */
  private spell: { count: number; from: number; to: number; at: number } | undefined;
  private flushWaiters: Array<(err?: Error) => void> = [];
  private readonly limit: number;
  private readonly base: Record<string, unknown>;
  private readonly now: () => number;
  /** Lines dropped since the start, including lines the file stream failed to write. */
  droppedTotal = 0;
  /** The last error of the file stream, if any (a full disk, a file-size limit). */
  lastError: Error | undefined;

  constructor(
    private readonly inner: Writable,
    options: LogStreamOptions = {},
  ) {
    this.limit = options.limit ?? DEFAULT_LIMIT;
    this.base = options.base ?? {};
    this.now = options.now ?? Date.now;
    // A write error (ENOSPC, EFBIG) must not become an uncaught exception: the log is best effort.
    inner.on('error', (err: Error) => {
      this.lastError = err;
    });
  }

  /** Bytes of lines waiting, plus those handed to the file stream and not yet written. */
  get buffered(): number {
    return this.pendingLength + this.inFlight;
  }

  /** Called by pino with one complete line. Never throws. */
  write(line: string): boolean {
    if (this.buffered >= this.limit) {
      const t = this.now();
      if (this.spell) {
        this.spell.count += 1;
        this.spell.to = t;
      } else this.spell = { count: 1, from: t, to: t, at: this.pending.length };
      this.droppedTotal += 1;
      return true;
    }
    this.pending.push(line);
    this.pendingLength += line.length;
    if (this.inFlight === 0) this.next();
    return true;
  }

  /** Calls back once every line written so far has been handed to the file and written (pino's logger.flush). */
  flush(cb?: (err?: Error) => void): void {
    if (this.inFlight === 0 && this.pending.length === 0 && !this.spell) {
      if (cb) process.nextTick(cb);
      return;
    }
    if (cb) this.flushWaiters.push(cb);
  }

  /** The "N lines dropped" line, pino-shaped. */
  private droppedLine(spell: { count: number; from: number; to: number }): string {
    const n = spell.count;
    return `${JSON.stringify({
      level: WARN,
      time: this.now(),
      ...this.base,
      dropped: n,
      droppedFrom: spell.from,
      droppedTo: spell.to,
      msg: `${n} log line${n === 1 ? '' : 's'} dropped: they came faster than the log file took them`,
    })}\n`;
  }

  /** Hands everything that waits to the file stream as one chunk. */
  private next(): void {
    if (this.pending.length === 0 && !this.spell) {
      for (const w of this.flushWaiters.splice(0)) w(this.lastError);
      return;
    }
    const lines = this.pending;
    // The lines of this chunk that were logged (not the "dropped" line), lost if the write fails.
    const count = lines.length;
    if (this.spell) {
      lines.splice(this.spell.at, 0, this.droppedLine(this.spell));
      this.spell = undefined;
    }
    const chunk = lines.join('');
    this.pending = [];
    this.pendingLength = 0;
    this.inFlight = chunk.length;
    const done = (err?: Error | null) => {
      this.inFlight = 0;
      if (err) {
        this.lastError = err;
        this.droppedTotal += count;
      }
      this.next();
    };
    try {
      this.inner.write(chunk, done);
    } catch (err) {
      // A destroyed stream calls back with an error; a throwing one is treated the same.
      process.nextTick(done, err as Error);
    }
  }
}
