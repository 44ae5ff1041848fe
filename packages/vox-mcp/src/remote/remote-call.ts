/**
 * The remote link layer: a client call on host B through the link to A's
 * voxd (link.ts), when nothing on B says where a voxd is, or the one that
 * voxd.json names does not answer (a local voxd that died on a host with a
 * link). It sits inside auto-start (client/call.ts composes the layers), so
 * a linked call never starts a voxd on B. A speak request that cannot reach
 * A is spooled (spool.ts) and answered `queued`; a refused token is a remote
 * error of its own.
 */
import { ClientError } from '../errors.js';
import { request, type Endpoint, type Reply } from '../daemon/http.js';
import { NoAnswer } from '../daemon/no-answer.js';
import { timeLeft, type CallRequest, type Layer } from '../daemon/send.js';
import { linkEndpoint } from './link.js';
import { spool } from './spool.js';

export const remoteLink: Layer =
  (next) =>
  async <T>(req: CallRequest): Promise<Reply<T>> => {
    const { env } = req;
    const viaLink = (link: Endpoint) =>
      callRemote<T>(env, link, req.method, req.path, req.body, timeLeft(req, req.timeoutMs), req.signal);
    const link = req.endpoint ? undefined : linkEndpoint(env);
    if (link) return viaLink(link);
    try {
      return await next<T>(req);
    } catch (err) {
      // Not after voxd went away mid-answer (a restart): that one comes back.
      if (!(err instanceof NoAnswer) || err.wentAway || err.endpoint?.source !== 'voxd.json') throw err;
      const stale = linkEndpoint(env);
      if (!stale) throw err;
      return viaLink(stale);
    }
  };

/**
 * How long a speak through the link waits for voxd's answer before it is spooled, in ms. voxd answers a
 * speak at once; 1 s leaves a hook (2.5 s in all, with its start and exit under load) half a second of
 * margin, and a live tunnel that is only slow costs nothing: the spooled speech is re-sent by its
 * requestId, a join, never a second playback.
 */
const SPEAK_ANSWER_MS = 1000;

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
  const speech = body as { requestId?: string; wait?: boolean } | undefined;
  const spoolable = method === 'POST' && path === '/v1/speak' && !!speech?.requestId && !speech.wait;
  let reply: Reply<T>;
  try {
    // voxd answers a speak at once (it only queues it): one that waits longer is on a stalled tunnel, and
    // spooling it then leaves the caller (a hook's 2.5 s) its margin.
    reply = await request<T>(
      endpoint,
      method,
      path,
      body,
      spoolable ? Math.min(timeoutMs, SPEAK_ANSWER_MS) : timeoutMs,
      signal,
    );
  } catch (err) {
    if (err instanceof ClientError || (err as Error).name === 'AbortError') throw err;
    // A request that may have arrived is spooled too: its requestId makes the re-send a join, never a second playback.
    if (spoolable) {
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
