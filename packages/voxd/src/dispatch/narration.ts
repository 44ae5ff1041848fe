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
 */
import {
  DEFAULT_DEDUP_SECONDS,
  redactSecrets,
  type NarratingStatusField,
  type NarrationRequest,
  type NarrationResponse,
} from '@vox/protocol';
import { VoxError } from '../errors.js';
import { initialState, narrate, type NarrationState } from '../text/narration-text.js';
import type { Admission } from './admission.js';
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
  /** NARRATION_IDLE_MS, for tests. */
  idleMs?: number;
  /** MAX_LIVE_NARRATIONS, for tests. */
  maxLive?: number;
}

/** Messages remembered after their utterance ended, so their late batches are answered why. */
const ENDED_KEPT = 256;

/** Most messages narrated at once (waiting, queued or playing): past it a new one is refused (503). */
export const MAX_LIVE_NARRATIONS = 256;

/** A message that waits this long for its next batch ended unfinished (its session crashed or quit), in ms. */
export const NARRATION_IDLE_MS = 120_000;

/** Nothing but punctuation and spaces (as admission.ts). */
const UNSPEAKABLE = /^[\p{P}\s]*$/u;

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
  #sweeper: NodeJS.Timeout | undefined;

  readonly #idleMs: number;

  constructor(options: NarrationOptions) {
    this.#o = options;
    this.#idleMs = options.idleMs ?? NARRATION_IDLE_MS;
  }

  /** Take one batch of a message. */
  batch(req: NarrationRequest): Promise<NarrationResponse> {
    const key = keyOf(req.session, req.message);
    const turn = (this.#turns.get(key) ?? Promise.resolve()).then(() => this.#take(key, req));
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
      this.#live.set(keyOf(u.session, u.narration.message), u);
      this.#lastBatch.set(u, performance.now());
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
    const ended = this.#ended.get(key);
    if (ended) return { ...(u ? { id: u.id } : {}), status: 'dropped', sentences: 0, reason: ended };
    if (u && !u.settled) return this.#grow(u, req);
    return this.#start(key, req);
  }

  async #start(key: string, req: NarrationRequest): Promise<NarrationResponse> {
    // Messages that ended are forgotten here (kept only as why they ended): the map holds what lives.
    for (const [k, v] of this.#live) {
      if (!v.settled) continue;
      this.#live.delete(k);
      this.#remember(k, `the narration of this message ended (${v.result?.status ?? 'settled'})`);
    }
    if (this.#live.size >= (this.#o.maxLive ?? MAX_LIVE_NARRATIONS))
      throw new VoxError('VOX_ERR_QUEUE_FULL', `${this.#live.size} narrated messages and more`);
    const state = initialState();
    const sentences = speakable(narrate(state, req.delta, req.final)).map(unsecret);
    const mark = { message: req.message, index: req.index, final: req.final, state };
    const text = sentences.join(' ');
    const { response } = await this.#o.admission.speech(
      {
        text: text || '(narration)',
        session: req.session,
        priority: 'text',
        dedupKey: `narration:${key}`,
        once: DEFAULT_DEDUP_SECONDS,
        ...pickVoice(req),
      },
      { prepared: { text, sentences }, mark },
    );
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
      if (req.final && u.parked) this.#finishParked(u);
    }
    return { id: response.id, status: 'queued', sentences: sentences.length };
  }

  async #grow(u: Utterance, req: NarrationRequest): Promise<NarrationResponse> {
    const mark = u.narration!;
    if (req.index <= mark.index) return { id: u.id, status: 'repeated', sentences: 0 };
    if (req.index > mark.index + 1)
      this.#o.log?.warn(
        { id: u.id, session: u.session, after: mark.index, index: req.index },
        'narration batches missing; going on from this one',
      );
    const state: NarrationState = structuredClone(mark.state);
    const added = speakable(narrate(state, req.delta, req.final)).map(unsecret);
    const next = { message: mark.message, index: req.index, final: req.final || mark.final, state };
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
    return { id: u.id, status: 'queued', sentences: added.length };
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

function speakable(sentences: string[]): string[] {
  return sentences.filter((s) => !UNSPEAKABLE.test(s));
}

function pickVoice(
  req: NarrationRequest,
): Partial<Pick<NarrationRequest, 'voice' | 'rate' | 'volume' | 'engine' | 'model'>> {
  const out: Partial<Pick<NarrationRequest, 'voice' | 'rate' | 'volume' | 'engine' | 'model'>> = {};
  for (const k of ['voice', 'rate', 'volume', 'engine', 'model'] as const)
    if (req[k] !== undefined) (out as Record<string, unknown>)[k] = req[k];
  return out;
}

/** A sentence with its secrets said as their kind: what is spoken, kept in history and journaled. */
function unsecret(sentence: string): string {
  return redactSecrets(sentence).text;
}
