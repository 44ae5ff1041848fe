/**
 * The journal's open file, written (journal.ts decides what goes in it):
 * - a record is appended whole or not at all: a partial write (a full disk)
 *   is cut off again, so the next record starts on its own line;
 * - syncs are group commits: the accepts written while one sync runs share
 *   the next, off the event loop (fdatasync), and each learns its error;
 * - a rewrite (compaction) is atomic: tmp file, sync, rename, sync the
 *   directory; a sync still running on the old descriptor keeps it open
 *   until it ends;
 * - a failure is logged once until the file can be written again (a full
 *   disk must not flood the log), and a missing file is opened again at the
 *   next accept (a freed disk lets speech in again).
 */
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { VoxError } from '../errors.js';
import { openAppend, syncDir } from './journal-file.js';

export interface JournalLog {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export class JournalWriter {
  readonly path: string;
  readonly #log: JournalLog | undefined;
  #fd: number | undefined;
  #bytes = 0;
  /** Accepts written and waiting for a sync that starts after them (told the sync's error, if any). */
  #waiting: Array<(err?: NodeJS.ErrnoException) => void> = [];
  #syncing = false;
  /** A descriptor replaced by a rewrite while a sync ran on it: closed when that sync ends. */
  #retired: number[] = [];
  #failed = false;

  constructor(path: string, log: JournalLog | undefined) {
    this.path = path;
    this.#log = log;
  }

  /** Bytes in the file now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Append an accept whole, opening the file again if it was missing or
   * failed; or throw VOX_ERR_JOURNAL_UNWRITABLE and the file is as it was.
   */
  accept(text: string, bytes: number): void {
    if (this.#fd === undefined) {
      try {
        this.#fd = openAppend(this.path);
      } catch (err) {
        throw this.#refuse(err as NodeJS.ErrnoException);
      }
    }
    const problem = this.#append(text, bytes);
    if (problem) throw this.#refuse(problem);
  }

  /** Progress and settle records: a failure is logged, and speech goes on. */
  write(text: string, bytes: number): void {
    if (this.#fd === undefined) return;
    const problem = this.#append(text, bytes);
    if (problem) this.#fail('cannot write the journal', problem);
  }

  /** Resolves once what was written so far is on disk; rejects with VOX_ERR_JOURNAL_UNWRITABLE when that sync fails. */
  synced(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push((err) =>
        err ? reject(new VoxError('VOX_ERR_JOURNAL_UNWRITABLE', this.path, err.code ?? err.message)) : resolve(),
      );
      this.#sync();
    });
  }

  /**
   * Replace the file with `text`, atomically. False when it could not be
   * (logged): the old file is appended to still, or there is none. Either way
   * every accept written so far counts as synced (the rewritten file is, and a
   * failed rewrite leaves nothing better to wait for).
   */
  rewrite(text: string): boolean {
    const tmp = `${this.path}.tmp`;
    let fd: number | undefined;
    let ok = true;
    try {
      rmSync(tmp, { force: true });
      fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, text);
      fdatasyncSync(fd);
      closeSync(fd);
      fd = undefined;
      // A sync may be running on the old descriptor: it is closed when that ends, never under it.
      if (this.#fd !== undefined) {
        if (this.#syncing) this.#retired.push(this.#fd);
        else closeSync(this.#fd);
      }
      this.#fd = undefined;
      renameSync(tmp, this.path);
      syncDir(dirname(this.path));
      this.#fd = openAppend(this.path);
      this.#bytes = Buffer.byteLength(text);
    } catch (err) {
      ok = false;
      if (fd !== undefined) closeSync(fd);
      rmSync(tmp, { force: true });
      if (this.#fd === undefined) {
        // Keep appending to the old file if it is still there; else run without a journal.
        try {
          this.#fd = openAppend(this.path);
        } catch {
          // #fd stays undefined: no journal
        }
      }
      this.#fail('cannot compact the journal', err as Error);
    }
    for (const w of this.#waiting.splice(0)) w();
    return ok;
  }

  /** Wait for a running sync, sync what was written, close. Harmless twice. */
  async close(): Promise<void> {
    while (this.#syncing) await new Promise((r) => setImmediate(r));
    if (this.#fd !== undefined) {
      try {
        fdatasyncSync(this.#fd);
      } catch {
        // best effort at exit
      }
      closeSync(this.#fd);
      this.#fd = undefined;
    }
    for (const w of this.#waiting.splice(0)) w();
  }

  #refuse(err: NodeJS.ErrnoException): VoxError {
    this.#fail('cannot write the journal', err);
    return new VoxError('VOX_ERR_JOURNAL_UNWRITABLE', this.path, err.code ?? err.message);
  }

  #sync(): void {
    if (this.#syncing || this.#fd === undefined || this.#waiting.length === 0) return;
    this.#syncing = true;
    const batch = this.#waiting.splice(0);
    fdatasync(this.#fd, (err) => {
      this.#syncing = false;
      for (const fd of this.#retired.splice(0)) closeSync(fd);
      if (err) this.#fail('cannot sync the journal', err);
      for (const w of batch) w(err ?? undefined);
      this.#sync();
    });
  }

  /** Append `text` whole, or cut the file back to where it was and say why. */
  #append(text: string, bytes: number): NodeJS.ErrnoException | undefined {
    const fd = this.#fd!;
    let before: number | undefined;
    try {
      before = fstatSync(fd).size;
      const wrote = writeSync(fd, text);
      if (wrote === bytes) {
        this.#bytes += bytes;
        this.#failed = false;
        return undefined;
      }
      throw Object.assign(new Error(`wrote ${wrote} of ${bytes} bytes (a full disk?)`), { code: 'ENOSPC' });
    } catch (err) {
      // A torn line would glue the next record to it: the file goes back to its last whole record.
      try {
        if (before !== undefined) ftruncateSync(fd, before);
      } catch {
        // The next read skips a torn line anyway.
      }
      return err as NodeJS.ErrnoException;
    }
  }

  #fail(what: string, err: Error): void {
    // Said once per failure: a full disk must not flood the log.
    if (this.#failed) return;
    this.#failed = true;
    this.#log?.error(
      { err: err.message, path: this.path },
      `${what}: new requests are refused (503 VOX_ERR_JOURNAL_UNWRITABLE) until it can be written; what is queued still plays`,
    );
  }
}
