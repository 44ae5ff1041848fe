/**
 * Wire types of narration: a reply read aloud while the model writes it.
 * Each MessageDisplay batch of a message is POSTed to /v1/narration; voxd
 * keeps one growing utterance per message and speaks its sentences as they
 * complete (docs/protocol.md, "POST /v1/narration").
 */
import { PRONUNCIATION_LIMITS, type Pronunciation } from '../util/pronunciation-matcher.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';
import { speakRequestSchema } from './speak.js';

/** Most characters of one batch (a MessageDisplay delta). */
export const NARRATION_MAX_DELTA_CHARS = 65_536;

/**
 * How long one narration may keep the voice while another request waits, in
 * ms of its audio: it yields at the first sentence boundary after this.
 */
export const NARRATION_TURN_MS = 6000;

/**
 * Most characters voxd speaks of one message: past it the message says the
 * rest is on the screen and ends, so that its memory and its journal record
 * stay bounded (about two hours of speech).
 */
export const NARRATION_MAX_MESSAGE_CHARS = 100_000;

/** Most open messages (begun, last batch not yet come) one session narrates at once: past it a new one of that session is refused (429). */
export const NARRATION_MAX_PER_SESSION = 16;

/**
 * Batches that arrive ahead of a missing one are held, in index order, until
 * it comes: at most this many, for at most NARRATION_HOLD_MS; then the
 * missing ones are skipped (and logged) and the held ones are taken.
 */
export const NARRATION_HOLD_BATCHES = 8;
export const NARRATION_HOLD_MS = 2000;

/**
 * Which path sent a batch: `mcp` (vox mcp: MessageDisplay or the transcript,
 * the default) or `mod` (the vox mod, from Claude Code's `turn.step`). The
 * first source to narrate a session after a cut narrates it until the next
 * cut; another source's batches meanwhile are `dropped`, so a text two paths
 * saw is spoken once.
 */
export type NarrationSource = 'mcp' | 'mod';

/** POST /v1/narration: one batch of a message being written. */
export interface NarrationRequest {
  /** The session label (required: narration is per session). */
  session: string;
  /** The message the batch belongs to (MessageDisplay's `message_id`). */
  message: string;
  /** The batch's position in the message, from 0 (MessageDisplay's `index`). */
  index: number;
  /** The message's last batch. */
  final: boolean;
  /** The newly completed lines (MessageDisplay's `delta`; may be empty). */
  delta: string;
  /** The path that saw the text (default `mcp`). */
  source?: NarrationSource;
  voice?: string;
  rate?: number;
  volume?: number;
  engine?: string;
  model?: string;
}

export interface NarrationResponse {
  /** The message's utterance (one id for the whole message), when it has one. */
  id?: string;
  /**
   * `queued`: taken (its sentences are queued or wait for the rest of theirs);
   * `repeated`: this index was taken before (a re-send), nothing changed;
   * `dropped`: not spoken, with `reason` (the message's narration was stopped or cut, another source narrates the
   * session's turn, or a mod batch's session is not declared narrating: POST /v1/narration/session).
   */
  status: 'queued' | 'repeated' | 'dropped';
  /** Sentences this batch completed. */
  sentences: number;
  reason?: string;
  /**
   * Dropped for the whole turn: every later batch of this source for the
   * session is dropped too until the next cut (another source narrates the
   * turn, or the session is not declared narrating), so a source may stop
   * sending until then.
   */
  untilCut?: true;
}

/** POST /v1/narration/cut: a new prompt in the session ends what it narrates. */
export interface NarrationCutRequest {
  session: string;
  /**
   * The session's earlier labels, cut as well: after Claude Code's `/clear` the
   * same session goes on under a new id, and the reply before it is still its own.
   */
  earlier?: string[];
}

/** Most earlier labels one cut names (as many as a `vox mcp` keeps, project/session.ts). */
export const NARRATION_CUT_MAX_EARLIER = 32;

export interface NarrationCutResponse {
  /** The utterances that were cut (playing or waiting). */
  cut: string[];
}

