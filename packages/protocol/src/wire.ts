/**
 * Wire types and JSON schemas of voxd's HTTP API (docs/protocol.md). Defined
 * once here; voxd validates with the schemas, clients import the types.
 */
import {
  CHIME_SIGNALS,
  MAX_ONCE_SECONDS,
  MAX_TEXT_CHARS,
  MAX_RATE_WPM,
  MIN_ONCE_SECONDS,
  MIN_RATE_WPM,
  PRIORITIES,
} from './defaults.js';
import type { WireError } from './errors.js';

export type Priority = (typeof PRIORITIES)[number];
export type ChimeSignal = (typeof CHIME_SIGNALS)[number];

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
   * The caller's own id for this request (1–64 of A-Z a-z 0-9 _ - . :). A
   * re-send with the same id and text (after a lost connection or a voxd
   * restart) is joined to the first: it answers with that request's id and
   * outcome, and nothing is spoken twice. `vox` sets one on every request.
   */
  requestId?: string;
}

/** Where a request ended up, or is now. */
export type Outcome =
  | 'queued'
  | 'playing'
  | 'played'
  | 'deduped'
  | 'failed'
  | 'expired'
  | 'interrupted'
  | 'replaced'
  | 'dropped'
  | 'stopped';

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

export interface HistoryEntry {
  id: string;
  /** The text as actually spoken. */
  text: string;
  voice?: string;
  rate?: number;
  engine?: string;
  fallbackReason?: string;
  session?: string;
  priority: Priority;
  kind: 'speech' | 'chime';
  outcome: Outcome;
  reason?: string;
  acceptedAt: string;
  startedAt?: string;
  finishedAt?: string;
  duplicateOf?: string;
  /** From acceptance to the first PCM at the sink, in ms. */
  firstAudioMs?: number;
}

export interface StatusResponse {
  version: string;
  pid: number;
  uptimeMs: number;
  engine: { name: string; ready: boolean; reason?: string };
  /** `ok` reflects the sink's last real attempt; `lastError` and `fix` say why not and what to do. */
  sink: { name: string; ok: boolean; detail?: string; lastError?: string; fix?: string };
  /**
   * A bounded view: `length` and `byPriority` count everything queued;
   * `items` are the `limit` items from `offset` on, in playing order
   * (`GET /v1/status?offset=K&limit=N`; default 0 and 20, limit at most 200).
   */
  queue: {
    length: number;
    byPriority: Record<Priority, number>;
    offset: number;
    limit: number;
    items: Array<{ id: string; session?: string; priority: Priority; text: string }>;
  };
  playing: { id: string; session?: string; priority: Priority; text: string; startedAt: string } | null;
  counters: {
    accepted: number;
    played: number;
    deduped: number;
    failed: number;
    expired: number;
    interrupted: number;
    dropped: number;
  };
  history: HistoryEntry[];
  /**
   * Who holds voxd's microphone (its listen's id and session), or null when
   * nobody does and nobody waits. Absent from a voxd older than this field;
   * `open`, `queued` and `kept` are absent from one older than the floor.
   */
  listening?: ListeningStatus | null;
}

/** The microphone's floor in GET /v1/status. */
export interface ListeningStatus {
  /** The holder: the listen recording, or the one whose floor is kept for its follow-up. */
  id: string;
  session?: string;
  /** True while the recorder runs: the microphone is open. */
  open?: boolean;
  /** Listens waiting for the floor, first come first served. */
  queued?: number;
  /** Present while the floor is kept between turns (keepFloor); the idle time left once its answer was sent. */
  kept?: { expiresInMs?: number };
}

export interface HealthResponse {
  ok: boolean;
  version: string;
}

export interface Voice {
  id: string;
  name: string;
  languages: string[];
  engine: string;
}

export interface VoicesResponse {
  engine: string;
  voices: Voice[];
}

export type StopScope = 'current' | 'all' | 'session' | 'id';

export interface StopRequest {
  /** Default `all`. */
  scope?: StopScope;
  session?: string;
  id?: string;
}

export interface StopResponse {
  stopped: string[];
}

export interface ChimeRequest {
  signal: ChimeSignal;
  session?: string;
  priority?: Priority;
  /** 0 to 1; default 0.5 of full scale. */
  volume?: number;
  wait?: boolean;
}

export type EventType =
  'queued' | 'started' | 'finished' | 'deduped' | 'expired' | 'interrupted' | 'failed' | 'replaced' | 'dropped';

export interface VoxEvent {
  type: EventType;
  id: string;
  session?: string;
  priority: Priority;
  at: string;
  originalId?: string;
  reason?: string;
}

// JSON schemas (fastify validates with ajv). additionalProperties:false names unknown fields.

const priority = { type: 'string', enum: [...PRIORITIES] } as const;
const session = { type: 'string', maxLength: 200 } as const;

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
    requestId: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' },
  },
} as const;

export const stopRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scope: { type: 'string', enum: ['current', 'all', 'session', 'id'] },
    session,
    id: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

export const chimeRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['signal'],
  properties: {
    signal: { type: 'string', enum: [...CHIME_SIGNALS] },
    session,
    priority,
    volume: { type: 'number', minimum: 0, maximum: 1 },
    wait: { type: 'boolean' },
  },
} as const;

