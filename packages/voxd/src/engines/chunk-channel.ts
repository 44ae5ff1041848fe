/**
 * PCM chunks that arrive from an engine's worker or child process, handed to
 * the one reader of a synthesis as an async iterator. A chunk, an error (the
 * stream ends with it) or `null` (the stream ends) may come before the reader
 * asks; nothing is lost either way.
 */
export class ChunkChannel {
  readonly #queue: Array<Buffer | Error | null> = [];
  #wake: (() => void) | undefined;

  push(item: Buffer | Error | null): void {
    this.#queue.push(item);
    this.#wake?.();
  }

  /** The chunks in order; `done` runs when the reader stops, however it stops. */
  async *read(done?: () => void): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const next = this.#queue.shift();
        if (next === undefined) {
          await new Promise<void>((r) => (this.#wake = r));
          this.#wake = undefined;
          continue;
        }
        if (next === null) return;
        if (next instanceof Error) throw next;
        yield next;
      }
    } finally {
      done?.();
    }
  }
}
