/**
 * The playback watchdog: a sink (a player) may take the audio's duration plus
 * a margin, max(graceMs, 50 %), to play it. Only the sink's own time counts:
 * while it waits for the engine to produce the next chunk the clock is
 * stopped (a slow engine has its own watchdog). A sink that has not finished
 * by then is cut (the dispatcher aborts it, which kills the player's group)
 * and the utterance fails, so a hanging player never holds the queue.
 */
import type { AudioFormat } from '../audio/pcm.js';

export class PlaybackWatchdog {
  readonly #bytesPerMs: number;
  readonly #graceMs: number;
  readonly #onExpire: () => void;
  #audioMs = 0;
  #sinkMs = 0;
  #armedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #done = false;
  expired = false;

  constructor(format: AudioFormat, graceMs: number, onExpire: () => void) {
    this.#bytesPerMs = (format.sampleRate * format.channels * (format.bitDepth / 8)) / 1000;
    this.#graceMs = graceMs;
    this.#onExpire = onExpire;
    this.#arm(); // the sink's set-up (starting a player) is its time too
  }

  /** Milliseconds of audio handed to the sink so far. */
  get audioMs(): number {
    return this.#audioMs;
  }

  /** What the sink may take for the audio handed to it so far. */
  get limitMs(): number {
    return this.#audioMs + Math.max(this.#graceMs, this.#audioMs / 2);
  }

  /** The chunks as the sink sees them: the clock runs only while the sink holds control. */
  watch(chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    const self = this;
    return (async function* () {
      const it = chunks[Symbol.asyncIterator]();
      try {
        for (;;) {
          self.#disarm(); // the sink asked for more: waiting for the engine is not its time
          const next = await it.next();
          if (next.done) return;
          self.#audioMs += next.value.length / self.#bytesPerMs;
          self.#arm();
          yield next.value;
        }
      } finally {
        self.#arm(); // all handed over: the rest is the sink playing it out
        await it.return?.();
      }
    })();
  }

  /** The sink's play() returned. */
  done(): void {
    this.#done = true;
    this.#disarm();
  }

  #arm(): void {
    if (this.#done || this.expired) return;
    this.#disarm();
    this.#armedAt = performance.now();
    this.#timer = setTimeout(
      () => {
        this.expired = true;
        this.#onExpire();
      },
      Math.max(0, this.limitMs - this.#sinkMs),
    );
  }

  #disarm(): void {
    if (this.#armedAt !== undefined) this.#sinkMs += performance.now() - this.#armedAt;
    this.#armedAt = undefined;
    clearTimeout(this.#timer);
  }
}
