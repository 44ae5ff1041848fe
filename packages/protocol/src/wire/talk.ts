/** Wire types of talking to a session (`vox talk`): POST /v1/talk and the inbox `vox mcp` long-polls. */
import type { Agreed, SchemaAgrees } from './schema-type.js';

/** Most characters of one text sent to a session. */
export const TALK_MAX_CHARS = 4000;

/** POST /v1/talk: `session` is a live label (`api#3c07f0`) or its project name (`api`). */
export interface TalkRequest {
  session: string;
  text: string;
}

export interface TalkResponse {
  /** The full label of the session the text went to. */
  delivered: string;
}

/** POST /v1/talk/wait: a `vox mcp` asks for its texts; voxd answers when one comes or after `waitMs`. */
export interface TalkWaitRequest {
  session: string;
  waitMs?: number;
}

export interface TalkWaitResponse {
  texts: string[];
}

export const talkRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session', 'text'],
  properties: {
    session: { type: 'string', minLength: 1, maxLength: 200 },
    text: { type: 'string', minLength: 1, maxLength: TALK_MAX_CHARS },
  },
} as const;

export const talkWaitRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session'],
  properties: {
    session: { type: 'string', minLength: 1, maxLength: 200 },
    waitMs: { type: 'integer', minimum: 0, maximum: 60000 },
  },
} as const;

/** Compiles only while each request type and its schema agree (schema-type.ts). */
type TalkRequestChecked = Agreed<SchemaAgrees<TalkRequest, typeof talkRequestSchema>>;
type TalkWaitRequestChecked = Agreed<SchemaAgrees<TalkWaitRequest, typeof talkWaitRequestSchema>>;
