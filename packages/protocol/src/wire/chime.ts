/** POST /v1/chime: a short signal (done, prompt, error, attention) instead of words. */
import { CHIME_SIGNALS } from '../defaults.js';
import { prioritySchema as priority, sessionSchema as session, type ChimeSignal, type Priority } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

export interface ChimeRequest {
  signal: ChimeSignal;
  session?: string;
  priority?: Priority;
  /** 0 to 1; default 0.5 of full scale. */
  volume?: number;
  wait?: boolean;
}
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

/** Compiles only while ChimeRequest and its schema agree (schema-type.ts). */
type ChimeRequestChecked = Agreed<SchemaAgrees<ChimeRequest, typeof chimeRequestSchema>>;
