/**
 * The client side of a listen (POST /v1/listen), shared by `vox listen` and
 * the MCP tools `listen` and `converse`. A listen is one long request: its
 * deadline covers waiting for the utterance playing, the recording's maximum
 * and the transcriber. Aborting it hangs up, and voxd releases the microphone.
 */
import {
  LISTEN_DEFAULTS,
  VOICE_BARGE_IN_ID,
  type ListenErrorBody,
  type ListeningStatus,
  type ListenReleaseResponse,
  type ListenRequest,
  type ListenResponse,
} from '@vox/protocol';
import { call } from './call.js';
import type { Reply } from '../daemon/http.js';

/** Beyond the recording itself: the utterance a listen waits for, and the transcriber (voxd's default timeout is 30 s). */
const LISTEN_SLACK_MS = 150_000;

export function listenTimeoutMs(request: ListenRequest): number {
  // Plus the time it may queue for the microphone.
  return (
    (request.maxSeconds ?? LISTEN_DEFAULTS.maxSeconds) * 1000 +
    (request.waitMs ?? LISTEN_DEFAULTS.waitMs) +
    LISTEN_SLACK_MS
  );
}

/** Hand a kept floor on (POST /v1/listen/release). */
export function releaseFloor(env: NodeJS.ProcessEnv, token: string): Promise<Reply<ListenReleaseResponse>> {
  return call<ListenReleaseResponse>(env, 'POST', '/v1/listen/release', { token }, 10_000);
}

/** Whether `listening` is the voice barge-in monitor rather than a listen (it has no session, no floor, no queue). */
export function isVoiceBargeIn(l: ListeningStatus): boolean {
  return l.id === VOICE_BARGE_IN_ID && l.session === undefined;
}

/** The floor in a few words, for vox status and vox doctor: open or not, how many wait, a kept floor's idle time left. */
export function floorState(l: ListeningStatus): string {
  const parts = [l.open ? 'open' : l.kept ? 'kept for its follow-up, not recording' : 'not recording yet'];
  if (l.kept?.expiresInMs !== undefined) parts.push(`${Math.ceil(l.kept.expiresInMs / 1000)} s idle left`);
  if (l.queued) parts.push(`${l.queued} waiting`);
  // An older voxd says neither.
  return l.open === undefined ? '' : parts.join(', ');
}

export function listen(
  env: NodeJS.ProcessEnv,
  request: ListenRequest,
  signal?: AbortSignal,
): Promise<Reply<ListenResponse | ListenErrorBody>> {
  return call<ListenResponse | ListenErrorBody>(
    env,
    'POST',
    '/v1/listen',
    request,
    listenTimeoutMs(request),
    signal ? { signal } : {},
  );
}

/** A failed listen in one line: voxd's code and message, and where the audio captured so far is. */
export function listenFailure(status: number, body: unknown): string {
  const e = (body ?? {}) as Partial<ListenErrorBody>;
  return `${e.code ?? `HTTP ${status}`}: ${e.message ?? 'voxd refused the listen'}${e.audioPath ? ` The recording: ${e.audioPath}` : ''}`;
}
