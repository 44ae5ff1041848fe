/**
 * The quiet gate: "hold everything" at the player. While any reason holds it
 * (the person paused vox with a media key, another program records from the
 * microphone, quiet hours), nothing new starts, the utterance playing is cut
 * to resume later from its sentence, and an ask (an `important` request: a
 * permission prompt, a question) is announced by a chime once and waits.
 * Everything else queues as usual (and may expire, so a recap finds it).
 *
 * A gate of its own, not a listen's hold (player.ts Hold): a hold is one
 * listen's, bounded in time, and lets its question through; the gate lasts as
 * long as its reasons, which are independent of each other. Per-session
 * holding (attention, digests) lives elsewhere: this gate holds all speech.
 */
import { EventEmitter } from 'node:events';
import type { QuietReason } from '@vox/protocol';

export interface QuietGateEvents {
  change: [held: boolean];
}

export class QuietGate extends EventEmitter<QuietGateEvents> {
  readonly #reasons = new Map<QuietReason, string>();
  #wakers: Array<() => void> = [];
  /** The asks announced by a chime already: each is chimed once per hold. */
  #chimed = new WeakSet<object>();

  get held(): boolean {
    return this.#reasons.size > 0;
  }

  /** The reasons holding speech, with what each says (`vox status`). */
  reasons(): Array<{ reason: QuietReason; detail: string }> {
    return [...this.#reasons].map(([reason, detail]) => ({ reason, detail }));
  }

  has(reason: QuietReason): boolean {
    return this.#reasons.has(reason);
  }

  /** Hold (`detail` says why) or release for `reason`; the others stand. */
  set(reason: QuietReason, detail: string | false): void {
    const was = this.held;
    if (detail === false) {
      if (!this.#reasons.delete(reason)) return;
    } else {
      const same = this.#reasons.get(reason) === detail;
      this.#reasons.set(reason, detail);
      if (same) return;
    }
    if (!this.held) this.#chimed = new WeakSet();
    if (was !== this.held) this.emit('change', this.held);
    this.poke();
  }

  /** Resolves at the next change or poke (new speech queued): the player looks again. */
  wake(): Promise<void> {
    if (!this.held) return Promise.resolve();
    return new Promise((r) => this.#wakers.push(r));
  }

  poke(): void {
    const w = this.#wakers;
    this.#wakers = [];
    for (const r of w) r();
  }

  /** True the first time `ask` is seen while held: it gets its chime. */
  firstSight(ask: object): boolean {
    if (this.#chimed.has(ask)) return false;
    this.#chimed.add(ask);
    return true;
  }
}
