/**
 * Speech to text through an OpenAI-compatible `POST {url}/audio/transcriptions`
 * (multipart: `file` = the WAV, `model`, `language`, `response_format=json`):
 * OpenAI itself, whisper.cpp's server, speaches, faster-whisper-server.
 *
 * Design notes:
 * - Node's own fetch and FormData: one request per listen, so undici's pool
 *   buys nothing, and this module loads only on the first listen.
 * - The key follows the TTS keys' rules (access/keys.ts): environment first, then
 *   VOX_HOME/keys.env, never logged or sent back. `TRANSCRIBER_API_KEY`;
 *   for api.openai.com, `OPENAI_API_KEY` serves too. A local server needs none.
 * - Every failure is typed: unreachable, 401/403, 413, timeout, anything else.
 *   Messages never hold the key or the server's whole body.
 * - The peer is not trusted: its answer is read up to MAX_ANSWER_BYTES and no
 *   further (a transcript is a few KB; one that answered 50 MB, or never ended,
 *   once lifted voxd by gigabytes), the timeout covers the body too, a redirect
 *   is not followed (it would carry the recording and the key elsewhere), a
 *   body that is neither JSON nor plain text is not a transcript, and a key
 *   the server echoes is redacted from the transcript.
 */
import { VoxError } from '../errors.js';
import type { KeySource } from '../access/keys.js';

export const TRANSCRIBER_KEY_NAME = 'TRANSCRIBER_API_KEY';

/** The most of an answer that is read: 300 s of speech is about 5 KB of text. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface TranscriberConfig {
  /** API root, e.g. `http://127.0.0.1:8080/v1`; '' when none is set. */
  url: string;
  model: string;
  timeoutMs: number;
}

export interface Transcript {
  text: string;
  /** The transcriber's own time (request to answer), in ms. */
  ms: number;
}

export class Transcriber {
  readonly #config: TranscriberConfig;
  readonly #keys: KeySource;

  constructor(config: TranscriberConfig, keys: KeySource) {
    this.#config = config;
    this.#keys = keys;
  }

  get configured(): boolean {
    return this.#config.url !== '';
  }

  /** Where it posts, for messages (no credentials: the settings refuse them in the URL). */
  get endpoint(): string {
    return `${this.#config.url.replace(/\/+$/, '')}/audio/transcriptions`;
  }

  #key(): string | undefined {
    const own = this.#keys.get(TRANSCRIBER_KEY_NAME);
    if (own) return own;
    return new URL(this.#config.url).hostname === 'api.openai.com' ? this.#keys.get('OPENAI_API_KEY') : undefined;
  }

  async transcribe(wav: Buffer, options: { language?: string; signal?: AbortSignal } = {}): Promise<Transcript> {
    const form = new FormData();
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'speech.wav');
    form.append('model', this.#config.model);
    form.append('response_format', 'json');
    if (options.language) form.append('language', options.language);
    const key = this.#key();
    const timeout = AbortSignal.timeout(this.#config.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const started = performance.now();
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        body: form,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        signal,
        redirect: 'manual',
      });
    } catch (err) {
      throw this.#failure(err, timeout);
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw new VoxError(
        'VOX_ERR_TRANSCRIBER_FAILED',
        `${this.endpoint} answered HTTP ${res.status}, a redirect${redact(where(res.headers.get('location'), this.endpoint), key)}, which is not followed (it would take the recording and the key there); set transcriber.url to the server's API root itself`,
      );
    }
    let body: string;
    try {
      const read = await readCapped(res, MAX_ANSWER_BYTES);
      // An error's status still says what failed; a 200 that large is no transcript.
      if (read === undefined && res.ok)
        throw new VoxError(
          'VOX_ERR_TRANSCRIBER_FAILED',
          `${this.endpoint} answered more than ${MAX_ANSWER_BYTES / 1024} KB (HTTP ${res.status}), which is not a transcript; it was not read further`,
        );
      body = read ?? '';
    } catch (err) {
      if (err instanceof VoxError) throw err;
      throw this.#failure(err, timeout);
    }
    const ms = Math.round(performance.now() - started);
    if (res.status === 401 || res.status === 403) throw new VoxError('VOX_ERR_TRANSCRIBER_AUTH', res.status);
    if (res.status === 413) throw new VoxError('VOX_ERR_TRANSCRIBER_TOO_LARGE', wav.length);
    if (!res.ok)
      throw new VoxError('VOX_ERR_TRANSCRIBER_FAILED', `HTTP ${res.status} from ${this.endpoint}${detail(body, key)}`);
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new VoxError('VOX_ERR_TRANSCRIBER_FAILED', `${this.endpoint} answered JSON that does not parse`);
      }
      const text = (parsed as { text?: unknown })?.text;
      if (typeof text !== 'string')
        throw new VoxError('VOX_ERR_TRANSCRIBER_FAILED', `${this.endpoint} answered without a "text" field`);
      return { text: redact(text.trim(), key), ms };
    }
    // response_format=text servers, or a server that ignores the field; an HTML page is not a transcript.
    const mime = type.split(';')[0]!.trim().toLowerCase();
    if (mime !== '' && mime !== 'text/plain')
      throw new VoxError(
        'VOX_ERR_TRANSCRIBER_FAILED',
        `${this.endpoint} answered ${redact(mime.slice(0, 60), key)}, not a transcript (JSON or plain text)`,
      );
    return { text: redact(body.trim(), key), ms };
  }

  #failure(err: unknown, timeout: AbortSignal): VoxError {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (timeout.aborted) return new VoxError('VOX_ERR_TRANSCRIBER_TIMEOUT', this.#config.timeoutMs);
    if (e.name === 'AbortError')
      return Object.assign(new VoxError('VOX_ERR_TRANSCRIBER_FAILED', 'the listen was cancelled'), { aborted: true });
    const why = e.cause?.code ?? e.cause?.message ?? e.message;
    return new VoxError('VOX_ERR_TRANSCRIBER_UNREACHABLE', this.endpoint, why);
  }
}

/** The API's own error message, short, with the key scrubbed. */
function detail(body: string, key: string | undefined): string {
  let msg = body;
  try {
    const j = JSON.parse(body) as { error?: { message?: string } | string; detail?: string; message?: string };
    msg = (typeof j.error === 'string' ? j.error : j.error?.message) ?? j.detail ?? j.message ?? body;
  } catch {
    // Plain text.
  }
  msg = String(msg).replace(/\s+/g, ' ').trim();
  if (key) msg = msg.split(key).join('[key]');
  msg = msg.replace(/\b(sk|Bearer)[-_ ][A-Za-z0-9_-]{8,}/g, '[key]');
  return msg ? `: ${msg.slice(0, 200)}` : '';
}

/** A key the server echoed does not come back in the transcript. */
function redact(text: string, key: string | undefined): string {
  return key ? text.split(key).join('[key]') : text;
}

/** Where a redirect points, without its query (which may hold anything), for the message. */
function where(location: string | null, base: string): string {
  if (!location) return '';
  try {
    const u = new URL(location, base);
    return ` to ${u.origin}${u.pathname}`.slice(0, 200);
  } catch {
    return '';
  }
}

/** The body as text, or undefined once it passes `cap` bytes (the rest is not read: the stream is cancelled). */
async function readCapped(res: Response, cap: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > cap) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > cap) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}
