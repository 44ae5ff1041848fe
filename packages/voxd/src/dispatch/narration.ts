/**
 * Narration: a reply spoken while the model writes it. Each message is one
 * utterance that grows batch by batch (POST /v1/narration): its first batch
 * is admitted like any `text`, each later one adds the sentences it
 * completed (text/narration-text.ts). The player speaks what is there, then
 * the utterance waits out of the queue (`parked`) for more, and a long one
 * yields the voice at a sentence boundary once it has held it for its turn
 * (NARRATION_TURN_MS) while others wait (player.ts, queue.ts).
 *
 * Each batch is written to the journal before it is answered (the message's
 * record again, whole, with the text's state), and synced just after without
 * being waited for: a restarted voxd (even after `kill -9`, which keeps the
 * page cache) carries on mid-paragraph, no batch is lost, and a re-sent index
 * changes nothing. Only a power cut can lose the last batches.
 * Once a message's utterance has ended (a stop, a cut for a new prompt, a
 * barge-in), its later batches are answered `dropped` with why.
 *
 * Bounded: batches are taken in index order within a window
 * (narration-window.ts); a session narrates at most NARRATION_MAX_PER_SESSION
 * messages at once and voxd MAX_LIVE_NARRATIONS; a message speaks at most
 * NARRATION_MAX_MESSAGE_CHARS, then says the rest is on the screen and ends,
 * so its memory and its journal record stay bounded.
 */
import {
  DEFAULT_DEDUP_SECONDS,
  NARRATION_HOLD_BATCHES,
  NARRATION_HOLD_MS,
  NARRATION_MAX_MESSAGE_CHARS,
  NARRATION_MAX_PER_SESSION,
  type NarratingStatusField,
  type NarrationRequest,
  type NarrationResponse,
} from '@vox/protocol';
import { VoxError } from '../errors.js';
import { initialState } from '../text/narration-text.js';
import type { Admission } from './admission.js';
import type { NarrationMark } from './journal-records.js';
import { advance, heldOf, overReason, skippedReason, windowOf } from './narration-growth.js';
import { arrive, dueAt, release, wasSkipped, type Release, type Window } from './narration-window.js';
import type { Ledger } from './ledger.js';
import type { Player } from './player.js';
import type { SpeechQueue } from './queue.js';
import type { UtteranceJournal } from './utterance-journal.js';
import type { Utterance } from './utterance.js';

export interface NarrationOptions {
  admission: Admission;
  queue: SpeechQueue<Utterance>;
  player: Player;
  ledger: Ledger;
  journal: UtteranceJournal;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void } | undefined;
  /** Why a session's narration is held (attention.ts: a background session), or undefined. */
  holds?: (session: string) => string | undefined;
  /** NARRATION_IDLE_MS, for tests. */
  idleMs?: number;
  /** MAX_LIVE_NARRATIONS, for tests. */
  maxLive?: number;
  /** NARRATION_MAX_PER_SESSION, for tests. */
  maxPerSession?: number;
  /** NARRATION_HOLD_BATCHES and NARRATION_HOLD_MS, for tests. */
  holdBatches?: number;
  holdMs?: number;
  /** NARRATION_MAX_MESSAGE_CHARS, for tests. */
  maxMessageChars?: number;
}

/** Messages remembered after their utterance ended, so their late batches are answered why. */
const ENDED_KEPT = 256;

/** Most messages narrated at once (waiting, queued or playing): past it a new one is refused (503). */
export const MAX_LIVE_NARRATIONS = 256;

/** A message that waits this long for its next batch ended unfinished (its session crashed or quit), in ms. */
export const NARRATION_IDLE_MS = 120_000;

export class Narration {
  readonly #o: NarrationOptions;
  /** The utterance of each message narrated, by session and message. */
  readonly #live = new Map<string, Utterance>();
  /** Why each recently ended message says no more. */
  readonly #ended = new Map<string, string>();
  /** Batches of one message are taken one at a time, in arrival order. */
  readonly #turns = new Map<string, Promise<unknown>>();
  /** When each live message's last batch came (performance.now()). */
  readonly #lastBatch = new Map<Utterance, number>();
  /** The timer of each message that holds batches: when the oldest has waited its time. */
  readonly #holds = new Map<string, NodeJS.Timeout>();
  #sweeper: NodeJS.Timeout | undefined;

