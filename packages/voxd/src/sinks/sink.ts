/**
 * The contract of an audio sink. A sink plays one utterance at a time; the
 * player never calls `play` while another `play` is pending.
 *
 * Honesty rule: `state().ok` is what the last real attempt did (a playback,
 * or a probe of the device), never a guess. `check()` is asked before a
 * request is accepted: when the last attempt failed it tries again (a probe),
 * so a sink that cannot play makes voxd refuse at once with the cause and the
 * fix, and a sink that was repaired is used again without a restart.
 */
import type { AudioFormat } from '../audio/pcm.js';
import { VoxError } from '../errors.js';

/**
 * A sink's failure to play, in its own words: the player settles the
 * utterance `failed` with this code and these words as its reason
 * (dispatch/player.ts), as it did before they had a code.
 */
export class SinkError extends VoxError {
  constructor(message: string) {
    super('VOX_ERR_PLAYBACK_FAILED', { message });
  }
}

/**
 * Whether what a sink caught while it played is the audio's own failure (an
 * engine that died mid-stream, engines/engine.ts's EngineError, or the speech
 * stream's watchdog): not the sink's, so a sink passes it on as it is and
 * keeps it out of its state.
 */
export function audioFailed(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'VOX_ERR_SYNTHESIS_FAILED';
}

export interface SinkState {
  name: string;
  ok: boolean;
  detail?: string;
  /** Why the last attempt failed. */
  lastError?: string;
  /** What the user can do about it. */
  fix?: string;
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
   * Can the sink play now? Cheap when the last attempt succeeded; otherwise
   * a fresh probe, whose result becomes the state.
   */
  check(): Promise<SinkState>;
  /**
   * Play the chunks. Resolves when the audio has been played (or the signal
   * aborted it, within 100 ms); rejects when the device fails.
   */
  play(
    format: AudioFormat,
    chunks: AsyncIterable<Buffer>,
    signal: AbortSignal,
    meta: { id: string },
  ): Promise<PlayResult>;
  close(): Promise<void>;
}

/*
 * The fixes name "vox daemon config set", never VOXD_AUDIO: a voxd that a
 * client starts takes its settings from that file, not from the variable.
 */

/** What to do when no audio output works at all: a player, or files. */
export const NO_OUTPUT_FIX =
  'install a player command (apt-get install alsa-utils, or pulseaudio-utils), or write WAV files instead with "vox daemon config set audio file:DIR"';

/** What to do when a device output was there but failed: the device, the sound server, or files. */
export const DEVICE_FIX =
  'check the sound card and the sound server (PipeWire, PulseAudio) with "vox doctor", or write WAV files instead with "vox daemon config set audio file:DIR"';

/** What to do when the audio library loads but finds no device to open: a player would find none either. */
export const NO_DEVICE_FIX =
  'connect a sound card (ALSA lists none: "aplay -l"), or start a sound server (PipeWire or PulseAudio) with its player (apt-get install pulseaudio-utils), or write WAV files instead with "vox daemon config set audio file:DIR"';

/** The words audio-io's addon uses when the system cannot open its default output. */
export const OPEN_FAILED = 'Failed to open audio device';

/** audio-io's open failure with what it means: the library loaded, so the device is what is missing. */
export function nameMissingDevice(message: string, platform: NodeJS.Platform = process.platform): string {
  if (message !== OPEN_FAILED) return message;
  return `${message} (no sound device: ${platform === 'linux' ? "ALSA could not open 'default'" : 'the system could not open its default output'})`;
}
