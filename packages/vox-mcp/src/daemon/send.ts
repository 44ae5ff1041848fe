/**
 * A call to voxd as layers, the way undici composes its interceptors: each
 * layer is a function of the next one (`Layer`), does one job around it
 * (auto-start, token repair, re-send, the remote link) and can be read and
 * tested alone; client/call.ts composes them in one place. The innermost is
 * `transport`: one request over node:http (http.ts) to the endpoint the
 * layers above chose. Rejected: one function doing every job (it was 440
 * lines, and the remote link made daemon/ and remote/ import each other), and
 * an event emitter per call (a cost on the hot path of every hook).
 */
import { ClientError } from '../errors.js';
import { request, type Endpoint, type Reply } from './http.js';

/** One call as it goes down the layers; a layer passes on a copy with what it changed. */
export interface CallRequest {
  env: NodeJS.ProcessEnv;
  method: string;
  path: string;
  body?: unknown;
  /** Where it goes; undefined when nothing says where voxd is. */
  endpoint?: Endpoint;
  /** The answer's own time, in ms; each attempt gets at most what is left of `deadline`. */
  timeoutMs: number;
  /** How long to wait for a voxd that this call starts, in ms. */
  startTimeoutMs: number;
  /** The call's total deadline, as a Date.now() time. */
  deadline: number;
  signal?: AbortSignal;
  /** Set on the attempt after auto-start started voxd (or waited for it): the layers below take that answer as it is. */
  started?: boolean;
}

export type Send = <T>(req: CallRequest) => Promise<Reply<T>>;
export type Layer = (next: Send) => Send;

/** `send` inside `layers`, the first outermost. */
export function compose(layers: Layer[], send: Send): Send {
  return layers.reduceRight<Send>((next, layer) => layer(next), send);
}

/** `ms`, or less when the call's deadline is nearer; at least 1 ms. */
export function timeLeft(req: CallRequest, ms: number): number {
  return Math.max(1, Math.min(ms, req.deadline - Date.now()));
}

/** The innermost layer: one request to `req.endpoint`; voxd at its connection cap is an error of its own. */
export const transport: Send = async <T>(req: CallRequest): Promise<Reply<T>> => {
  const endpoint = req.endpoint!;
  const reply = await request<T>(endpoint, req.method, req.path, req.body, timeLeft(req, req.timeoutMs), req.signal);
  const refused = tooManyConnections(reply, endpoint);
  if (refused) throw refused;
  return reply;
};

/** voxd answered at its connection cap (503 TOO_MANY_CONNECTIONS): a clear error, not a retry that adds one more. */
function tooManyConnections(reply: Reply<unknown>, endpoint: Endpoint): ClientError | undefined {
  const code = (reply.body as { code?: unknown } | undefined)?.code;
  if (reply.status !== 503 || typeof code !== 'string' || !code.endsWith('TOO_MANY_CONNECTIONS')) return undefined;
  return new ClientError(
    'VOX_ERR_CLIENT_DAEMON_UNREACHABLE',
    `voxd at ${endpoint.host}:${endpoint.port} refused the call: too many connections (${code}). Try again when fewer clients are connected; "vox status" shows what runs.`,
  );
}