  readonly #idleMs: number;
  readonly #window: { batches: number; ms: number };

  constructor(options: NarrationOptions) {
    this.#o = options;
    this.#idleMs = options.idleMs ?? NARRATION_IDLE_MS;
    this.#window = { batches: options.holdBatches ?? NARRATION_HOLD_BATCHES, ms: options.holdMs ?? NARRATION_HOLD_MS };
  }

  /** Take one batch of a message. */
  batch(req: NarrationRequest): Promise<NarrationResponse> {
    const key = keyOf(req.session, req.message);
    return this.#inTurn(key, () => this.#take(key, req));
  }

  /** Steps on one message are taken one at a time, in arrival order. */
  #inTurn<T>(key: string, step: () => Promise<T> | T): Promise<T> {
    const turn = (this.#turns.get(key) ?? Promise.resolve()).then(step);
    const tail = turn.catch(() => undefined);
    this.#turns.set(key, tail);
    void tail.then(() => {
      if (this.#turns.get(key) === tail) this.#turns.delete(key);
    });
    return turn;
  }

  /** End what `session` narrates (a new prompt): playing, queued or waiting for its next batch. */
  cut(session: string, why = 'cut: a new prompt in the session'): string[] {
    const cut: string[] = [];
    for (const [key, u] of this.#live) {
      if (u.session !== session || u.settled) continue;
      cut.push(u.id);
      this.#end(key, u, why);
    }
    return cut;
  }

  /** Settle the waiting (parked) narrations that `match` selects, for a stop. */
  stopParked(match: (u: Utterance) => boolean, reason: string): string[] {
    const out: string[] = [];
    for (const u of this.#live.values()) {
      if (!u.parked || u.settled || !match(u)) continue;
      u.unpark();
      out.push(u.id);
      this.#o.ledger.settle(u, 'stopped', reason);
    }
    return out;
  }

  /** The narrations waiting for their next batch (at a shutdown they are handed over, or fail). */
  parked(): Utterance[] {
    return [...this.#live.values()].filter((u) => u.parked && !u.settled);
  }

  /** The parked narrations for status: how many, the first `limit` of them (oldest batch first), what each has spoken and how long it waits. */
  waiting(limit: number): NarratingStatusField['narrating'] & object {
    const now = performance.now();
    const all = this.parked().sort((a, b) => (this.#lastBatch.get(a) ?? now) - (this.#lastBatch.get(b) ?? now));
    return {
      length: all.length,
      items: all.slice(0, limit).map((u) => ({
        id: u.id,
        session: u.session!,
        spoken: u.current,
        waitingMs: Math.round(now - (this.#lastBatch.get(u) ?? now)),
      })),
    };
  }

  /** Narrations the journal replayed: their next batches carry on where they were. */
  adopt(utterances: Iterable<Utterance>): void {
    for (const u of utterances) {
      if (!u.narration || !u.session || u.settled) continue;
      const key = keyOf(u.session, u.narration.message);
      this.#live.set(key, u);
      this.#lastBatch.set(u, performance.now());
      this.#holdTimer(key, u.narration);
      this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(this.#idleMs / 4, 30_000)).unref();
    }
  }

  async #take(key: string, req: NarrationRequest): Promise<NarrationResponse> {
    const r = await this.#takeBatch(key, req);
    const u = this.#live.get(key);
    if (u && !u.settled) {
      this.#lastBatch.set(u, performance.now());
      this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(this.#idleMs / 4, 30_000)).unref();
    }
    return r;
  }

  /** Messages whose next batch never came end as `expired`, so that none waits forever. */
  #sweep(): void {
    const now = performance.now();
    for (const [key, u] of this.#live) {
      const last = this.#lastBatch.get(u) ?? now;
      if (u.settled) {
        this.#lastBatch.delete(u);
        continue;
      }
      if (!u.parked || now - last < this.#idleMs) continue;
      this.#live.delete(key);
      this.#lastBatch.delete(u);
      u.unpark();
      const why = `no batch for ${Math.round(this.#idleMs / 1000)} s: the message ended unfinished (its session quit or crashed)`;
      this.#remember(key, `the narration of this message ended: ${why}`);
      this.#o.ledger.settle(u, 'expired', why);
    }
    if (this.#live.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  async #takeBatch(key: string, req: NarrationRequest): Promise<NarrationResponse> {
    const u = this.#live.get(key);
    if (u?.settled) {
      this.#live.delete(key);
      this.#remember(
        key,
        `the narration of this message ended (${u.result?.status ?? 'settled'}${u.result?.reason ? `: ${u.result.reason}` : ''})`,
      );
    }
    if (u?.settled && u.narration?.over) this.#remember(key, overReason(this.#maxChars));
    if (u && wasSkipped(u.narration?.skipped, req.index))
      return { id: u.id, status: 'dropped', sentences: 0, reason: skippedReason(req.index, this.#window) };
    const ended = this.#ended.get(key);
    if (ended) return { ...(u ? { id: u.id } : {}), status: 'dropped', sentences: 0, reason: ended };
    if (u && !u.settled) return this.#grow(key, u, req);
    return this.#start(key, req);
  }

  async #start(key: string, req: NarrationRequest): Promise<NarrationResponse> {
    // Messages that ended are forgotten here (kept only as why they ended): the map holds what lives.
    let ofSession = 0;
    for (const [k, v] of this.#live) {
      if (!v.settled) {
        // Open messages only: one whose last batch came is speech in the queue like any other, bounded there.
        if (v.session === req.session && !v.narration?.final) ofSession++;
        continue;
      }
      this.#live.delete(k);
      this.#remember(k, `the narration of this message ended (${v.result?.status ?? 'settled'})`);
    }
    if (this.#live.size >= (this.#o.maxLive ?? MAX_LIVE_NARRATIONS))
      throw new VoxError('VOX_ERR_QUEUE_FULL', `${this.#live.size} narrated messages and more`);
    if (ofSession >= (this.#o.maxPerSession ?? NARRATION_MAX_PER_SESSION))
      throw new VoxError('VOX_ERR_NARRATION_SESSION_FULL', JSON.stringify(req.session), ofSession);
    const w: Window = { next: 0, held: [], skipped: [] };
    const r = arrive(w, heldOf(req), this.#window) as Release;
    this.#logSkipped(req.session, req.message, undefined, r);
    const { added: sentences, mark } = advance(
      { message: req.message, index: -1, final: false, state: initialState() },
      w,
      r,
      0,
      this.#maxChars,
    );
    const text = sentences.join(' ');
    // A background session's message is held whole: its first sentences are kept for the digest, the rest dropped.
    const held = this.#o.holds?.(req.session);
    if (held && !text) return { status: 'dropped', sentences: 0, reason: held };
    const { response } = await this.#o.admission.speech(
      {
        text: text || '(narration)',
        session: req.session,
        priority: 'text',
        dedupKey: `narration:${key}`,
        once: DEFAULT_DEDUP_SECONDS,
        ...pickVoice(req),
      },
      { prepared: { text, sentences }, mark, ...(held ? { held } : {}) },
    );
    if (response.status === 'held') this.#remember(key, held!);
    if (response.status !== 'queued')
      return {
        id: response.id,
        status: 'dropped',
        sentences: 0,
        reason: response.reason ?? `not taken (${response.status})`,
      };
    const u = this.#o.ledger.byId.get(response.id);
    if (u) {
      this.#live.set(key, u);
      if (mark.final && u.parked) this.#finishParked(u);
      this.#holdTimer(key, mark);
    }
    return { id: response.id, status: 'queued', sentences: sentences.length };
  }

  async #grow(key: string, u: Utterance, req: NarrationRequest): Promise<NarrationResponse> {
    const mark = u.narration!;
    if (mark.over) return { id: u.id, status: 'dropped', sentences: 0, reason: overReason(this.#maxChars) };
    const w = windowOf(mark);
    const r = arrive(w, heldOf(req), this.#window);
    if (r === 'repeated') return { id: u.id, status: 'repeated', sentences: 0 };
    if (r === 'skipped')
      return { id: u.id, status: 'dropped', sentences: 0, reason: skippedReason(req.index, this.#window) };
    return this.#apply(key, u, w, r);
  }

  /** The batches held by a message whose window has waited its time: the missing ones are skipped. */
  #releaseDue(key: string): void {
    this.#holds.delete(key);
    const u = this.#live.get(key);
    if (!u || u.settled || !u.narration?.held?.length) return;
    const w = windowOf(u.narration);
    this.#apply(key, u, w, release(w, Date.now(), this.#window));
  }

  /** Take what the window let through (`r`), journaled before it is answered. */
  #apply(key: string, u: Utterance, w: Window, r: Release): NarrationResponse {
    this.#logSkipped(u.session, u.narration!.message, u.id, r);
    const { added, mark: next } = advance(u.narration!, w, r, u.text.length, this.#maxChars);
    const sentences = [...u.sentences, ...added];
    const text = added.length ? (u.text ? `${u.text} ${added.join(' ')}` : added.join(' ')) : u.text;
    // Written before the caller hears "queued"; a journal that cannot take it refuses the batch (503), and nothing changed.
    this.#o.journal.grow(u, { sentences, text, narration: next });
    u.grow(added, text, next);
    if (u.parked) {
      if (u.current < u.sentences.length) {
        u.unpark();
        this.#o.queue.pushBack(u);
        this.#o.player.kick();
      } else if (next.final) this.#finishParked(u);
    }
    this.#holdTimer(key, next);
    return { id: u.id, status: 'queued', sentences: added.length };
  }

  /** A message that holds batches is looked at again when the oldest has waited its time. */
  #holdTimer(key: string, mark: NarrationMark): void {
    clearTimeout(this.#holds.get(key));
    this.#holds.delete(key);
    const due = mark.held?.length ? dueAt({ held: mark.held }, this.#window) : undefined;
    if (due === undefined) return;
    const timer = setTimeout(
      () =>
        void this.#inTurn(key, () => this.#releaseDue(key)).catch((err: Error) =>
          this.#o.log?.warn({ message: mark.message, err: err.message }, 'held narration batches could not be taken'),
        ),
      Math.max(0, due - Date.now()),
    ).unref();
    this.#holds.set(key, timer);
  }

  #logSkipped(session: string | undefined, message: string, id: string | undefined, r: Release): void {
    if (r.skipped.length)
      this.#o.log?.warn({ id, session, message, skipped: r.skipped }, 'narration batches skipped: not come in time');
  }

  get #maxChars(): number {
    return this.#o.maxMessageChars ?? NARRATION_MAX_MESSAGE_CHARS;
  }

  /** A message whose last batch came while it waited with everything played. */
  #finishParked(u: Utterance): void {
    u.unpark();
    if (u.sentences.length === 0)
      this.#o.ledger.settle(
        u,
        'dropped',
        'nothing left to say after cleanup (the message was only code, emoji, markup or punctuation)',
      );
    else this.#o.ledger.settle(u, 'played');
  }

  #end(key: string, u: Utterance, why: string): void {
    this.#remember(key, `the narration of this message was ${why}`);
    this.#live.delete(key);
    if (this.#o.player.playing === u) {
      this.#o.player.abort('stopped', why);
    } else if (u.parked) {
      u.unpark();
      this.#o.ledger.settle(u, 'stopped', why);
    } else if (this.#o.queue.remove(u)) {
      this.#o.ledger.settle(u, 'stopped', why);
    }
  }

  #remember(key: string, why: string): void {
    this.#ended.set(key, why);
    if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value!);
  }
}

function keyOf(session: string, message: string): string {
  return `${session}\u0000${message}`;
}

function pickVoice(
  req: NarrationRequest,
): Partial<Pick<NarrationRequest, 'voice' | 'rate' | 'volume' | 'engine' | 'model'>> {
  const out: Partial<Pick<NarrationRequest, 'voice' | 'rate' | 'volume' | 'engine' | 'model'>> = {};
  for (const k of ['voice', 'rate', 'volume', 'engine', 'model'] as const)
    if (req[k] !== undefined) (out as Record<string, unknown>)[k] = req[k];
  return out;
}