/**
 * POST /v1/narration/warm: a session about to narrate (its `vox mcp` started,
 * or a prompt was submitted) asks voxd to get ready what its first batch will
 * need: the engine it resolves to started (the embedded eSpeak's worker
 * thread) and the voice looked up. Nothing is spoken.
 */
export interface NarrationWarmRequest {
  session: string;
  voice?: string;
  engine?: string;
  model?: string;
}

export interface NarrationWarmResponse {
  /** The engine narration with these settings resolves to. */
  engine: string;
  ready: boolean;
  reason?: string;
}

/**
 * POST /v1/narration/session: how a session narrates, as its `vox mcp` read
 * the project's `.vox/config.md` (the one reader and validator of it). voxd
 * takes the vox mod's batches (`source: mod`) only for a session declared
 * narrating, and speaks them as vox mcp would its own: this voice, rate,
 * volume, engine and model, the announce label starting each message, the
 * pronunciations applied. Sent at each prompt, and when the config changes.
 */
export interface NarrationSessionRequest {
  session: string;
  /** Whether the session's replies are read as they are written (`narrate: stream`, not muted or quiet). */
  narrates: boolean;
  /** Why not, in the config's words (`narrate: summary`), for voxd's log. */
  reason?: string;
  voice?: string;
  rate?: number;
  volume?: number;
  engine?: string;
  model?: string;
  /** The label that starts each message (`announce`). */
  announce?: string;
  /** The project's pronunciations table. */
  pronunciations?: Pronunciation[];
}

export interface NarrationSessionResponse {
  /** What voxd now holds for the session. */
  narrates: boolean;
}

/** Longest `reason` of a declaration. */
export const NARRATION_REASON_MAX_CHARS = 200;

const session = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const narrationRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session', 'message', 'index', 'final', 'delta'],
  properties: {
    session,
    message: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' },
    index: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    final: { type: 'boolean' },
    delta: { type: 'string', maxLength: NARRATION_MAX_DELTA_CHARS },
    source: { type: 'string', enum: ['mcp', 'mod'] },
    voice: speakRequestSchema.properties.voice,
    rate: speakRequestSchema.properties.rate,
    volume: speakRequestSchema.properties.volume,
    engine: speakRequestSchema.properties.engine,
    model: speakRequestSchema.properties.model,
  },
} as const;

export const narrationCutRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session'],
  properties: { session, earlier: { type: 'array', maxItems: NARRATION_CUT_MAX_EARLIER, items: session } },
} as const;

export const narrationWarmRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session'],
  properties: {
    session,
    voice: speakRequestSchema.properties.voice,
    engine: speakRequestSchema.properties.engine,
    model: speakRequestSchema.properties.model,
  },
} as const;

export const narrationSessionRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session', 'narrates'],
  properties: {
    session,
    narrates: { type: 'boolean' },
    reason: { type: 'string', maxLength: NARRATION_REASON_MAX_CHARS },
    voice: speakRequestSchema.properties.voice,
    rate: speakRequestSchema.properties.rate,
    volume: speakRequestSchema.properties.volume,
    engine: speakRequestSchema.properties.engine,
    model: speakRequestSchema.properties.model,
    announce: { type: 'string', minLength: 1, maxLength: 256 },
    pronunciations: {
      type: 'array',
      maxItems: PRONUNCIATION_LIMITS.rows,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['word', 'say'],
        properties: {
          word: { type: 'string', minLength: 1, maxLength: PRONUNCIATION_LIMITS.wordChars },
          say: { type: 'string', minLength: 1, maxLength: PRONUNCIATION_LIMITS.sayChars },
        },
      },
    },
  },
} as const;

/** Compiles only while each request type and its schema agree (schema-type.ts). */
type NarrationRequestChecked = Agreed<SchemaAgrees<NarrationRequest, typeof narrationRequestSchema>>;
type NarrationCutRequestChecked = Agreed<SchemaAgrees<NarrationCutRequest, typeof narrationCutRequestSchema>>;
type NarrationWarmRequestChecked = Agreed<SchemaAgrees<NarrationWarmRequest, typeof narrationWarmRequestSchema>>;
type NarrationSessionChecked = Agreed<SchemaAgrees<NarrationSessionRequest, typeof narrationSessionRequestSchema>>;
