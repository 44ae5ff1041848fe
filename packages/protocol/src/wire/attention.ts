/**
 * Attention (docs/attention.md): which session the person is in (the focus),
 * and, with the daemon setting `attention: focus`, what voxd holds of the
 * other sessions for one short digest. POST /v1/focus names the focus (`vox
 * focus LABEL`, a hook of a new prompt or a started session); GET /v1/focus
 * and GET /v1/status's `attention` say it.
 */
import { sessionSchema as session } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

/** The values of the daemon setting `attention`. */
export const ATTENTION_MODES = ['all', 'focus'] as const;
export type AttentionMode = (typeof ATTENTION_MODES)[number];

/** What moved the focus. */
export const FOCUS_REASONS = ['prompt', 'start', 'voice', 'talk', 'named'] as const;
export type FocusReason = (typeof FOCUS_REASONS)[number];

/** POST /v1/focus: the person is in `session` now. */
export interface FocusRequest {
  /** A session label (`api#9a1b2c`), or a project's name alone (`api`): every session of it is in focus. */
  session: string;
  /** Default `named` (`vox focus`). */
  reason?: FocusReason;
}

export const focusRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session'],
  properties: {
    session: { ...session, minLength: 1 },
    reason: { type: 'string', enum: [...FOCUS_REASONS] },
  },
} as const;

/** Compiles only while FocusRequest and its schema agree (schema-type.ts). */
type FocusRequestChecked = Agreed<SchemaAgrees<FocusRequest, typeof focusRequestSchema>>;

/** What voxd holds of one background session. */
export interface HeldOfSession {
  session: string;
  /** Items held, not yet said by a digest or a recap. */
  held: number;
}

/** The answer of GET and POST /v1/focus, and GET /v1/status's `attention`. */
export interface AttentionStatus {
  /** The daemon setting `attention`. */
  mode: AttentionMode;
  /** The session the person is in, or null before any prompt, start, talk or `vox focus`. */
  focus: string | null;
  /** What moved it there, and when (ISO 8601). */
  reason?: FocusReason;
  since?: string;
  /** Held items per session, the most first (at most 20 sessions). */
  held: HeldOfSession[];
  /** When the next digest is due (ISO 8601), while something is held; it waits for a quiet moment. */
  digestDueAt?: string;
}

/** The part of the status answer that carries it (beside StatusResponse). */
export interface AttentionStatusField {
  attention?: AttentionStatus;
}
