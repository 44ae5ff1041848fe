/**
 * The voice voxd gave each session (voxd's voices/assignment.ts), listed by
 * `GET /v1/status` as `sessionVoices`, newest use first.
 */
export interface SessionVoice {
  session: string;
  engine: string;
  voice: string;
  lastUsedAt: string;
}

/** The part of the status answer that lists them (beside StatusResponse, whose module is full). */
export interface SessionVoices {
  sessionVoices?: SessionVoice[];
}
