/**
 * The default sink (VOXD_AUDIO unset): the first output that works, in order
 * audio-io (nothing to compile), then `speaker` (which itself falls back to
 * the player commands paplay, pw-play, aplay, afplay). The choice is made by
 * probing, and made again after a failed playback, so a device that comes
 * back, or a player installed later, is used without a restart.
 */
import type { AudioFormat } from '../audio/pcm.js';
import { NO_DEVICE_FIX, NO_OUTPUT_FIX, SinkError, type PlayResult, type Sink, type SinkState } from './sink.js';

export class AutoSink implements Sink {
  readonly name = 'auto';
  readonly #candidates: Sink[];
  #chosen: Sink | undefined;
  #checked = false;

  constructor(candidates: Sink[]) {
    this.#candidates = candidates;
  }

  /** The sink that plays now, if one works. */
  get chosen(): Sink | undefined {
    return this.#chosen;
  }

  state(): SinkState {
    if (this.#chosen) {
      const s = this.#chosen.state();
      return { ...s, name: `auto:${s.name}`, detail: `${s.name}${s.detail ? ` (${s.detail})` : ''}` };
    }
    if (!this.#checked) return { name: this.name, ok: true, detail: 'not probed yet' };
    const why = this.#candidates.map((c) => c.state().lastError ?? `${c.name}: failed`).join('; ');
    // audio-io's cause first when it is the machine's (no libasound2, or no device, which no player
    // would find either); else the last resort's own fix: install a player when there is none,
    // look at the device when an installed player failed.
    const fixes = this.#candidates
      .map((c) => c.state().fix)
      .filter((f): f is string => !!f && (f.includes('libasound2') || f === NO_DEVICE_FIX));
    return {
      name: this.name,
      ok: false,
      detail: 'no audio output works',
      lastError: why,
      fix: fixes[0] ?? this.#candidates.at(-1)?.state().fix ?? NO_OUTPUT_FIX,
    };
  }

  #checking: Promise<SinkState> | undefined;

  /** One probe at a time: the candidates own one device each. */
  check(): Promise<SinkState> {
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #check(): Promise<SinkState> {
    if (this.#chosen?.state().ok) return this.state();
    this.#chosen = undefined;
    for (const c of this.#candidates) {
      if ((await c.check()).ok) {
        this.#chosen = c;
        break;
      }
    }
    this.#checked = true;
    return this.state();
  }

  async play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    meta: { id: string },
  ): Promise<PlayResult> {
    if (!this.#chosen) await this.check();
    const sink = this.#chosen;
    if (!sink) throw new SinkError(`no audio output: ${this.state().lastError}`);
    // A failure fails this utterance (its state says why); the next check chooses again.
    return sink.play(format, chunks, signal, meta);
  }

  async close(): Promise<void> {
    for (const c of this.#candidates) await c.close().catch(() => {});
  }
}
