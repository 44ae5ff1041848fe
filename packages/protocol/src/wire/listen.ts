/** POST /v1/listen and POST /v1/listen/release: the microphone, recorded until the speaker stops, then transcribed. */
import type { WireError } from '../errors.js';
import { sessionSchema as session } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';
import { speakRequestSchema, type SpeakRequest, type SpeakResponse } from './speak.js';

/** A speak body's fields but `wait`: a listen's question is always waited for. */
function withoutWait<T extends { wait: unknown }>({ wait: _, ...rest }: T): Omit<T, 'wait'> {
  return rest;
}

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

/**
 * Which transcriber made a listen's transcript (beside ListenResponse in the
 * answer): `local NAME (TYPE)` for a model in VOX_HOME/asr, `server URL` for
 * the OpenAI-compatible API. What `transcriber.kind: auto` picked, said
 * rather than guessed at.
 */
export interface TranscriberUsed {
  transcriber?: string;
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
      properties: withoutWait(speakRequestSchema.properties),
    },
  },
} as const;

export const listenReleaseRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: listenRequestSchema.properties.floorToken },
} as const;

/** Compiles only while each request type and its schema agree (schema-type.ts). */
type ListenRequestChecked = Agreed<SchemaAgrees<ListenRequest, typeof listenRequestSchema>>;
type ListenReleaseRequestChecked = Agreed<SchemaAgrees<ListenReleaseRequest, typeof listenReleaseRequestSchema>>;
