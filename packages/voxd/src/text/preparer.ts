/**
 * Text preparation (cleanup for speech, then sentences) off voxd's event loop.
 *
 * Design note: the work is linear in the text's length (test/text/linear),
 * but a 20,000-character request still costs tens of milliseconds, mostly in
 * sentence-splitter; ten of them at once kept /v1/health waiting. So texts
 * longer than INLINE_CHARS are prepared in one worker thread, in order, while
 * the event loop keeps answering. Short texts, the usual case, are prepared
 * inline: a worker round trip would cost more than the work. A worker that
 * dies fails the texts it held (each request is told) and is replaced on the
 * next text.
 *
 * Inline work is budgeted over time, not only per request: a burst of 200
 * texts at the inline limit once kept /v1/health waiting 2.1 s. Once
 * INLINE_BUDGET_MS of inline work is spent within INLINE_WINDOW_MS, the texts
 * that follow go to the worker (a budget per turn of the event loop alone was
 * not enough: a burst arrives over many turns, and each spent its budget), and
 * while the worker holds texts, short ones queue behind them too. One text can
 * cost more than the budget (2,000 characters of abbreviations take tens of
 * ms), so the cost per character seen lately predicts the next text's, and a
 * text predicted over the budget goes to the worker at once. Where there
 * is no worker, they wait for later turns, a budget each. The worker starts
 * on the first text it gets and ends after WORKER_IDLE_MS without one.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { VoxError } from '../errors.js';
import { splitSentences } from './sentences.js';
import { cleanForSpeech } from './cleanup.js';

export interface PrepareOptions {
  /** Keep expressive tags, for engines that perform them. */
  keepTags: boolean;
  /** Cut at a sentence boundary at or before this many characters (cleanup's default when absent). */
  maxChars?: number;
}

/** Text as it will be spoken, and its sentences (the units of synthesis and resume). */
export interface PreparedText {
  text: string;
  sentences: string[];
}

export type PrepareFn = (text: string, options: PrepareOptions) => Promise<PreparedText>;

/** The text as given, split into sentences: the default where no cleanup is set up (tests, benches). */
export const prepareAsGiven: PrepareFn = async (text) => ({ text, sentences: splitSentences(text) });

/** prepareText as a PrepareFn: everything on the calling thread (tests, and where no worker is built). */
export const prepareInline: PrepareFn = async (text, options) => prepareText(text, options);

/** Texts up to this many characters are prepared on the calling thread (about a millisecond of work). */
export const INLINE_CHARS = 2_000;

/** Inline preparation allowed within INLINE_WINDOW_MS (or one turn, without a worker) before texts leave the event loop, in ms. */
export const INLINE_BUDGET_MS = 8;
export const INLINE_WINDOW_MS = 100;

/**
 * The worker ends after this long without a text (the next one starts it again, in tens of ms
 * off the loop). Its isolate holds some 15 MB, and V8 keeps the freed pages until a collection
 * of voxd's own heap: ending before the idle trim's first look (every 5 s, daemon.ts) gives them
 * back with the trim, within 10 s of the last request (issue 34; 30 s, and 8 s more, before).
 */
export const WORKER_IDLE_MS = 4_000;

/** Cleanup and sentences on this thread. */
export function prepareText(text: string, options: PrepareOptions): PreparedText {
  const spoken = cleanForSpeech(text, {
    keepTags: options.keepTags,
    ...(options.maxChars ? { maxChars: options.maxChars } : {}),
  });
  return { text: spoken, sentences: splitSentences(spoken) };
}

/** Messages to and from the worker (prepare-worker.ts). */
export type PrepareRequest = { id: number; text: string; options: PrepareOptions };
export type PrepareReply = { id: number; prepared: PreparedText } | { id: number; error: string };

interface Pending {
  resolve(p: PreparedText): void;
  reject(e: Error): void;
}

export class TextPreparer {
  readonly #script = new URL('./prepare-worker.js', import.meta.url);
  readonly #inlineChars: number;
  readonly #budgetMs: number;
  readonly #idleMs: number;
  #threaded: boolean | undefined;
  #worker: Worker | undefined;
  #idle: NodeJS.Timeout | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  /** Inline work spent in this turn of the event loop (ms), reset by #turn. */
  #spentMs = 0;
  /** Inline work spent since #windowAt (ms). */
  #windowSpentMs = 0;
  #windowAt = 0;
  /** The dearest inline cost per character seen lately (halved each window since), for predicting a text's. */
  #msPerChar = 0;
  #turn: NodeJS.Immediate | undefined;
  /** Texts waiting for a later turn (no worker script, as under tsx). */
  readonly #deferred: Array<{ text: string; options: PrepareOptions } & Pending> = [];
  #closed = false;

