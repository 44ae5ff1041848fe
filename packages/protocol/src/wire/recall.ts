/**
 * What the person heard and missed (voxd's recall): GET /v1/history lists
 * recent utterances, POST /v1/recap speaks what was missed since the last
 * recap, POST /v1/replay plays a recent utterance again from the cache.
 */
import { sessionSchema as session, type Outcome, type Priority } from './common.js';
import type { SpeakResponse } from './speak.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

/** One utterance as voxd's recall keeps it. */
export interface RecallEntry {
  id: string;
  session?: string;
  priority: Priority;
  outcome: Outcome;
  /** The text as spoken (or as it would have been), at most 300 characters. */
  text: string;
  /** When it settled (ISO 8601). */
  at: string;
  /** The engine that spoke it. */
  engine?: string;
  /** The person did not hear it (it failed, or the queue dropped it): a recap says it. */
  missed: boolean;
  /** Its number for `POST /v1/replay` (1: the last played), when it played whole and can be played again. */
  replay?: number;
}

/** GET /v1/history?limit=N&session=LABEL: newest first. */
export interface HistoryResponse {
  entries: RecallEntry[];
  /** Missed since the last recap (what `POST /v1/recap` would say). */
  missed: number;
}

export interface RecapRequest {
  /** Answer after the recap has played. */
  wait?: boolean;
}

export interface RecapResponse extends SpeakResponse {
  /** Missed items the recap covers (said, or counted in "and N more"). */
  items: number;
  /** Sessions they came from. */
  sessions: number;
}

export interface ReplayRequest {
  /** Which played utterance, counting back from the last (1, the default). */
  n?: number;
  /** Count only this session's utterances. */
  session?: string;
  /** Answer after it has played. */
  wait?: boolean;
}

export interface ReplayResponse extends SpeakResponse {
  /** The utterance played again. */
  of: string;
}

export const recapRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { wait: { type: 'boolean' } },
} as const;

export const replayRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    n: { type: 'integer', minimum: 1, maximum: 1000 },
    session,
    wait: { type: 'boolean' },
  },
} as const;

/** Compile only while the types and their schemas agree (schema-type.ts). */
type RecapRequestChecked = Agreed<SchemaAgrees<RecapRequest, typeof recapRequestSchema>>;
type ReplayRequestChecked = Agreed<SchemaAgrees<ReplayRequest, typeof replayRequestSchema>>;
