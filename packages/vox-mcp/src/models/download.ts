/**
 * Downloading a voice model archive into a `.part` file, within bounds: a
 * size cap, a total deadline, and a stall timeout, so that a server that
 * sends forever, or one byte a second, costs a bounded amount of disk and time.
 *
 * Design notes:
 * - Resumed with a Range request after a cut connection, within one run (up
 *   to three tries). A failed install removes the `.part` (install.ts): a
 *   later run starts afresh.
 * - Redirects are followed (GitHub release assets redirect), five at most,
 *   and each hop must pass the catalogue's URL rule (https, or http to this
 *   machine), so a redirect cannot downgrade to plain http.
 * - The cap is checked on the declared length before the body is read, and
 *   on every chunk as it arrives: nothing past the cap is written.
 * - Stalled: no data for `idleMs`, or less than MIN_BYTES_PER_WINDOW in a
 *   window of `idleMs` (a trickle that never goes idle). Each counts as a cut
 *   connection (another try); the deadline ends every try.
 */
import { createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { printable } from '@vox/protocol';
import { shownUrl, urlProblem } from './catalogue.js';
import { ModelError, diskError, mb, type Progress } from './model-error.js';

export interface DownloadOptions {
  progress?: Progress;
  note?: (line: string) => void;
  signal?: AbortSignal;
  /** Connection attempts per run. Default 3. */
  attempts?: number;
  /** Milliseconds without data, or a window with too little, before a connection counts as stalled. Default 30000. */
  idleMs?: number;
  /** Milliseconds the whole download may take, every try included. Default 3600000 (one hour). */
  deadlineMs?: number;
  /** The largest archive accepted, in bytes. */
  maxBytes: number;
}

/** A window of `idleMs` must bring at least this much, or the connection is stalled (2 KiB/s over the default 30 s). */
export const MIN_BYTES_PER_WINDOW = 64 * 1024;

function request(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { headers: { 'user-agent': 'vox-voices', ...headers }, signal }, resolve);
    req.on('error', reject);
  });
}

/** GET following up to five redirects, each to a URL the catalogue's rule allows. */
async function follow(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  let at = url;
  for (let hop = 0; hop <= 5; hop++) {
    const res = await request(at, headers, signal);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      const next = new URL(location, at).toString();
      const problem = urlProblem(next);
      if (problem)
        throw new ModelError(
          'VOX_ERR_CLIENT_DOWNLOAD_FAILED',
          `${shownUrl(at)} redirects to ${printable(shownUrl(next))}, which vox does not follow: ${problem}`,
        );
      at = next;
      continue;
    }
    return res;
  }
  throw new ModelError('VOX_ERR_CLIENT_DOWNLOAD_FAILED', `too many redirects from ${shownUrl(url)}`);
}

