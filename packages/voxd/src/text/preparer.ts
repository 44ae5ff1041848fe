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

/** Cleanup and sentences on this thread. */
export function prepareText(text: string, options: PrepareOptions): PreparedText {
  const spoken = cleanForSpeech(text, { keepTags: options.keepTags, ...(options.maxChars ? { maxChars: options.maxChars } : {}) });
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
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  /** `inlineChars`: longer texts go to the worker (default INLINE_CHARS). */
  constructor(options: { inlineChars?: number } = {}) {
    this.#inlineChars = options.inlineChars ?? INLINE_CHARS;
  }

  /** Whether long texts leave the event loop (false where the worker script is not built, as under tsx). */
  get threaded(): boolean {
    return existsSync(fileURLToPath(this.#script));
  }

  readonly prepare: PrepareFn = (text, options) => {
    // Closed at a shutdown: a request that races it is told so (503), not "internal error".
    if (this.#closed) return Promise.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    if (text.length <= this.#inlineChars || !this.threaded) {
      try {
        return Promise.resolve(prepareText(text, options));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    const worker = this.#ensureWorker();
    const id = this.#next++;
    return new Promise<PreparedText>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, text, options } satisfies PrepareRequest);
    });
  };

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#script);
    worker.unref();
    worker.on('message', (reply: PrepareReply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      // A bug in cleanup, not a catalogue failure: code-less, it is answered VOX_ERR_INTERNAL and these words are logged (server.ts).
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.prepared);
    });
    const fail = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
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

  /** Fails whatever is still being prepared and stops the worker. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(new VoxError('VOX_ERR_SHUTTING_DOWN'));
    }
    if (worker) await worker.terminate();
  }
}
