/**
 * The layer that tells the layers above why voxd did not answer a call:
 * nothing listens (or nothing says where it is), what answers is not voxd
 * (a stale voxd.json), or voxd went away while it held the request (it hung
 * up, or said it is stopping). Each is a `NoAnswer`, which auto-start
 * (autostart.ts), the re-send rules (resend.ts) and the remote link
 * (remote/remote-call.ts) act on; any other failure is an error for the
 * caller, with its cause and fix (`unreachable`).
 */
import { ClientError } from '../errors.js';
import { daemonStateFile, type Endpoint, type Reply } from './http.js';
import type { CallRequest, Layer } from './send.js';

/** How a connection failed, for the message: each has its own cause and fix. */
export type Failure = 'refused' | 'reset' | 'timeout' | 'other';

/** voxd did not answer this call, and another voxd (started, restarted, or on the link) may. */
export class NoAnswer extends Error {
  constructor(
    /** Where the call went; undefined when nothing said where voxd is. */
    readonly endpoint: Endpoint | undefined,
    readonly failure: Failure,
    /** voxd went away while it held the request: what comes next is a re-send. */
    readonly wentAway: boolean,
  ) {
    super(`voxd did not answer (${failure})`);
  }
}

export const noAnswer: Layer =
  (next) =>
  async <T>(req: CallRequest): Promise<Reply<T>> => {
    if (req.started) return next<T>(req);
    const { endpoint, env } = req;
    // An invalid VOXD_PORT (abc, 99999) is voxd's to explain: it validates its settings.
    if (!endpoint || !validPort(endpoint.port)) throw new NoAnswer(endpoint, 'refused', false);
    let reply: Reply<T>;
    try {
      reply = await next<T>(req);
    } catch (err) {
      // A voxd.json that names another server is stale: start voxd, which rewrites it.
      const stale =
        err instanceof ClientError &&
        err.code === 'VOX_ERR_CLIENT_NOT_VOXD' &&
        endpoint.source === 'voxd.json' &&
        env.VOX_NO_AUTOSTART !== '1';
      if (stale) throw new NoAnswer(endpoint, 'refused', false);
      if (err instanceof ClientError || (err as Error).name === 'AbortError') throw err;
      const failure = failureOf(err);
      if (!connectionFailed(err)) throw unreachable(env, endpoint, (err as Error).message, failure);
      throw new NoAnswer(endpoint, failure, failure === 'reset');
    }
    // voxd is stopping (a restart, say): like a refused connection, wait for the next one and send there.
    if (shuttingDown(reply) && env.VOX_NO_AUTOSTART !== '1') throw new NoAnswer(endpoint, 'refused', true);
    return reply;
  };

export function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65535;
}

function shuttingDown(reply: Reply<unknown>): boolean {
  return reply.status === 503 && (reply.body as { code?: unknown } | undefined)?.code === 'VOX_ERR_SHUTTING_DOWN';
}

function connectionFailed(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ENOENT' ||
    code === 'EHOSTUNREACH' ||
    code === 'EADDRNOTAVAIL'
  );
}

export function failureOf(err: unknown): Failure {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'EADDRNOTAVAIL') return 'refused';
  if (e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'reset';
  if (e.code === 'ETIMEDOUT') return 'timeout';
  return 'other';
}

/** voxd cannot be reached: where it was looked for, why, and what to do. */
export function unreachable(
  env: NodeJS.ProcessEnv,
  endpoint: Endpoint | undefined,
  cause: string,
  failure: Failure = 'other',
): ClientError {
  const problem = endpoint ? undefined : daemonStateFile(env).problem;
  const where = endpoint
    ? `at ${endpoint.host}:${endpoint.port} (from ${endpoint.source})`
    : problem
      ? `(${problem}, so it names no voxd)`
      : '(no voxd.json in VOX_HOME, so none is running)';
  const noAuto = env.VOX_NO_AUTOSTART === '1';
  const fix =
    failure === 'timeout'
      ? 'Something accepted the connection but did not answer: a busy voxd, or another program holding the port. "vox daemon status" shows where voxd is; "vox logs" what it did.'
      : failure === 'reset'
        ? 'The connection was cut: voxd was stopping, restarting or at its connection cap. Try again; "vox logs" says which.'
        : problem
          ? `voxd rewrites it while it runs; ${noAuto ? 'start one with "vox daemon start", or unset VOX_NO_AUTOSTART' : 'if it stays, remove it and run "vox daemon restart"'}.`
          : noAuto && failure === 'refused'
            ? `${endpoint ? 'Nothing listens there: start' : 'Start'} it with "vox daemon start", or unset VOX_NO_AUTOSTART.`
            : 'Check it with "vox daemon status" and "vox logs".';
  return new ClientError('VOX_ERR_CLIENT_DAEMON_UNREACHABLE', `cannot reach voxd ${where}: ${cause}. ${fix}`);
}