/** POST /v1/synthesize: the audio of a text as WAV, not played. */
export interface SynthesizeRequest {
  text: string;
  voice?: string;
  rate?: number;
  volume?: number;
  engine?: string;
  model?: string;
  apiKey?: string;
  maxChars?: number;
  session?: string;
}

export const synthesizeRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: speakRequestSchema.properties.text,
    voice: speakRequestSchema.properties.voice,
    rate: speakRequestSchema.properties.rate,
    volume: speakRequestSchema.properties.volume,
    engine: speakRequestSchema.properties.engine,
    model: speakRequestSchema.properties.model,
    apiKey: speakRequestSchema.properties.apiKey,
    maxChars: speakRequestSchema.properties.maxChars,
    session,
  },
} as const;

/** How a listen ended: trailing silence after speech, the hard maximum, no speech before the start timeout, or POST /v1/stop. */
export type ListenEnd = 'silence' | 'max' | 'timeout' | 'stopped';

/** POST /v1/listen: record the microphone until the speaker stops, then transcribe. */
export interface ListenRequest {
  /** Hard maximum of the recording, in seconds (1–300). Default 30. */
  maxSeconds?: number;
  /** Trailing silence that ends the utterance, in ms (200–10000). Default 1200. */
  silenceMs?: number;
  /** Give up when no speech starts within this many ms (500–60000). Default 8000. */
  startTimeoutMs?: number;
  /** ISO-639-1 hint for the transcriber, e.g. `en`. */
  language?: string;
  /** Play the `prompt` chime when listening starts. Default true. */
  prompt?: boolean;
  session?: string;
  /** Keep the recording as a WAV under VOX_HOME/listen and return its path. Always kept when nothing transcribes it. */
  keepAudio?: boolean;
  /** Cut the utterance playing now instead of waiting for it to end. */
  interrupt?: boolean;
  /** How long to queue for the microphone when another listen holds it, in ms (0–300000; 0 refuses at once). Default 60000. */
  waitMs?: number;
  /** Keep the floor for a follow-up turn: the answer carries a `floor` token; nobody else gets the microphone until it is used, released or idle for `floorIdleMs`. */
  keepFloor?: boolean;
  /** The kept floor's idle expiry, in ms (1000–60000), counted from this listen's answer. Default 10000. */
  floorIdleMs?: number;
  /** The token of a kept floor (a previous answer's `floor.token`): this listen goes first. A lapsed token queues as usual. */
  floorToken?: string;
  /** Barge-in (push-to-talk): cut the utterance playing (as `interrupt`), go to the head of the queue, and take a floor kept by another. */
  bargeIn?: boolean;
  /**
   * A question to speak first, under the same grant of the microphone: once
   * this listen has the floor, voxd speaks it and records right after, and
   * nothing else is spoken in between. When it is not played (deduped,
   * failed, stopped), nothing is recorded; `said` says why.
   */
  say?: Omit<SpeakRequest, 'wait'>;
}

/** POST /v1/listen/release: hand a kept floor on. */
export interface ListenReleaseRequest {
  token: string;
}

export interface ListenReleaseResponse {
  /** False when that floor was not kept any more (used, released, lapsed); nothing changed. */
  released: boolean;
}

export interface ListenResponse {
  /** The transcript; '' when nothing was said or no transcriber is set. */
  text: string;
  /** Length of the recording, in ms. */
  durationMs: number;
  /** Voice activity within it, from the first voiced frame to the last, in ms. */
  speechMs: number;
  endedBy: ListenEnd;
  /** The WAV (16 kHz mono s16le) when kept. */
  audioPath?: string;
  /** False when nothing was transcribed; `reason` then says why (no transcriber set, and how to set one; no speech). */
  transcribed: boolean;
  reason?: string;
  /** The transcriber's own time, in ms. */
  transcribeMs?: number;
  /** How long the listen queued for the microphone, in ms. */
  waitedMs?: number;
  /** With keepFloor: the token for the follow-up listen (floorToken) or POST /v1/listen/release, and its idle expiry. */
  floor?: { token: string; idleMs: number };
  /** With `say`: what became of the question (its id, and `played`, or why not). */
  said?: SpeakResponse;
}

/** An error of a listen, with the audio captured so far when there was any. */
export interface ListenErrorBody extends WireError {
  audioPath?: string;
}

export const LISTEN_DEFAULTS = Object.freeze({
  maxSeconds: 30,
  silenceMs: 1200,
  startTimeoutMs: 8000,
  prompt: true,
  waitMs: 60_000,
  floorIdleMs: 10_000,
});

export const listenRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxSeconds: { type: 'number', minimum: 1, maximum: 300 },
    silenceMs: { type: 'integer', minimum: 200, maximum: 10_000 },
    startTimeoutMs: { type: 'integer', minimum: 500, maximum: 60_000 },
    language: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$' },
    prompt: { type: 'boolean' },
    session,
    keepAudio: { type: 'boolean' },
    interrupt: { type: 'boolean' },
    waitMs: { type: 'integer', minimum: 0, maximum: 300_000 },
    keepFloor: { type: 'boolean' },
    floorIdleMs: { type: 'integer', minimum: 1000, maximum: 60_000 },
    floorToken: { type: 'string', pattern: '^floor-[0-9a-f-]{36}$' },
    bargeIn: { type: 'boolean' },
    say: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: (({ wait: _, ...rest }) => rest)(speakRequestSchema.properties),
    },
  },
} as const;

export const listenReleaseRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: listenRequestSchema.properties.floorToken },
} as const;
