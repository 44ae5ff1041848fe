/**
 * The HTTP client shared by the cloud engines (undici 7: 8.x crashes on Node 20).
 *
 * Design notes:
 * - One keep-alive pool per engine, so a second utterance skips the TLS handshake.
 * - Retries only where a retry can help: 429 (honouring Retry-After, capped),
 *   5xx, and a pooled socket the server closed. Never on other 4xx, and never
 *   after a timeout (that would multiply the wait before the fallback speaks).
 * - Error messages are built here from the status and the API's own detail,
 *   with anything that looks like a key redacted: a 401 body from OpenAI quotes
 *   the (masked) key, and error text ends up in logs and on the wire.
 */
import type { Agent, Dispatcher } from 'undici';
import { applyGain, slices } from '../audio/pcm.js';
import type { SynthesisRequest } from './engine.js';

/** A request that may carry the caller's own key (never cached, never logged). */
export interface CloudSynthesisRequest extends SynthesisRequest {
  apiKey?: string;
}

/** The rate cloud engines treat as normal speed (1.0), in words per minute. */
export const NORMAL_RATE_WPM = 175;

export interface HttpClientOptions {
  /** TCP + TLS connect timeout, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Wait for the response headers, in ms. Default 20000. */
  headersTimeoutMs?: number;
  /** Longest silence allowed between two body chunks, in ms. Default 20000. */
  bodyIdleTimeoutMs?: number;
  /** Retries after the first attempt (on 429, 5xx, reset sockets). Default 2. */
  retries?: number;
  /** First backoff in ms, doubled on each retry. Default 250. */
  backoffMs?: number;
  /** Cap on any single wait, Retry-After included, in ms. Default 4000. */
  maxBackoffMs?: number;
}

export const HTTP_DEFAULTS: Required<HttpClientOptions> = Object.freeze({
  connectTimeoutMs: 5000,
  headersTimeoutMs: 20_000,
  bodyIdleTimeoutMs: 20_000,
  retries: 2,
  backoffMs: 250,
  maxBackoffMs: 4000,
});

export type CloudErrorKind = 'auth' | 'rate-limit' | 'client' | 'server' | 'timeout' | 'network' | 'aborted';

/** A failed cloud call. `message` is safe to log and to send: it never holds a key. */
export class CloudError extends Error {
  override readonly name = 'CloudError';
  readonly kind: CloudErrorKind;
  readonly status: number | undefined;
  readonly attempts: number;
  constructor(kind: CloudErrorKind, message: string, options: { status?: number; attempts?: number } = {}) {
    super(message);
    this.kind = kind;
    this.status = options.status;
    this.attempts = options.attempts ?? 1;
  }
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Values to scrub from any error text (the key in use). */
  secrets?: string[];
  /** Added to 401/403 messages, e.g. `check OPENAI_API_KEY`. */
  authHint?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it arrives. Timeouts and resets surface as CloudError. */
  body: AsyncIterable<Buffer>;
}

export interface HttpClient {
  /** Resolves on a 2xx with the body unread; rejects with CloudError otherwise. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** GET/POST and parse a JSON answer. */
  json<T>(req: HttpRequest): Promise<T>;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  402: 'payment required',
  403: 'forbidden',
  404: 'not found',
  422: 'unprocessable request',
  429: 'rate limited or out of quota',
};

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const o = { ...HTTP_DEFAULTS, ...stripUndefined(options) };
  // undici is loaded on first use: most voxd processes never call a cloud API,
  // and it costs ~12 MB of RSS and ~100 ms of start-up.
  let agentPromise: Promise<Agent> | undefined;
  const getAgent = () =>
    (agentPromise ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          connect: { timeout: o.connectTimeoutMs },
          headersTimeout: o.headersTimeoutMs,
          bodyTimeout: o.bodyIdleTimeoutMs,
          keepAliveTimeout: 30_000,
        }),
    ));
  let closed = false;

  async function request(req: HttpRequest): Promise<HttpResponse> {
    const scrub = (s: string) => redact(s, req.secrets);
    const url = new URL(req.url);
    for (let attempt = 1; ; attempt++) {
      if (req.signal?.aborted) throw new CloudError('aborted', 'aborted');
      let res: Dispatcher.ResponseData;
      try {
        const agent = await getAgent();
        res = await agent.request({
          method: req.method,
          origin: url.origin,
          path: url.pathname + url.search,
          headers: req.headers,
          body: req.body,
          signal: req.signal,
        });
      } catch (err) {
        const e = toCloudError(err, req.signal, o, attempt, scrub);
        if (e.kind === 'network' && isReset(err) && attempt <= o.retries) {
          await sleep(backoff(o, attempt), req.signal);
          continue;
        }
        throw e;
      }
      const status = res.statusCode;
      if (status >= 200 && status < 300) {
        return { status, headers: res.headers, body: guardBody(res.body, req.signal, o, scrub) };
      }
      const detail = scrub(apiDetail(await readSome(res.body)));
      const retryable = status === 429 || status >= 500;
      if (retryable && attempt <= o.retries) {
        await sleep(Math.min(retryAfterMs(res.headers) ?? backoff(o, attempt), o.maxBackoffMs), req.signal);
        continue;
      }
      const text = STATUS_TEXT[status] ?? (status >= 500 ? 'server error' : 'error');
      const tries = retryable && attempt > 1 ? ` after ${attempt} attempts` : '';
      const hint = (status === 401 || status === 403) && req.authHint ? ` (${req.authHint})` : '';
      const kind: CloudErrorKind =
        status === 401 || status === 403 ? 'auth' : status === 429 ? 'rate-limit' : status >= 500 ? 'server' : 'client';
      throw new CloudError(kind, `${status} ${text}${tries}${detail ? `: ${detail}` : ''}${hint}`, {
        status,
        attempts: attempt,
      });
    }
  }

  return {
    request,
    async json<T>(req: HttpRequest): Promise<T> {
      const res = await request({ ...req, headers: { accept: 'application/json', ...req.headers } });
      const parts: Buffer[] = [];
      for await (const chunk of res.body) parts.push(chunk);
      try {
        return JSON.parse(Buffer.concat(parts).toString('utf8')) as T;
      } catch {
        throw new CloudError('server', `${res.status} answer is not JSON`, { status: res.status });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // destroy, not close: close waits for a hung request to time out, and voxd is shutting down.
      if (agentPromise) await (await agentPromise).destroy();
    },
  };
}

