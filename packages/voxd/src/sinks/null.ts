/** `null` — discards audio at once. For benchmarks and machines that must stay silent. */
import type { AudioFormat } from '../audio/pcm.js';
import type { PlayResult, Sink, SinkState } from './sink.js';

export class NullSink implements Sink {
  readonly name = 'null';
  state(): SinkState {
    return { name: this.name, ok: true, detail: 'audio is discarded' };
  }
  async check(): Promise<SinkState> {
    return this.state();
  }
  async play(_format: AudioFormat, chunks: AsyncIterable<Buffer>, signal: AbortSignal): Promise<PlayResult> {
    let bytes = 0;
    let firstAudioAt: number | undefined;
    for await (const chunk of chunks) {
      if (signal.aborted) break;
      firstAudioAt ??= performance.now();
      bytes += chunk.length;
    }
    return { aborted: signal.aborted, bytes, ...(firstAudioAt !== undefined ? { firstAudioAt } : {}) };
  }
  async close(): Promise<void> {}
}
