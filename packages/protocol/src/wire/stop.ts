/** POST /v1/stop: cut what is playing, and drop what is queued, by scope. */
import { sessionSchema as session } from './common.js';
import type { Agreed, SchemaAgrees } from './schema-type.js';

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
export const stopRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scope: { type: 'string', enum: ['current', 'all', 'session', 'id'] },
    session,
    id: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

/** Compiles only while StopRequest and its schema agree (schema-type.ts). */
type StopRequestChecked = Agreed<SchemaAgrees<StopRequest, typeof stopRequestSchema>>;