  /**
   * `inlineChars`: longer texts go to the worker (default INLINE_CHARS);
   * `inlineBudgetMs`: inline work per window, or per turn without a worker (default INLINE_BUDGET_MS);
   * `workerIdleMs`: the idle worker ends after this long (default WORKER_IDLE_MS).
   */
  constructor(options: { inlineChars?: number; inlineBudgetMs?: number; workerIdleMs?: number } = {}) {
    this.#inlineChars = options.inlineChars ?? INLINE_CHARS;
    this.#budgetMs = options.inlineBudgetMs ?? INLINE_BUDGET_MS;
    this.#idleMs = options.workerIdleMs ?? WORKER_IDLE_MS;
  }

  /** Whether long texts leave the event loop (false where the worker script is not built, as under tsx). */
  get threaded(): boolean {
    this.#threaded ??= existsSync(fileURLToPath(this.#script));
    return this.#threaded;
  }

  /** Whether the worker thread is running now (it starts on demand and ends when idle). */
  get workerRunning(): boolean {
    return this.#worker !== undefined;
  }

  readonly prepare: PrepareFn = (text, options) => {
    // Closed at a shutdown: a request that races it is told so (503), not "internal error".
    if (this.#closed) return Promise.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    const short = text.length <= this.#inlineChars;
    // While the worker holds texts a burst is on: short ones join it rather than take the loop back.
    if (short && this.#deferred.length === 0 && this.#pending.size === 0 && this.#withinBudget(text.length)) {
      try {
        return Promise.resolve(this.#inline(text, options));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    if (this.threaded) return this.#toWorker(text, options);
    // No worker: a later turn, in order.
    return new Promise<PreparedText>((resolve, reject) => {
      this.#deferred.push({ text, options, resolve, reject });
      this.#armTurn();
    });
  };

  /** Whether inline work may go on: the window's budget where a worker can take over, else this turn's. */
  #withinBudget(chars: number): boolean {
    if (!this.threaded) return this.#spentMs < this.#budgetMs;
    const now = performance.now();
    if (now - this.#windowAt >= INLINE_WINDOW_MS) {
      // Halved for every window gone by: one cold (unoptimized) first text must not send the next ones away.
      this.#msPerChar /= 2 ** Math.min(30, Math.floor((now - this.#windowAt) / INLINE_WINDOW_MS));
      this.#windowAt = now;
      this.#windowSpentMs = 0;
    }
    return this.#windowSpentMs + chars * this.#msPerChar < this.#budgetMs;
  }

  /** Prepare on this thread, counting the time against the budgets. */
  #inline(text: string, options: PrepareOptions): PreparedText {
    const t0 = performance.now();
    try {
      return prepareText(text, options);
    } finally {
      const ms = performance.now() - t0;
      this.#spentMs += ms;
      this.#windowSpentMs += ms;
      this.#msPerChar = Math.max(this.#msPerChar, ms / Math.max(text.length, 1));
      this.#armTurn();
    }
  }

  /** At the next turn: a fresh budget, spent first on the texts that waited. */
  #armTurn(): void {
    this.#turn ??= setImmediate(() => {
      this.#turn = undefined;
      this.#spentMs = 0;
      while (this.#deferred.length > 0 && this.#spentMs < this.#budgetMs && !this.#closed) {
        const d = this.#deferred.shift()!;
        try {
          d.resolve(this.#inline(d.text, d.options));
        } catch (err) {
          d.reject(err as Error);
        }
      }
      if (this.#deferred.length > 0) this.#armTurn();
    });
  }

  #toWorker(text: string, options: PrepareOptions): Promise<PreparedText> {
    const worker = this.#ensureWorker();
    clearTimeout(this.#idle);
    const id = this.#next++;
    return new Promise<PreparedText>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, text, options } satisfies PrepareRequest);
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#script);
    worker.unref();
    worker.on('message', (reply: PrepareReply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) this.#armIdle(worker);
      // A bug in cleanup, not a catalogue failure: code-less, it is answered VOX_ERR_INTERNAL and these words are logged (server.ts).
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.prepared);
    });
    const fail = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      clearTimeout(this.#idle);
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        // As above: VOX_ERR_INTERNAL on the wire, the worker's end in the log.
        p.reject(new Error(`text preparation failed: ${why}`));
      }
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => fail(`its worker exited with code ${code}`));
    this.#worker = worker;
    return worker;
  }

  /** An idle worker is a V8 isolate holding memory for nothing: it ends, and the next long text starts another. */
  #armIdle(worker: Worker): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.#idleMs);
    this.#idle.unref();
  }

  /** Fails whatever is still being prepared and stops the worker. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#idle);
    if (this.#turn) clearImmediate(this.#turn);
    this.#turn = undefined;
    for (const d of this.#deferred.splice(0)) d.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    }
    if (worker) await worker.terminate();
  }
}
