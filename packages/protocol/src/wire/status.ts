/**
 * GET /v1/status (and GET /v1/health): what voxd is doing. The parts added
 * after StatusResponse (the sessions' voices, the transcriber, narrations
 * waiting) are their own fields, absent from a voxd older than them.
 */
import type { Outcome, Priority } from './common.js';

export interface HistoryEntry {
  id: string;
  /** The text as actually spoken. */
  text: string;
  voice?: string;
  rate?: number;
  engine?: string;
  fallbackReason?: string;
  session?: string;
  priority: Priority;
  kind: 'speech' | 'chime';
  outcome: Outcome;
  reason?: string;
  acceptedAt: string;
  startedAt?: string;
  finishedAt?: string;
  duplicateOf?: string;
  /** From acceptance to the first PCM at the sink, in ms. */
  firstAudioMs?: number;
}

export interface StatusResponse {
  version: string;
  pid: number;
  uptimeMs: number;
  engine: { name: string; ready: boolean; reason?: string };
  /** `ok` reflects the sink's last real attempt; `lastError` and `fix` say why not and what to do. */
  sink: { name: string; ok: boolean; detail?: string; lastError?: string; fix?: string };
  /**
   * A bounded view: `length` and `byPriority` count everything queued;
   * `items` are the `limit` items from `offset` on, in playing order
   * (`GET /v1/status?offset=K&limit=N`; default 0 and 20, limit at most 200).
   */
  queue: {
    length: number;
    byPriority: Record<Priority, number>;
    offset: number;
    limit: number;
    items: Array<{ id: string; session?: string; priority: Priority; text: string }>;
  };
  playing: { id: string; session?: string; priority: Priority; text: string; startedAt: string } | null;
  counters: {
    accepted: number;
    played: number;
    deduped: number;
    failed: number;
    expired: number;
    interrupted: number;
    dropped: number;
    /** Held for the digest (`attention: focus`); absent from a voxd older than it. */
    held?: number;
  };
  history: HistoryEntry[];
  /**
   * Who holds voxd's microphone (its listen's id and session), or null when
   * nobody does and nobody waits. Absent from a voxd older than this field;
   * `open`, `queued` and `kept` are absent from one older than the floor.
   */
  listening?: ListeningStatus | null;
}

/** The microphone's floor in GET /v1/status. */
export interface ListeningStatus {
  /** The holder: the listen recording, or the one whose floor is kept for its follow-up. */
  id: string;
  session?: string;
  /** True while the recorder runs: the microphone is open. */
  open?: boolean;
  /** Listens waiting for the floor, first come first served. */
  queued?: number;
  /** Present while the floor is kept between turns (keepFloor); the idle time left once its answer was sent. */
  kept?: { expiresInMs?: number };
}

/**
 * The holder `listening` names while voxd's voice barge-in monitor
 * (`listen.bargeIn: voice`) has the recorder open during speech. It is no
 * listen: no session, no floor, nobody queued behind it.
 */
export const VOICE_BARGE_IN_ID = 'voice-barge-in';

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

/** The part of the status answer that lists them (beside StatusResponse). */
export interface SessionVoices {
  sessionVoices?: SessionVoice[];
}

/**
 * GET /v1/status's `transcriber`: what a listen would transcribe with now,
 * by the same choice a listen makes (`transcriber.kind`, the model in
 * VOX_HOME/asr, `transcriber.url`). Absent from a voxd older than this field.
 */
export interface TranscriberStatus {
  /** The setting `transcriber.kind`: auto, local or server. */
  kind: string;
  /** `local NAME (TYPE)` or `server URL`, as a listen's `transcriber` says it; null: none, a listen only records. */
  using: string | null;
  /** Why it cannot transcribe, when it cannot (a damaged model, none where `local` needs one, no URL). */
  problem?: string;
}

export interface TranscriberStatusField {
  transcriber?: TranscriberStatus;
}

/** A narration that has spoken all it has and waits for the model's next lines (out of the queue meanwhile). */
export interface NarratingItem {
  id: string;
  session: string;
  /** Sentences spoken so far. */
  spoken: number;
  /** Since when it waits, ms. */
  waitingMs: number;
}

/** The part of GET /v1/status that lists them (at most the status answer's `limit`, oldest first); a voxd older than it leaves it out. */
export interface NarratingStatusField {
  narrating?: { length: number; items: NarratingItem[] };
}

/**
 * Why voxd holds all speech (its quiet gate): `paused` by a media key (MPRIS),
 * `microphone` in use by another program, `quiet-hours`.
 */
export type QuietReason = 'paused' | 'microphone' | 'quiet-hours';

/** `quiet` in GET /v1/status: whether speech is held and why, and the desktop parts that can hold it. */
export interface QuietStatus {
  held: boolean;
  reasons: Array<{ reason: QuietReason; detail: string }>;
  /** voxd as a media player on the session bus: `served` while it owns its name; `detail` says why not. */
  mpris: { available: boolean; served: boolean; detail: string };
  /** The watch for other programs recording: `pactl`, `alsa` (/proc/asound) or `none`. */
  microphone: { watch: 'pactl' | 'alsa' | 'none'; detail: string };
}

export interface QuietStatusField {
  quiet?: QuietStatus;
}

export interface HealthResponse {
  ok: boolean;
  version: string;
}
