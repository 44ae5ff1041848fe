/**
 * The HTTP side of the wire: where voxd is (VOXD_URL, VOXD_PORT, voxd.json),
 * its token, and one request to it. Built on node:http, not undici: this
 * module is on the hot path of every hook, and undici's import alone costs
 * several times a whole `vox say` (bench/say.mjs).
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  parseDaemonState,
  readRegularFile,
  STATE_FILE,
  STATE_FILE_MAX_BYTES,
  TOKEN_FILE,
  voxHome,
  type DaemonState,
  type HealthResponse,
} from '@vox/protocol';
import { AbortError, ClientError, TimeoutError } from '../errors.js';

/** Where a request goes: this host's voxd, or another host's through the remote link (remote/link.ts). */
export interface Endpoint {
  host: string;
  port: number;
  token: string | undefined;
  /** Why VOX_HOME/token could not be used, when it could not: said when voxd refuses the call. */
  tokenProblem?: string;
  /** Where the endpoint came from, for messages. */
  source: 'VOXD_URL' | 'VOXD_PORT' | 'voxd.json' | 'remote.json' | 'default';
  /** Remote link (docs/remote.md): a unix socket that ssh forwards to voxd on another host. */
  socketPath?: string;
  remote?: { host: string; as: string; version: string };
}

export interface Reply<T> {
  status: number;
  body: T;
  /** voxd's version, from its `x-voxd-version` header. */
  daemonVersion?: string;
}

/**
 * VOX_HOME/voxd.json, or undefined when it is absent or spoiled (garbage,
 * wrong types, a FIFO, a directory, a link, too big): a spoiled file is treated
 * as absent, and voxd rewrites it (the live one within a second, or the one
 * that starts next). Read non-blocking and capped: it never hangs a hook.
 */
export function readDaemonState(env: NodeJS.ProcessEnv): DaemonState | undefined {
  return daemonStateFile(env).state;
}

/** voxd.json's state, or why there is none that a client can use ("is a FIFO (named pipe)"; undefined when absent). */
export function daemonStateFile(env: NodeJS.ProcessEnv): { state?: DaemonState; problem?: string } {
  // join() of the one path needed, not all of homePaths(): this runs on every hook.
  const read = readRegularFile(join(voxHome(env), STATE_FILE), { maxBytes: STATE_FILE_MAX_BYTES });
  if (!read.ok) return read.problem === 'missing' ? {} : { problem: `VOX_HOME/${STATE_FILE} ${read.why}` };
  const state = parseDaemonState(read.text);
  return state ? { state } : { problem: `VOX_HOME/${STATE_FILE} does not hold what voxd writes` };
}

/** The token, from VOXD_TOKEN or VOX_HOME/token; undefined when there is none or the file is not one voxd wrote. */
export function readToken(env: NodeJS.ProcessEnv): string | undefined {
  return tokenFile(env).token;
}

/** The token, or why VOX_HOME/token cannot be used as it is (undefined when absent). */
export function tokenFile(env: NodeJS.ProcessEnv): { token?: string; problem?: string } {
  if (env.VOXD_TOKEN) return { token: env.VOXD_TOKEN };
  const read = readRegularFile(join(voxHome(env), TOKEN_FILE), { maxBytes: TOKEN_MAX_BYTES });
  if (!read.ok) return read.problem === 'missing' ? {} : { problem: `VOX_HOME/${TOKEN_FILE} ${read.why}` };
  const token = read.text.trim();
  // voxd writes base64url: anything else would not even fit in an HTTP header.
  if (token && !/^[A-Za-z0-9_-]+$/.test(token))
    return { problem: `VOX_HOME/${TOKEN_FILE} does not hold a token voxd wrote` };
  return token ? { token } : {};
}

/** A token and a newline, with room to spare (voxd's own cap, access/token.ts). */
const TOKEN_MAX_BYTES = 256;

/**
 * This host's voxd: VOXD_URL, else VOXD_HOST/VOXD_PORT (unless 0), else
 * VOX_HOME/voxd.json; undefined when none says where (then a remote link may:
 * client/endpoint.ts). A host with a local voxd reads voxd.json and the token
 * and nothing else.
 */
export function localEndpoint(env: NodeJS.ProcessEnv): Endpoint | undefined {
  if (env.VOXD_URL) {
    let url: URL;
    try {
      url = new URL(env.VOXD_URL);
    } catch {
      throw new ClientError(
        'VOX_ERR_CLIENT_USAGE',
        `VOXD_URL is not a URL: ${JSON.stringify(env.VOXD_URL)}; use e.g. http://127.0.0.1:${DEFAULT_PORT}`,
      );
    }
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      ...withTokenFile(env),
      source: 'VOXD_URL',
    };
  }
  // VOXD_PORT=0 tells voxd to pick a free port; only voxd.json knows which.
  if (env.VOXD_PORT && env.VOXD_PORT !== '0') {
    return {
      host: env.VOXD_HOST || DEFAULT_HOST,
      port: Number(env.VOXD_PORT),
      ...withTokenFile(env),
      source: 'VOXD_PORT',
    };
  }
  const state = readDaemonState(env);
  if (state)
    return {
      host: env.VOXD_HOST || state.host || DEFAULT_HOST,
      port: state.port,
      ...withTokenFile(env),
      source: 'voxd.json',
    };
  return undefined;
}

