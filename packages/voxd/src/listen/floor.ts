/**
 * The floor: who may use the microphone next. One holder at a time, the
 * others wait first come, first served, each for at most its own `waitMs`.
 * A holder may keep the floor for its follow-up turn (like VoiceMode's
 * conch): it then gets a token, and until that token is used, released or
 * left idle for `idleMs`, nobody else is handed the floor. A barge-in goes
 * to the head of the queue and takes a kept floor (the user asked to talk:
 * that outranks a session's reservation), but never cuts a holder that is
 * recording (that is the user speaking too).
 *
 * Pure bookkeeping (no audio, no HTTP): the listener asks for a grant, and
 * gives it back when its recording ends, so queued listeners record while
 * it transcribes.
 */
import { randomUUID } from 'node:crypto';
import { VoxError } from '../errors.js';

export interface Who {
  id: string;
  session?: string;
}

export interface AcquireOptions {
  who: Who;
  /** 0: refuse at once when taken (VOX_ERR_LISTEN_BUSY); else how long to queue. */
  waitMs: number;
  /** A token from a kept floor: goes first if it is still the one kept. */
  token?: string;
  /** Head of the queue, and take a kept floor. */
  bargeIn?: boolean;
  /** Aborted (client gone, stopped): leave the queue; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once, synchronously, when this waiter becomes the next in line (to get ready: listener.ts forks its recorder). */
  onNext?: () => void;
}

/** The floor while held; give it back once. */
export interface Grant {
  /** How long this listener queued, in ms. */
  waitedMs: number;
  /** Whether it came in with its kept floor's token. */
  followUp: boolean;
  /** Give the floor to the next in line. */
  release(): void;
  /** Keep it for a follow-up: returns the token. The idle clock starts with arm(). */
  keep(): string;
}

interface Waiter {
  who: Who;
  since: number;
  onNext?: () => void;
  grant(g: Grant): void;
  fail(err: unknown): void;
}

interface Kept {
  token: string;
  who: Who;
  timer?: NodeJS.Timeout;
  expiresAt?: number;
}

export class Floor {
  #held: Who | undefined;
  #kept: Kept | undefined;
  readonly #queue: Waiter[] = [];
  #log: ((obj: object, msg: string) => void) | undefined;

  constructor(log?: (obj: object, msg: string) => void) {
    this.#log = log;
  }

  /** Who holds the floor (recording, or between turns with it kept), how many wait, and the kept floor's idle time left. */
  get state(): { holder?: Who; queued: number; kept?: { session?: string; expiresInMs?: number } } {
    const k = this.#kept;
    const holder = this.#held ?? k?.who;
    return {
      ...(holder ? { holder } : {}),
      queued: this.#queue.length,
      ...(k
        ? {
            kept: {
              ...(k.who.session ? { session: k.who.session } : {}),
              ...(k.expiresAt ? { expiresInMs: Math.max(0, Math.round(k.expiresAt - performance.now())) } : {}),
            },
          }
        : {}),
    };
  }

  acquire(o: AcquireOptions): Promise<Grant> {
    const since = performance.now();
    if (o.signal?.aborted) return Promise.reject(o.signal.reason);
    const k = this.#kept;
    const mine = k !== undefined && o.token !== undefined && o.token === k.token;
    if (!this.#held && k && (mine || o.bargeIn)) {
      this.#unkeep(mine ? 'follow-up' : `barge-in by ${name(o.who)}`);
      return Promise.resolve(this.#grant(o.who, since, mine));
    }
    if (!this.#held && !this.#kept && this.#queue.length === 0)
      return Promise.resolve(this.#grant(o.who, since, false));
    const holder = this.#held ?? this.#kept!.who;
    if (o.waitMs <= 0) return Promise.reject(new VoxError('VOX_ERR_LISTEN_BUSY', name(holder)));
    return new Promise<Grant>((resolve, reject) => {
      const onAbort = () => leave(o.signal!.reason);
      const timer = setTimeout(() => {
        const now = this.#held ?? this.#kept?.who;
        leave(
          new VoxError(
            'VOX_ERR_LISTEN_WAIT_EXPIRED',
            String(o.waitMs),
            now ? name(now) : 'another listen',
            String(this.#queue.indexOf(waiter)),
          ),
        );
      }, o.waitMs);
      const done = () => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        who: o.who,
        since,
        grant: (g) => (done(), resolve(g)),
        fail: (err) => (done(), reject(err)),
      };
      const leave = (err: unknown) => {
        const at = this.#queue.indexOf(waiter);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        waiter.fail(err);
        this.#tellNext();
      };
      o.signal?.addEventListener('abort', onAbort, { once: true });
      if (o.onNext) waiter.onNext = o.onNext;
      if (o.bargeIn) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
      this.#tellNext();
    });
  }

  /** Start the idle clock of a kept floor (its holder has had its answer). */
  arm(token: string, idleMs: number): void {
    const k = this.#kept;
    if (!k || k.token !== token) return;
    clearTimeout(k.timer);
    k.expiresAt = performance.now() + idleMs;
    k.timer = setTimeout(() => {
      if (this.#kept !== k) return;
      this.#unkeep('idle');
      this.#next();
    }, idleMs);
  }

  /** Hand a kept floor on (POST /v1/listen/release). False when that token is not the one kept (used, expired, or never given). */
  release(token: string): boolean {
    if (this.#kept?.token !== token) return false;
    this.#unkeep('released');
    this.#next();
    return true;
  }

  /** Drop a kept floor whose holder matches (POST /v1/stop); the ids dropped. */
  drop(match: (w: Who) => boolean): string[] {
    const k = this.#kept;
    if (!k || !match(k.who)) return [];
    this.#unkeep('stopped');
    this.#next();
    return [k.who.id];
  }

  /** Fail every waiter that matches (stop, shutdown); the ids failed. */
  fail(match: (w: Who) => boolean, err: () => unknown): string[] {
    const gone = this.#queue.filter((w) => match(w.who));
    for (const w of gone) {
      this.#queue.splice(this.#queue.indexOf(w), 1);
      w.fail(err());
    }
    this.#tellNext();
    return gone.map((w) => w.who.id);
  }

  #grant(who: Who, since: number, followUp: boolean): Grant {
    this.#held = who;
    let done = false;
    const give = (keep: boolean): string | undefined => {
      if (done) return undefined;
      done = true;
      if (this.#held === who) this.#held = undefined;
      if (keep) {
        const token = `floor-${randomUUID()}`;
        this.#kept = { token, who };
        return token;
      }
      this.#next();
      return undefined;
    };
    return {
      waitedMs: Math.round(performance.now() - since),
      followUp,
      release: () => void give(false),
      keep: () => give(true) ?? '',
    };
  }

  #unkeep(why: string): void {
    const k = this.#kept;
    if (!k) return;
    clearTimeout(k.timer);
    this.#kept = undefined;
    this.#log?.({ id: k.who.id, session: k.who.session, why }, 'kept floor ended');
  }

  #next(): void {
    if (this.#held || this.#kept) return;
    const w = this.#queue.shift();
    if (!w) return;
    const g = this.#grant(w.who, w.since, false);
    this.#log?.({ id: w.who.id, session: w.who.session, waitedMs: g.waitedMs }, 'floor handed on');
    w.grant(g);
    this.#tellNext();
  }

  /** The head of the queue hears once that it is next. */
  #tellNext(): void {
    const w = this.#queue[0];
    const hook = w?.onNext;
    if (!hook) return;
    w.onNext = undefined;
    hook();
  }
}

function name(w: Who): string {
  return w.session ? `session ${w.session}` : `listen ${w.id} (no session)`;
}
