/**
 * The re-send layer. A call is sent again when voxd went away while it held
 * it (killed or restarted mid-answer), or spooled by the remote link when the
 * link is down: so every speak request gets an id here, above the layers
 * that send again, and voxd joins a second send to the first instead of
 * speaking twice. And "vox daemon stop|restart" decides what a waiter does,
 * by its stop marker (stop-marker.ts): after a stop the caller is told,
 * during a restart it waits for the new voxd instead of starting one.
 */
import { ClientError } from '../errors.js';
import type { Reply } from './http.js';
import type { CallRequest, Layer } from './send.js';
import { readStopMarker } from './stop-marker.js';

export const resend: Layer =
  (next) =>
  <T>(req: CallRequest): Promise<Reply<T>> => {
    const { method, path, body } = req;
    if (method === 'POST' && path === '/v1/speak' && body && typeof body === 'object' && !('requestId' in body))
      return next<T>({ ...req, body: { ...body, requestId: newRequestId() } });
    return next<T>(req);
  };

/**
 * What the stop marker says before voxd is started again: throws when voxd
 * was stopped by request while this call waited on it (`wentAway`); `noSpawn`
 * while a restart is under way (wait for the voxd it starts).
 */
export function afterGoingAway(env: NodeJS.ProcessEnv, wentAway: boolean): { noSpawn: boolean } {
  const marker = readStopMarker(env);
  if (marker?.reason === 'stop' && wentAway) {
    throw new ClientError(
      'VOX_ERR_CLIENT_DAEMON_STOPPED',
      'voxd was stopped by request ("vox daemon stop") while this call waited, so its speech was stopped; what voxd had not spoken stays in its journal and is spoken when voxd starts again ("vox daemon start", or the next call).',
    );
  }
  return { noSpawn: marker?.reason === 'restart' };
}

/**
 * Unique enough within one VOX_HOME (time, pid and 48 random bits), and free:
 * no crypto on the hook path for an id that guards against nothing hostile.
 */
function newRequestId(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.floor(Math.random() * 2 ** 48).toString(36)}`;
}
