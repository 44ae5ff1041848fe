/** POST /v1/speak: a text queued (or played, with `wait`) in the shared voice. */
import { MAX_ONCE_SECONDS, MAX_RATE_WPM, MAX_TEXT_CHARS, MIN_ONCE_SECONDS, MIN_RATE_WPM } from '../defaults.js';
import type { WireError } from '../errors.js';
import { prioritySchema as priority, sessionSchema as session, type Outcome, type Priority } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

export interface SpeakRequest {
  text: string;
  voice?: string;
  /** Words per minute. */
  rate?: number;
  /** 0 to 1. */
  volume?: number;
  /** Duplicate window for this request, in seconds (1–3600). Default 5. */
  once?: number;
  /** Caller's own duplicate key, used instead of the text; normalized the same way as text. */
  dedupKey?: string;
  /** Answer after playback, with `played` or `failed`. */
  wait?: boolean;
  /** Session label, e.g. `shop#3c07f0`. Shown in status, history and logs. */
  session?: string;
  priority?: Priority;
  /** Drop the request as `expired` if it has not started within this many ms. */
  maxAgeMs?: number;
  engine?: string;
  model?: string;
  /** Set on the last of a series of `progress` messages: it is always spoken. */
  final?: boolean;
  /** The caller's own cloud API key for this request. Never logged, returned or cached. */
  apiKey?: string;
  /** Longest text spoken, in characters: cleanup truncates at a sentence boundary. */
  maxChars?: number;
  /**
   * Speak the text exactly as given: no cleanup, no shortening, no truncation
   * (only split into sentences). For a question whose words must be the ones
   * heard, such as a command rendered for the ear. Secrets are still said as
   * their kind.
   */
  verbatim?: boolean;
  /**
   * The caller's own id for this request (1–64 of A-Z a-z 0-9 _ - . :). A
   * re-send with the same id and text (after a lost connection or a voxd
   * restart) is joined to the first: it answers with that request's id and
   * outcome, and nothing is spoken twice. `vox` sets one on every request.
   */
  requestId?: string;
  /**
   * The session's idle prompt ("api is waiting for your input"): said once per
   * wait. Its duplicate window (`once`) lasts until the session sends anything
   * else (speech, a chime, a narration) or its narration is cut (a new
   * prompt), so a re-fired prompt stays quiet while the session waits, and
   * the next wait is said again. Needs `session`.
   */
  idlePrompt?: boolean;
  /**
   * The request needs the person (a question, a failure): with the daemon
   * setting `attention: focus` it is spoken even from a session the person
   * is not in (docs/attention.md). `important` speech needs them anyway.
   */
  needsPerson?: boolean;
}

export interface DuplicateInfo {
  /** The request this one duplicated. */
  originalId: string;
  /** `queued` or `playing` while in flight; `played`, or `stopped` when the user stopped it (a stop also starts the window). */
  originalStatus: 'queued' | 'playing' | 'played' | 'stopped';
  /** When the original finished playing (ISO 8601), if it has. */
  playedAt?: string;
  /** Milliseconds left in the duplicate window. */
  windowRemainingMs: number;
}

/**
 * The audio output as voxd sees it: `ok` is what its last real attempt (a
 * playback or a probe of the device) did. `reason` says why it is not ok, and
 * `fix` what to do about it.
 */
export interface SinkHealth {
  name: string;
  ok: boolean;
  reason?: string;
  fix?: string;
}

export interface SpeakResponse {
  id: string;
  status: Outcome;
  /** The text as it will be (or was) spoken. */
  text?: string;
  originalId?: string;
  duplicate?: DuplicateInfo;
  /** The engine that spoke, and why if it was not the one asked for. */
  engine?: string;
  fallbackReason?: string;
  /** Why the request failed, expired or was dropped. */
  reason?: string;
  error?: WireError;
  /** The audio output when the request was accepted (or, with `wait`, after it played). */
  sink?: SinkHealth;
}

export const speakRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    // Characters are Unicode code points (ajv counts them so). Too long answers 413 (voxd maps it).
    text: { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARS },
    voice: { type: 'string', minLength: 1, maxLength: 100 },
    rate: { type: 'number', minimum: MIN_RATE_WPM, maximum: MAX_RATE_WPM },
    volume: { type: 'number', minimum: 0, maximum: 1 },
    once: { type: 'number', minimum: MIN_ONCE_SECONDS, maximum: MAX_ONCE_SECONDS },
    dedupKey: { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARS },
    wait: { type: 'boolean' },
    session,
    priority,
    maxAgeMs: { type: 'integer', minimum: 0, maximum: 86_400_000 },
    engine: { type: 'string', minLength: 1, maxLength: 50 },
    model: { type: 'string', minLength: 1, maxLength: 100 },
    final: { type: 'boolean' },
    apiKey: { type: 'string', minLength: 1, maxLength: 500 },
    maxChars: { type: 'integer', minimum: 1, maximum: MAX_TEXT_CHARS },
    verbatim: { type: 'boolean' },
    requestId: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' },
    idlePrompt: { type: 'boolean' },
    needsPerson: { type: 'boolean' },
  },
} as const;

/** Compiles only while SpeakRequest and its schema agree (schema-type.ts). */
type SpeakRequestChecked = Agreed<SchemaAgrees<SpeakRequest, typeof speakRequestSchema>>;