/** Use the given client, or make one from options (then the caller owns and closes it). */
export function clientFrom(http: HttpClientOptions | HttpClient | undefined): { client: HttpClient; owned: boolean } {
  if (typeof (http as HttpClient | undefined)?.request === 'function')
    return { client: http as HttpClient, owned: false };
  return { client: createHttpClient(http as HttpClientOptions | undefined), owned: true };
}

/**
 * Turn an HTTP body into s16le chunks: sample-aligned (a network chunk may
 * end mid-sample), scaled by `gain` when below 1.
 */
export async function* pcmChunks(body: AsyncIterable<Buffer>, gain = 1): AsyncGenerator<Buffer> {
  for await (const chunk of slices(body, 1 << 20)) {
    yield applyGain(chunk, Math.max(0, gain));
  }
}

/** Scrub the given secrets and anything shaped like an API key. */
export function redact(text: string, secrets: string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out
    .replace(/\b(sk|xi)[-_][A-Za-z0-9_*.\-]{6,}/g, '[redacted]')
    .replace(/\b[A-Fa-f0-9]{32,}\b/g, '[redacted]')
    .replace(/\b(Bearer)\s+\S+/gi, '$1 [redacted]');
}

async function* guardBody(
  body: Dispatcher.ResponseData['body'],
  signal: AbortSignal | undefined,
  o: Required<HttpClientOptions>,
  scrub: (s: string) => string,
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    throw toCloudError(err, signal, o, 1, scrub);
  } finally {
    // A consumer that stops early must not leave the socket half-read.
    if (!body.destroyed) body.destroy();
  }
}

function toCloudError(
  err: unknown,
  signal: AbortSignal | undefined,
  o: Required<HttpClientOptions>,
  attempts: number,
  scrub: (s: string) => string,
): CloudError {
  if (err instanceof CloudError) return err;
  if (signal?.aborted) return new CloudError('aborted', 'aborted', { attempts });
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new CloudError('timeout', `timed out connecting after ${o.connectTimeoutMs} ms`, { attempts });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new CloudError('timeout', `no response within ${o.headersTimeoutMs} ms`, { attempts });
    case 'UND_ERR_BODY_TIMEOUT':
      return new CloudError('timeout', `audio stream stalled for ${o.bodyIdleTimeoutMs} ms`, { attempts });
    case 'UND_ERR_ABORTED':
      return new CloudError('aborted', 'aborted', { attempts });
  }
  const reason = code ? `${code}` : scrub(e.message ?? String(err));
  return new CloudError('network', `network error: ${reason}`, { attempts });
}

function isReset(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

function backoff(o: Required<HttpClientOptions>, attempt: number): number {
  return Math.min(o.backoffMs * 2 ** (attempt - 1), o.maxBackoffMs);
}

/** `retry-after-ms` (OpenAI), then `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = Number(one(headers['retry-after-ms']));
  if (one(headers['retry-after-ms']) !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = one(headers['retry-after']);
  if (ra === undefined) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The first 4 KB of an error body; the rest is discarded. */
async function readSome(body: Dispatcher.ResponseData['body']): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      parts.push(chunk);
      n += chunk.length;
      if (n >= 4096) break;
    }
  } catch {
    // The status says enough.
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(parts).subarray(0, 4096).toString('utf8');
}

/** The human part of an API error body (OpenAI `error.message`, ElevenLabs `detail`). */
function apiDetail(text: string): string {
  let msg = text.trim();
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    const error = j.error as { message?: unknown } | string | undefined;
    const detail = j.detail as { message?: unknown } | Array<{ msg?: unknown }> | string | undefined;
    const candidates = [
      typeof error === 'object' ? error?.message : error,
      typeof detail === 'string' ? detail : Array.isArray(detail) ? detail[0]?.msg : detail?.message,
      j.message,
    ];
    const found = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
    if (found) msg = found;
  } catch {
    // Not JSON: keep the text, unless it is a whole HTML page.
    if (/^<(!doctype|html)/i.test(msg)) msg = '';
  }
  msg = msg.replace(/\s+/g, ' ');
  return msg.length > 200 ? `${msg.slice(0, 200)}…` : msg;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new CloudError('aborted', 'aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CloudError('aborted', 'aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
