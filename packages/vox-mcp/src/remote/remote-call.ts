/**
 * A client call on host B through the link to A's voxd (link.ts). No
 * autostart (voxd is on A); a speak request that cannot reach A is spooled
 * (spool.ts) and answered `queued`; a refused token is a remote error of its own.
 */
import { ClientError } from '../errors.js';
import { request, type Endpoint, type Reply } from '../daemon/http.js';
import { spool } from './spool.js';

export async function callRemote<T>(
  env: NodeJS.ProcessEnv,
  endpoint: Endpoint,
  method: string,
  path: string,
  body: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Reply<T>> {
  const remote = endpoint.remote!;
  // The session label carries this host's name: voxd on A shows "B/api#3c07f0".
  if (body && typeof body === 'object' && typeof (body as { session?: unknown }).session === 'string' && remote.as) {
    body = { ...body, session: `${remote.as}/${(body as { session: string }).session}` };
  }
  let reply: Reply<T>;
  try {
    reply = await request<T>(endpoint, method, path, body, timeoutMs, signal);
  } catch (err) {
    if (err instanceof ClientError || (err as Error).name === 'AbortError') throw err;
    const speech = body as { requestId?: string; wait?: boolean } | undefined;
    // A request that may have arrived is spooled too: its requestId makes the re-send a join, never a second playback.
    if (method === 'POST' && path === '/v1/speak' && speech?.requestId && !speech.wait) {
      spool(env, speech as never);
      return {
        status: 202,
        body: {
          id: speech.requestId,
          status: 'queued',
          reason: `the link to ${remote.host} is down: spooled, sent when it returns`,
        } as T,
        daemonVersion: remote.version,
      };
    }
    throw new ClientError(
      'VOX_ERR_CLIENT_REMOTE_DOWN',
      `the link to voxd on ${remote.host} (${endpoint.socketPath}) is down: ${(err as Error).message}. Is "vox remote connect ${remote.host}" running? (docs/remote.md)`,
    );
  }
  if (reply.status === 401) {
    throw new ClientError(
      'VOX_ERR_CLIENT_REMOTE_TOKEN',
      `voxd on ${remote.host} refused the token in VOX_HOME/remote.json (it changed, or the file was edited); run "vox remote connect ${remote.host}" again to fetch it`,
    );
  }
  return reply;
}
