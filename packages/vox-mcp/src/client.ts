/**
 * The client side of the wire: find voxd, start it when nothing answers, and
 * speak HTTP to it. Built on node:http, not undici: this module is on the hot
 * path of every hook, and undici's import alone costs several times a whole
 * `vox say` (bench/say.mjs).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { DEFAULT_HOST, DEFAULT_PORT, homePaths, voxHome, type DaemonState, type HealthResponse } from '@vox/protocol';
import { ClientError } from './errors.js';

export interface Endpoint {
  host: string;
  port: number;
  token: string | undefined;
  /** Where the endpoint came from, for messages. */
  source: 'VOXD_URL' | 'VOXD_PORT' | 'voxd.json' | 'default';
}

export interface Reply<T> {
  status: number;
  body: T;
  /** voxd's version, from its `x-voxd-version` header. */
  daemonVersion?: string;
}

export function readDaemonState(env: NodeJS.ProcessEnv): DaemonState | undefined {
  try {
    return JSON.parse(readFileSync(homePaths(voxHome(env)).state, 'utf8')) as DaemonState;
  } catch {
    return undefined;
  }
}

function readToken(env: NodeJS.ProcessEnv): string | undefined {
  if (env.VOXD_TOKEN) return env.VOXD_TOKEN;
  try {
    return readFileSync(homePaths(voxHome(env)).token, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** VOXD_URL, else VOXD_HOST/VOXD_PORT (unless 0), else VOX_HOME/voxd.json; undefined when none says where. */
export function resolveEndpoint(env: NodeJS.ProcessEnv): Endpoint | undefined {
  const token = readToken(env);
  if (env.VOXD_URL) {
    let url: URL;
    try {
      url = new URL(env.VOXD_URL);
    } catch {
      throw new ClientError('VOX_ERR_CLIENT_USAGE', `VOXD_URL is not a URL: ${JSON.stringify(env.VOXD_URL)}; use e.g. http://127.0.0.1:${DEFAULT_PORT}`);
    }
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), token, source: 'VOXD_URL' };
  }
  // VOXD_PORT=0 tells voxd to pick a free port; only voxd.json knows which.
  if (env.VOXD_PORT && env.VOXD_PORT !== '0') {
    return { host: env.VOXD_HOST || DEFAULT_HOST, port: Number(env.VOXD_PORT), token, source: 'VOXD_PORT' };
  }
  const state = readDaemonState(env);
  if (state) return { host: env.VOXD_HOST || state.host || DEFAULT_HOST, port: state.port, token, source: 'voxd.json' };
  return undefined;
}

/** One HTTP request. Rejects only on connection problems; any HTTP status resolves. */
export function request<T>(endpoint: Endpoint, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Reply<T>> {
  return requestBytes(endpoint, method, path, body, timeoutMs).then(({ status, bytes, contentType, daemonVersion }) => {
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
  });
}

/** Like request(), but hands back the raw body (WAV audio from /v1/synthesize). */
export function requestBytes(
  endpoint: Endpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; bytes: Buffer; contentType: string; daemonVersion?: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (endpoint.token) headers.authorization = `Bearer ${endpoint.token}`;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = httpRequest({ host: endpoint.host, port: endpoint.port, method, path, headers, timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const v = res.headers['x-voxd-version'];
        resolve({
          status: res.statusCode ?? 0,
          bytes: Buffer.concat(parts),
          contentType: String(res.headers['content-type'] ?? ''),
          ...(typeof v === 'string' ? { daemonVersion: v } : {}),
        });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer from voxd within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(payload);
  });
}

/** GET /v1/health; undefined when nothing answers. */
export async function health(env: NodeJS.ProcessEnv, timeoutMs = 1000): Promise<HealthResponse | undefined> {
  const endpoint = resolveEndpoint(env);
  if (!endpoint) return undefined;
  return healthAt(endpoint, timeoutMs);
}

async function healthAt(endpoint: Endpoint, timeoutMs: number): Promise<HealthResponse | undefined> {
  try {
    const reply = await request<HealthResponse>(endpoint, 'GET', '/v1/health', undefined, timeoutMs);
    return reply.status === 200 && reply.body?.ok ? reply.body : undefined;
  } catch {
    return undefined;
  }
}

async function voxdEntry(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.VOXD_BIN) return env.VOXD_BIN;
  // createRequire works both in the ESM build and in the bundled CJS bin.
  // Loaded only here, like node:child_process: most runs find voxd already up.
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url).resolve('voxd/main');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Start voxd detached, passing the environment on, and wait until it answers.
 * A spawn lock in VOX_HOME makes eight clients that arrive at once start one daemon;
 * the others wait for it.
 */
export async function startDaemon(env: NodeJS.ProcessEnv, timeoutMs = 15_000): Promise<Endpoint> {
  const paths = homePaths(voxHome(env));
  mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + timeoutMs;
  let spawned = false;
  let lockFd: number | undefined;
  try {
    while (Date.now() < deadline) {
      const endpoint = resolveEndpoint(env);
      if (endpoint && (await healthAt(endpoint, 500))) return { ...endpoint, token: readToken(env) };
      if (!spawned && lockFd === undefined) {
        try {
          lockFd = openSync(paths.spawnLock, 'wx', 0o600);
          writeSync(lockFd, String(process.pid));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          // A lock older than the start timeout belongs to a client that died.
          try {
            if (Date.now() - statSync(paths.spawnLock).mtimeMs > timeoutMs) rmSync(paths.spawnLock, { force: true });
          } catch {
            // gone already
          }
        }
        if (lockFd !== undefined) {
          // Loaded only here: most runs find voxd already up.
          const { spawn } = await import('node:child_process');
          const child = spawn(process.execPath, [await voxdEntry(env)], { detached: true, stdio: 'ignore', env });
          child.unref();
          spawned = true;
        }
      }
      await sleep(50);
    }
  } finally {
    if (lockFd !== undefined) {
      closeSync(lockFd);
      rmSync(paths.spawnLock, { force: true });
    }
  }
  throw new ClientError(
    'VOX_ERR_CLIENT_DAEMON_START_FAILED',
    `voxd did not answer within ${Math.round(timeoutMs / 1000)} s after being started; run "voxd" in a terminal to see why, or check ${paths.logs}`,
  );
}

function unreachable(endpoint: Endpoint | undefined, cause: string): ClientError {
  const where = endpoint ? `at ${endpoint.host}:${endpoint.port} (from ${endpoint.source})` : '(no voxd.json in VOX_HOME, so none is running)';
  return new ClientError(
    'VOX_ERR_CLIENT_DAEMON_UNREACHABLE',
    `cannot reach voxd ${where}: ${cause}. Start it with "vox daemon start" (or unset VOX_NO_AUTOSTART).`,
  );
}

function connectionFailed(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ENOENT' || code === 'EHOSTUNREACH' || code === 'EADDRNOTAVAIL';
}

/**
 * Call voxd, starting it when nothing answers (unless VOX_NO_AUTOSTART=1).
 * Throws ClientError when it cannot be reached.
 */
export async function call<T>(
  env: NodeJS.ProcessEnv,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs?: number,
  options: { /** How long to wait for a voxd this call starts, in ms. Default 15000. */ startTimeoutMs?: number } = {},
): Promise<Reply<T>> {
  let endpoint = resolveEndpoint(env);
  if (endpoint) {
    try {
      return await request<T>(endpoint, method, path, body, timeoutMs);
    } catch (err) {
      if (!connectionFailed(err)) throw unreachable(endpoint, (err as Error).message);
    }
  }
  if (env.VOX_NO_AUTOSTART === '1') throw unreachable(endpoint, endpoint ? 'connection refused' : 'VOX_NO_AUTOSTART=1 is set');
  endpoint = await startDaemon(env, options.startTimeoutMs);
  try {
    return await request<T>(endpoint, method, path, body, timeoutMs);
  } catch (err) {
    throw unreachable(endpoint, (err as Error).message);
  }
}

export { DEFAULT_PORT };
