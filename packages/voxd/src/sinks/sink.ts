/**
 * The contract of an audio sink. A sink plays one utterance at a time; the
 * player never calls `play` while another `play` is pending.
 */
import type { AudioFormat } from '../engines/engine.js';

export interface SinkState {
  name: string;
  ok: boolean;
  detail?: string;
  lastError?: string;
}

export interface PlayResult {
  /** True when the signal cut the audio short. */
  aborted: boolean;
  /** Bytes of PCM handed to the device. */
  bytes: number;
  /** performance.now() when the first PCM reached the device, if any did. */
  firstAudioAt?: number;
}

export interface Sink {
  readonly name: string;
  state(): SinkState;
  /**
   * Play the chunks. Resolves when the audio has been played (or the signal
   * aborted it, within 100 ms); rejects when the device fails.
   */
  play(format: AudioFormat, chunks: AsyncIterable<Buffer>, signal: AbortSignal, meta: { id: string }): Promise<PlayResult>;
  close(): Promise<void>;
}
