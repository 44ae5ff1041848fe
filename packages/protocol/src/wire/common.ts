/**
 * What the routes share: the priorities, the chime signals, a request's
 * outcome, and the schemas of the fields several bodies carry.
 */
import { CHIME_SIGNALS, PRIORITIES } from '../defaults.js';

export type Priority = (typeof PRIORITIES)[number];
export type ChimeSignal = (typeof CHIME_SIGNALS)[number];

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
  | 'stopped'
  /** Not spoken: a background session's speech in `attention: focus`, kept for the digest and the recap. */
  | 'held';

// JSON schemas (fastify validates with ajv). additionalProperties:false names unknown fields.

export const prioritySchema = { type: 'string', enum: [...PRIORITIES] } as const;
export const sessionSchema = { type: 'string', maxLength: 200 } as const;
