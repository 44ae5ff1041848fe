/**
 * `call()`: a call to voxd, wherever it is, composed here from its layers,
 * outermost first: re-send (a speak request's id), auto-start, the remote
 * link, what no answer means, token repair, and the transport (node:http).
 * daemon/send.ts says why layers; each is tested alone. The remote link sits
 * inside auto-start, so a linked host never starts a voxd of its own, and
 * remote/ wraps daemon/, never the reverse.
 */
import { autoStart } from '../daemon/autostart.js';
import { localEndpoint, type Reply } from '../daemon/http.js';
import { noAnswer } from '../daemon/no-answer.js';
import { resend } from '../daemon/resend.js';
import { compose, transport } from '../daemon/send.js';
import { tokenRepair } from '../daemon/token-repair.js';
import { remoteLink } from '../remote/remote-call.js';

const send = compose([resend, autoStart, remoteLink, noAnswer, tokenRepair], transport);

export interface CallOptions {
  /** How long to wait for a voxd this call starts, in ms. Default 15000. */
  startTimeoutMs?: number;
  /**
   * The call's total deadline in ms: connecting, starting voxd and the answer
   * together, whatever the other side does. Default: startTimeoutMs plus timeoutMs.
   */
  deadlineMs?: number;
  /** Hangs up the request when aborted (it rejects with an AbortError). */
  signal?: AbortSignal;
}

/**
 * Call voxd, starting it when nothing answers (unless VOX_NO_AUTOSTART=1),
 * within a total deadline. Throws ClientError when it cannot be reached in
 * time (VOX_ERR_CLIENT_DAEMON_UNREACHABLE) or what answers is not voxd
 * (VOX_ERR_CLIENT_NOT_VOXD).
 */
export function call<T>(
  env: NodeJS.ProcessEnv,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const deadline = Date.now() + (options.deadlineMs ?? startTimeoutMs + timeoutMs);
  let endpoint;
  try {
    endpoint = localEndpoint(env);
  } catch (err) {
    return Promise.reject(err);
  }
  return send<T>({
    env,
    method,
    path,
    body,
    endpoint,
    timeoutMs,
    startTimeoutMs,
    deadline,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
