/** Wire types of talking to a session (`vox talk`): POST /v1/talk and the inbox `vox mcp` long-polls. */
import { VISIBLE_PATTERN } from '../util/printable.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

/** Most characters of one text sent to a session. */
export const TALK_MAX_CHARS = 4000;

/** POST /v1/talk: `session` is a live label (`api#3c07f0`) or its project name (`api`). */
export interface TalkRequest {
  session: string;
  text: string;
}

/**
 * What a session's `vox mcp` learned of Claude Code's channel gate
 * (vox's mcp/channel-gate.ts): `open` only when its session asked for vox's
 * channel; `reason` says why, for people.
 */
export interface ChannelGate {
  open: boolean;
  reason: string;
}

export interface TalkResponse {
  /** The full label of the session the text went to. */
  delivered: string;
  /** The gate its `vox mcp` reported with its last poll; absent from an older `vox mcp`, which reports none. */
  channel?: ChannelGate;
}

/**
 * POST /v1/talk/wait: a `vox mcp` asks for its texts; voxd answers when one
 * comes or after `waitMs`. The first poll of a label registers it to `secret`
 * (or to one voxd makes, when none is sent); while that registration lives,
 * only a poll that presents the same secret is answered
 * (VOX_ERR_TALK_SESSION_TAKEN otherwise).
 */
export interface TalkWaitRequest {
  session: string;
  secret?: string;
  waitMs?: number;
  /** Whether Claude Code will show this session's channel messages, as far as its `vox mcp` can tell. */
  channel?: ChannelGate;
}

export interface TalkWaitResponse {
  texts: string[];
  /** The registration's secret, for the next poll. */
  secret: string;
}

/** A session label: 1 to 200 visible characters (no control, bidi or other invisible one). */
const sessionLabel = { type: 'string', minLength: 1, maxLength: 200, pattern: VISIBLE_PATTERN } as const;

export const talkRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session', 'text'],
  properties: {
    session: sessionLabel,
    text: { type: 'string', minLength: 1, maxLength: TALK_MAX_CHARS },
  },
} as const;

export const talkWaitRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['session'],
  properties: {
    session: sessionLabel,
    secret: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
    waitMs: { type: 'integer', minimum: 0, maximum: 60000 },
    channel: {
      type: 'object',
      additionalProperties: false,
      required: ['open', 'reason'],
      properties: { open: { type: 'boolean' }, reason: { type: 'string', maxLength: 1000 } },
    },
  },
} as const;

/** Compiles only while each request type and its schema agree (schema-type.ts). */
type TalkRequestChecked = Agreed<SchemaAgrees<TalkRequest, typeof talkRequestSchema>>;
type TalkWaitRequestChecked = Agreed<SchemaAgrees<TalkWaitRequest, typeof talkWaitRequestSchema>>;
