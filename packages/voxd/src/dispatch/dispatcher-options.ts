/**
 * What a Dispatcher is built with (dispatcher.ts): its parts and limits, most
 * of them injected so that tests control them.
 */
import type { QuietGate } from '../quiet/gate.js';
import type { Sink } from '../sinks/sink.js';
import type { Synthesizer } from '../synthesis/synthesizer.js';
import type { PrepareFn } from '../text/preparer.js';
import type { VoiceAssignment } from '../voices/assignment.js';
import type { AttentionOptions } from './attention.js';
import type { Journal } from './journal.js';
import type { Recall } from './recall.js';

export interface DispatcherOptions {
  synthesizer: Synthesizer;
  sink: Sink;
  /**
   * Turns a request's text into the text spoken and its sentences; `keepTags`
   * when the engine performs expressive tags. Default: the text as given.
   */
  prepare?: PrepareFn;
  /** Wall clock in ms; injected so tests control the duplicate window. */
  clock?: () => number;
  /** Most requests waiting at once. Default 10000. */
  maxQueue?: number;
  /** History entries kept for status. Default 200. */
  historySize?: number;
  /** Fail an utterance whose engine yields no audio for this long, in ms. Default 30000. */
  synthesisTimeoutMs?: number;
  /** A sink may take the audio's duration plus max(this, 50 %) to play it, in ms. Default 2000. */
  playbackGraceMs?: number;
  log?: {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
  };
  /** Where accepted requests are kept across restarts; none by default (nothing survives a restart). */
  journal?: Journal;
  /** Each session's own voice (voices/assignment.ts); none: a request without a voice gets the engine's default. */
  voices?: VoiceAssignment;
  /** What was heard and missed (recall.ts); default: kept in memory only. */
  recall?: Recall;
  /** The daemon settings `attention` and `digestMs` (attention.ts; timers for tests); default `all`. */
  attention?: Pick<AttentionOptions, 'mode' | 'digestMs' | 'timers'>;
  /** Holds all speech while closed: paused, the microphone in use, quiet hours (quiet/gate.ts). */
  quiet?: QuietGate;
  /**
   * Narration's limits (narration.ts), for tests: how long a message waits for its next batch, how many live at
   * once (in all, of one session), the window of order (batches held, for how long), a message's most characters.
   */
  narration?: {
    idleMs?: number;
    maxLive?: number;
    maxPerSession?: number;
    holdBatches?: number;
    holdMs?: number;
    maxMessageChars?: number;
  };
}