/** Download `url` into `part`, resuming what is there; resolves when `part` holds the whole file. */
export async function download(url: string, part: string, options: DownloadOptions): Promise<void> {
  const attempts = options.attempts ?? 3;
  const idleMs = options.idleMs ?? 30_000;
  const deadlineMs = options.deadlineMs ?? 3_600_000;
  const { maxBytes } = options;
  const shown = shownUrl(url);
  /** `declared`: the size the server gave; without it, the body passed the cap as it arrived. */
  const tooLarge = (declared?: number) =>
    new ModelError(
      'VOX_ERR_CLIENT_MODEL_TOO_LARGE',
      `${shown} is ${declared === undefined ? `over ${mb(maxBytes)}` : mb(declared)}, more than the ${mb(maxBytes)} vox accepts for this model (its catalogue size, with room to spare); nothing was installed`,
    );
  // One signal for the caller's abort and the deadline.
  const late = new AbortController();
  const timer = setTimeout(
    () =>
      late.abort(
        new ModelError(
          'VOX_ERR_CLIENT_DOWNLOAD_FAILED',
          `the download of ${shown} did not finish within ${Math.round(deadlineMs / 1000)} s`,
        ),
      ),
    deadlineMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, late.signal]) : late.signal;
  try {
    let lastCut = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (signal.aborted) throw signal.reason;
      const have = existsSync(part) ? statSync(part).size : 0;
      if (have > 0) options.note?.(`resuming at ${mb(have)}`);
      let res: IncomingMessage;
      try {
        res = await follow(url, have > 0 ? { range: `bytes=${have}-` } : {}, signal);
      } catch (err) {
        if (err instanceof ModelError) throw err;
        if (signal.aborted) throw signal.reason;
        lastCut = (err as Error).message;
        continue;
      }
      const status = res.statusCode ?? 0;
      let append = false;
      let total: number | undefined;
      if (status === 206) {
        const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(String(res.headers['content-range'] ?? ''));
        if (!m || Number(m[1]) !== have) {
          // Not the part asked for: start again from nothing.
          res.resume();
          rmSync(part, { force: true });
          continue;
        }
        append = true;
        total = m[2] === '*' ? undefined : Number(m[2]);
      } else if (status === 416 && have > 0) {
        res.resume();
        const m = /^bytes \*\/(\d+)$/.exec(String(res.headers['content-range'] ?? ''));
        if (m && Number(m[1]) === have) return; // Already whole.
        rmSync(part, { force: true });
        continue;
      } else if (status === 200) {
        const length = Number(res.headers['content-length']);
        total = Number.isFinite(length) && length > 0 ? length : undefined;
      } else {
        res.resume();
        const err = new ModelError(
          'VOX_ERR_CLIENT_DOWNLOAD_FAILED',
          `HTTP ${status} from ${shown}${status === 404 ? ' (the archive is not there: the catalogue entry may be out of date)' : ''}`,
        );
        if (status < 500) throw err;
        lastCut = err.message;
        continue;
      }
      if (total !== undefined && total > maxBytes) {
        res.destroy();
        throw tooLarge(total);
      }
      let done = append ? have : 0;
      options.progress?.(done, total);
      const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
      let idle: NodeJS.Timeout | undefined;
      let windowStart = done;
      const arm = () => {
        clearTimeout(idle);
        // res.destroy() takes a plain Error; its words become the try's lastCut, reported in the final VOX_ERR_CLIENT_DOWNLOAD_FAILED.
        idle = setTimeout(() => res.destroy(new Error(`no data for ${idleMs / 1000} s`)), idleMs);
      };
      arm();
      const window = setInterval(() => {
        if (done - windowStart < MIN_BYTES_PER_WINDOW)
          res.destroy(new Error(`stalled: ${done - windowStart} bytes in ${idleMs / 1000} s`));
        windowStart = done;
      }, idleMs);
      const onAbort = () => res.destroy(new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      // Not stream.pipeline: a cut connection must still flush what arrived into the part file (pipeline
      // would destroy the file stream with writes pending), so that the next try resumes after it.
      const { cut, writeError, over } = await new Promise<{ cut?: Error; writeError?: Error; over?: boolean }>(
        (resolve) => {
          let cutBy: Error | undefined;
          let writeErr: Error | undefined;
          let overCap = false;
          res.on('data', (chunk: Buffer) => {
            if (overCap) return;
            if (done + chunk.length > maxBytes) {
              overCap = true;
              res.destroy();
              out.end();
              return;
            }
            done += chunk.length;
            arm();
            options.progress?.(done, total);
            if (!out.write(chunk)) {
              res.pause();
              out.once('drain', () => res.resume());
            }
          });
          res.on('end', () => out.end());
          res.on('error', (err) => {
            cutBy = err;
            out.end();
          });
          res.on('aborted', () => {
            cutBy ??= new Error('the connection was cut');
          });
          res.on('close', () => {
            if (!res.complete) out.end();
          });
          out.on('error', (err) => {
            writeErr = err;
            res.destroy();
          });
          out.on('close', () =>
            resolve({ ...(cutBy ? { cut: cutBy } : {}), ...(writeErr ? { writeError: writeErr } : {}), over: overCap }),
          );
        },
      );
      clearTimeout(idle);
      clearInterval(window);
      signal.removeEventListener('abort', onAbort);
      if (writeError) throw diskError(writeError, `the download ${part.split(/[\\/]/).pop()}`) ?? writeError;
      if (over) throw tooLarge();
      if (signal.aborted) throw signal.reason;
      if (cut) {
        lastCut = cut.message;
        continue;
      }
      if (res.complete === false || (total !== undefined && done < total)) {
        lastCut = `the connection closed after ${mb(done)}${total ? ` of ${mb(total)}` : ''}`;
        continue;
      }
      return;
    }
    throw new ModelError(
      'VOX_ERR_CLIENT_DOWNLOAD_FAILED',
      `download of ${shown} failed after ${attempts} tries (${printable(lastCut || 'no answer')})`,
    );
  } finally {
    clearTimeout(timer);
  }
}
