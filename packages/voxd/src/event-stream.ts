/**
 * The fan-out behind GET /v1/events: every dispatcher event, numbered, to
 * every subscriber, with a bounded buffer each.
 *
 * Design note: a client that stops reading (a `vox status --watch` suspended
 * with Ctrl-Z, a stalled script) must not grow voxd's memory. Each
 * subscriber may hold at most `maxBufferBytes` unsent; past that it is cut
 * off. Events carry an SSE `id:`, and the last `ringSize` events are kept, so
 * a client that reconnects with `Last-Event-ID` gets what it missed replayed,
 * or, when that has left the ring, a `gap` event that says how many events it
 * lost. Nothing is dropped silently. One listener on the dispatcher serves
 * every subscriber (no per-client listeners to trip Node's listener warning).
 */
import type { VoxEvent } from '@vox/protocol';

/** What a subscriber writes to: an HTTP response, in voxd. */
export interface EventSink {
  write(chunk: string | Uint8Array): boolean;
  readonly writableLength: number;
  end(): void;
  destroy(): void;
}

export interface EventStreamOptions {
  /** Most bytes a subscriber may leave unsent before it is cut off. Default 256 KiB. */
  maxBufferBytes?: number;
  /** Events kept for replay to a client that reconnects. Default 1024. */
  ringSize?: number;
  /** Called after a subscriber is cut off for falling behind. */
  onDrop?: () => void;
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

interface Numbered {
  seq: number;
  /** Encoded once, shared by every subscriber: no per-client copy of each event. */
  frame: Buffer;
}

export class EventStream {
  readonly #maxBuffer: number;
  readonly #ringSize: number;
  readonly #onDrop: (() => void) | undefined;
  readonly #ring: Numbered[] = [];
  #seq = 0;
  readonly #subscribers = new Set<EventSink>();
  /** A reconnecting client may hold its replay on top of the usual buffer, until that drains. */
  readonly #replayAllowance = new Map<EventSink, number>();
  /** Subscribers cut off for falling behind, since start. */
  dropped = 0;

  constructor(options: EventStreamOptions = {}) {
    this.#maxBuffer = options.maxBufferBytes ?? 256 * 1024;
    this.#ringSize = options.ringSize ?? 1024;
    this.#onDrop = options.onDrop;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /** Numbers `event`, keeps it for replay and sends it to every subscriber. */
  publish(event: VoxEvent): void {
    const seq = ++this.#seq;
    const frame = Buffer.from(`id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    this.#ring.push({ seq, frame });
    if (this.#ring.length > this.#ringSize) this.#ring.shift();
    for (const sink of this.#subscribers) this.#send(sink, frame);
  }

  /**
   * Adds `sink`. With `lastEventId` (a reconnect), first replays the events
   * after it, or sends a `gap` event when some are no longer kept.
   */
  subscribe(sink: EventSink, lastEventId?: string): void {
    this.#subscribers.add(sink);
    this.#send(sink, Buffer.from(': connected\n\n'));
    const last = lastEventId === undefined ? NaN : Number(lastEventId);
    if (!Number.isInteger(last) || last < 0 || last >= this.#seq) return;
    const oldest = this.#ring[0]?.seq ?? this.#seq + 1;
    if (last + 1 < oldest) {
      const missed = oldest - last - 1;
      this.#send(
        sink,
        Buffer.from(
          `event: gap\ndata: ${JSON.stringify({ type: 'gap', missed, after: last, resumedAt: oldest, reason: `${missed} events were not kept; this client fell behind or was away` })}\n\n`,
        ),
      );
    }
    const missed = this.#ring.filter((e) => e.seq > last);
    // The replay is bounded by the ring; it may sit on top of the usual buffer until it drains.
    this.#replayAllowance.set(sink, this.#maxBuffer + missed.reduce((n, e) => n + e.frame.length, 0));
    for (const e of missed) sink.write(e.frame);
  }

  unsubscribe(sink: EventSink): void {
    this.#subscribers.delete(sink);
    this.#replayAllowance.delete(sink);
  }

  /** A comment line to every subscriber (keeps proxies and idle timers from closing the stream). */
  heartbeat(): void {
    for (const sink of this.#subscribers) this.#send(sink, HEARTBEAT);
  }

  /** Ends every stream. */
  close(): void {
    for (const sink of this.#subscribers) sink.end();
    this.#subscribers.clear();
    this.#replayAllowance.clear();
  }

  #send(sink: EventSink, frame: Buffer): void {
    if (!this.#subscribers.has(sink)) return;
    let limit = this.#maxBuffer;
    const allowance = this.#replayAllowance.get(sink);
    if (allowance !== undefined) {
      if (sink.writableLength < this.#maxBuffer / 2) this.#replayAllowance.delete(sink);
      else limit = allowance;
    }
    if (sink.writableLength + frame.length > limit) {
      // Falling behind: cut it off now; its reconnect with Last-Event-ID is told what it missed.
      this.unsubscribe(sink);
      this.dropped++;
      sink.destroy();
      this.#onDrop?.();
      return;
    }
    sink.write(frame);
  }
}