function withTokenFile(env: NodeJS.ProcessEnv): { token: string | undefined; tokenProblem?: string } {
  const { token, problem } = tokenFile(env);
  return problem ? { token, tokenProblem: problem } : { token };
}

/**
 * Where node:http connects for `endpoint`. With a socket, the host goes too
 * (it is only the Host header then): without one, node:http takes
 * "localhost", and Node 22 and 24 test that with net.isIPv6, whose regex
 * costs a fresh process ~4 ms to compile (bench/remote-hook.mjs); an IPv4
 * literal never reaches it.
 */
export function connectOptions(
  endpoint: Endpoint,
): { socketPath: string; host: string } | { host: string; port: number } {
  return endpoint.socketPath
    ? { socketPath: endpoint.socketPath, host: endpoint.host }
    : { host: endpoint.host, port: endpoint.port };
}

function where(endpoint: Endpoint): string {
  if (endpoint.socketPath) return `${endpoint.socketPath} (from remote.json)`;
  return `${endpoint.host}:${endpoint.port} (from ${endpoint.source})`;
}

/** What answers is not voxd: a foreign server on its port, or a stale voxd.json naming one. */
export function notVoxd(endpoint: Endpoint, why: string): ClientError {
  return new ClientError(
    'VOX_ERR_CLIENT_NOT_VOXD',
    `what answers at ${where(endpoint)} is not voxd: ${why}. Stop what listens there, or point VOXD_PORT/VOXD_URL at voxd ("vox daemon status" shows where it is)`,
  );
}

/**
 * One HTTP request, within a total deadline of `timeoutMs` (a trickling or
 * stalled answer does not extend it). Rejects on connection problems, on the
 * deadline, and when the answer lacks voxd's `x-voxd-version` header
 * (VOX_ERR_CLIENT_NOT_VOXD); any HTTP status of voxd's resolves.
 */
export function request<T>(
  endpoint: Endpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
  signal?: AbortSignal,
): Promise<Reply<T>> {
  return requestBytes(endpoint, method, path, body, timeoutMs, signal).then(
    ({ status, bytes, contentType, daemonVersion }) => {
      if (!daemonVersion) throw notVoxd(endpoint, `it answered HTTP ${status} without voxd's x-voxd-version header`);
      const text = bytes.toString('utf8');
      let parsed: unknown = text;
      if (contentType.includes('json') || !contentType) {
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: hand the text back
        }
      }
      return { status, body: parsed as T, ...(daemonVersion ? { daemonVersion } : {}) };
    },
  );
}

/** Like request(), but hands back the raw body (WAV audio from /v1/synthesize). */
export function requestBytes(
  endpoint: Endpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
  /** Aborting hangs up: voxd ends what the request started (a listen releases the microphone). */
  signal?: AbortSignal,
): Promise<{
  status: number;
  bytes: Buffer;
  contentType: string;
  daemonVersion?: string;
  headers: NodeJS.Dict<string | string[]>;
}> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (endpoint.token) headers.authorization = `Bearer ${endpoint.token}`;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    let size = 0;
    const req = httpRequest({ ...connectOptions(endpoint), method, path, headers, timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        size += d.length;
        // No voxd answer is this big (a WAV of the longest text is a few MB).
        if (size > MAX_REPLY_BYTES)
          return fail(notVoxd(endpoint, `its answer is larger than ${MAX_REPLY_BYTES} bytes`));
        parts.push(d);
      });
      res.on('end', () => {
        clearTimeout(total);
        const v = res.headers['x-voxd-version'];
        resolve({
          status: res.statusCode ?? 0,
          bytes: Buffer.concat(parts),
          contentType: String(res.headers['content-type'] ?? ''),
          headers: res.headers,
          ...(typeof v === 'string' ? { daemonVersion: v } : {}),
        });
      });
      res.on('error', fail);
    });
    const late = () => new TimeoutError(`no complete answer within ${timeoutMs} ms`);
    const fail = (err: Error) => {
      clearTimeout(total);
      reject(err);
      req.destroy();
    };
    // The socket's idle timeout catches a stall; this one a trickle too.
    const total = setTimeout(() => fail(late()), timeoutMs);
    req.on('timeout', () => fail(late()));
    // A reset or hang-up (voxd killed mid-answer, or a half-close) is a connection failure: call() retries through autostart.
    req.on('error', fail);
    if (signal) {
      const abort = () => fail(new AbortError('the request was cancelled'));
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      req.once('close', () => signal.removeEventListener('abort', abort));
    }
    req.end(payload);
  });
}

const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** GET /v1/health; undefined when nothing answers, or something that is not voxd. */
export async function healthAt(endpoint: Endpoint, timeoutMs: number): Promise<HealthResponse | undefined> {
  try {
    const reply = await request<HealthResponse>(endpoint, 'GET', '/v1/health', undefined, timeoutMs);
    return reply.status === 200 && reply.body?.ok ? reply.body : undefined;
  } catch {
    return undefined;
  }
}
