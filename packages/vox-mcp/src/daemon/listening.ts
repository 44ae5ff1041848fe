/**
 * The client side of a listen (POST /v1/listen), shared by `vox listen` and
 * the MCP tools `listen` and `converse`. A listen is one long request: its
 * deadline covers waiting for the utterance playing, the recording's maximum
 * and the transcriber. Aborting it hangs up, and voxd releases the microphone.
 */
import { LISTEN_DEFAULTS, type ListenErrorBody, type ListenRequest, type ListenResponse } from '@vox/protocol';
import { call } from './client.js';
import type { Reply } from './http.js';

/** Beyond the recording itself: the utterance a listen waits for, and the transcriber (voxd's default timeout is 30 s). */
const LISTEN_SLACK_MS = 150_000;

export function listenTimeoutMs(request: ListenRequest): number {
  return (request.maxSeconds ?? LISTEN_DEFAULTS.maxSeconds) * 1000 + LISTEN_SLACK_MS;
}

export function listen(env: NodeJS.ProcessEnv, request: ListenRequest, signal?: AbortSignal): Promise<Reply<ListenResponse | ListenErrorBody>> {
  return call<ListenResponse | ListenErrorBody>(env, 'POST', '/v1/listen', request, listenTimeoutMs(request), signal ? { signal } : {});
}

/** A failed listen in one line: voxd's code and message, and where the audio captured so far is. */
export function listenFailure(status: number, body: unknown): string {
  const e = (body ?? {}) as Partial<ListenErrorBody>;
  return `${e.code ?? `HTTP ${status}`}: ${e.message ?? 'voxd refused the listen'}${e.audioPath ? ` The recording: ${e.audioPath}` : ''}`;
}
