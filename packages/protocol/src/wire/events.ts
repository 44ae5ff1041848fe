/** GET /v1/events: what happens to each request, as server-sent events. */
import type { Priority } from './common.js';

export type EventType =
  | 'queued'
  | 'started'
  | 'finished'
  | 'deduped'
  | 'expired'
  | 'interrupted'
  | 'failed'
  | 'replaced'
  | 'dropped'
  | 'held';

export interface VoxEvent {
  type: EventType;
  id: string;
  session?: string;
  priority: Priority;
  at: string;
  originalId?: string;
  reason?: string;
}
