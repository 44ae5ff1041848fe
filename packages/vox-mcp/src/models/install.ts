/**
 * Installing and removing voice models in `VOX_HOME/models` (file management
 * only: a model is loaded by voxd, never here).
 *
 * Design notes:
 * - Download: into `models/.downloads/NAME.tar.bz2.part`, resumed with a
 *   Range request, both after a cut connection within one run (up to three
 *   tries) and in a later run of the same command; renamed to `.tar.bz2` once
 *   whole. Redirects are followed (GitHub release assets redirect).
 * - Verify: the archive's SHA-256 against the catalogue's pin before anything
 *   is unpacked. A mismatch deletes the download (so the next run starts
 *   afresh) and installs nothing.
 * - Unpack: bzip2 (unbzip2-stream, which checks each block's CRC) into
 *   node-tar (which refuses absolute paths and `..`; links are skipped), into
 *   a staging directory `models/.staging-*`; the expected files are checked,
 *   the manifest is written last, and one rename makes `models/NAME` appear
 *   whole. A failure at any step removes the staging directory. Pure npm, not
 *   the system `tar`: a fresh Debian root has `tar` but not always `bzip2`.
 * - A full disk (ENOSPC, or EFBIG from a file-size limit) is reported as such,
 *   with what was being written.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, existsSync, openSync, readSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { checkModel, fileSizes, MODEL_MANIFEST, modelsDir, type ModelManifest } from '@vox/protocol/models';
import { ClientError, type ClientErrorCode } from '../errors.js';
import type { CatalogueEntry } from './catalogue.js';

export class ModelError extends ClientError {
  constructor(code: ClientErrorCode, message: string) {
    super(code, message);
    this.name = 'ModelError';
  }
}

export interface Progress {
  /** Bytes of the archive on disk so far, and the whole size when the server said it. */
  (done: number, total: number | undefined): void;
}

export interface InstallOptions {
  home: string;
  entry: CatalogueEntry;
  /** A local archive instead of the download. */
  from?: string;
  /** Install even when the catalogue pins no checksum. */
  unverified?: boolean;
  progress?: Progress;
  /** One line of news (resuming, verified, ...). */
  note?: (line: string) => void;
  signal?: AbortSignal;
  /** Connection attempts per run. Default 3. */
  attempts?: number;
  /** Milliseconds without data before a connection counts as cut. Default 30000. */
  idleMs?: number;
}

export interface InstallResult {
  dir: string;
  sha256: string;
  manifest: ModelManifest;
}

const MB = 1024 * 1024;
const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

function diskError(err: unknown, what: string): ModelError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT') {
    return new ModelError('VOX_ERR_CLIENT_DISK_FULL', `no room to write ${what} (${code === 'EFBIG' ? 'file size limit reached' : 'disk full'}); free some space under VOX_HOME/models and run the same command again`);
  }
  return undefined;
}

function request(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { headers: { 'user-agent': 'vox-voices', ...headers }, ...(signal ? { signal } : {}) }, resolve);
    req.on('error', reject);
  });
}

/** GET following up to five redirects. */
async function follow(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<{ res: IncomingMessage; url: string }> {
  let at = url;
  for (let hop = 0; hop <= 5; hop++) {
    const res = await request(at, headers, signal);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      at = new URL(location, at).toString();
      continue;
    }
    return { res, url: at };
  }
  throw new ModelError('VOX_ERR_CLIENT_DOWNLOAD_FAILED', `too many redirects from ${url}`);
}

/** Download `url` into `part`, resuming what is there; resolves when `part` holds the whole file. */
export async function download(url: string, part: string, options: Pick<InstallOptions, 'progress' | 'note' | 'signal' | 'attempts' | 'idleMs'> = {}): Promise<void> {
  const attempts = options.attempts ?? 3;
  const idleMs = options.idleMs ?? 30_000;
  let lastCut = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const have = existsSync(part) ? statSync(part).size : 0;
    if (have > 0) options.note?.(`resuming at ${mb(have)}`);
    let res: IncomingMessage;
    try {
      ({ res } = await follow(url, have > 0 ? { range: `bytes=${have}-` } : {}, options.signal));
    } catch (err) {
      if (err instanceof ModelError || options.signal?.aborted) throw err;
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
      const retry = status >= 500;
      const err = new ModelError('VOX_ERR_CLIENT_DOWNLOAD_FAILED', `HTTP ${status} from ${url}${status === 404 ? ' (the archive is not there: the catalogue entry may be out of date)' : ''}`);
      if (!retry) throw err;
      lastCut = err.message;
      continue;
    }
    let done = append ? have : 0;
    options.progress?.(done, total);
    const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      // res.destroy() takes a plain Error; its words become the try's lastCut, reported in the final VOX_ERR_CLIENT_DOWNLOAD_FAILED.
      timer = setTimeout(() => res.destroy(new Error(`no data for ${idleMs / 1000} s`)), idleMs);
    };
    arm();
    // Not stream.pipeline: a cut connection must still flush what arrived into the part file (pipeline
    // would destroy the file stream with writes pending), so that the next try resumes after it.
    const { cut, writeError } = await new Promise<{ cut?: Error; writeError?: Error }>((resolve) => {
      let cutBy: Error | undefined;
      let writeErr: Error | undefined;
      res.on('data', (chunk: Buffer) => {
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
        // Only its words are kept (lastCut), for the final VOX_ERR_CLIENT_DOWNLOAD_FAILED.
        cutBy ??= new Error('the connection was cut');
      });
      out.on('error', (err) => {
        writeErr = err;
        res.destroy();
      });
      out.on('close', () => resolve({ ...(cutBy ? { cut: cutBy } : {}), ...(writeErr ? { writeError: writeErr } : {}) }));
    });
    clearTimeout(timer);
    if (writeError) throw diskError(writeError, `the download ${part.split(/[\\/]/).pop()}`) ?? writeError;
    if (options.signal?.aborted) throw options.signal.reason;
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
  const have = existsSync(part) ? statSync(part).size : 0;
  throw new ModelError(
    'VOX_ERR_CLIENT_DOWNLOAD_FAILED',
    `download of ${url} failed after ${attempts} tries (${lastCut || 'no answer'})${have ? `; ${mb(have)} are kept, and the same command resumes from there` : ''}`,
  );
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Unpack a .tar.bz2 (or .tar.gz, .tar) into `dir`. Links and devices are skipped. */
export async function unpack(archive: string, dir: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const tar = require('tar') as typeof import('tar');
  const head = Buffer.alloc(3);
  const fd = openSync(archive, 'r');
  try {
    readSync(fd, head, 0, 3, 0);
  } finally {
    closeSync(fd);
  }
  const extract = tar.x({
    cwd: dir,
    strict: true,
    filter: (_path, entry) => {
      const type = (entry as { type?: string }).type;
      return type === undefined || type === 'File' || type === 'OldFile' || type === 'Directory' || type === 'ContiguousFile';
    },
  });
  const source = createReadStream(archive);
  if (head.toString('latin1') === 'BZh') {
    const unbzip2 = require('unbzip2-stream') as () => NodeJS.ReadWriteStream;
    await pipeline(source, unbzip2(), extract as unknown as NodeJS.WritableStream);
  } else {
    await pipeline(source, extract as unknown as NodeJS.WritableStream);
  }
}

function staging(root: string, kind: string, name: string): string {
  return join(root, `.${kind}-${name}-${randomBytes(4).toString('hex')}`);
}

/** Refuses an entry with no pinned checksum unless `unverified`. */
export function assertVerifiable(entry: CatalogueEntry, unverified = false): void {
  if (entry.sha256 === null && !unverified) {
    throw new ModelError(
      'VOX_ERR_CLIENT_MODEL_UNVERIFIED',
      `vox has no verified SHA-256 for ${entry.name} (its catalogue entry has no sha256); add --unverified to install it anyway (the SHA-256 it gets is printed, to pin it in VOX_VOICES_CATALOGUE)`,
    );
  }
}

/** Install one catalogue entry: fetch or take the archive, verify, unpack, and move it into place whole. */
export async function installModel(o: InstallOptions): Promise<InstallResult> {
  const { entry } = o;
  const root = modelsDir(o.home);
  const downloads = join(root, '.downloads');
  assertVerifiable(entry, o.unverified);
  mkdirSync(downloads, { recursive: true });
  let archive: string;
  let downloaded = false;
  if (o.from) {
    if (!existsSync(o.from) || !statSync(o.from).isFile()) throw new ModelError('VOX_ERR_CLIENT_USAGE', `--from ${o.from}: no such file`);
    archive = o.from;
  } else {
    archive = join(downloads, `${entry.name}.tar.bz2`);
    if (!existsSync(archive)) {
      const part = `${archive}.part`;
      await download(entry.url, part, o);
      renameSync(part, archive);
    } else {
      o.note?.('using the archive downloaded before');
    }
    downloaded = true;
  }
  const sha256 = await sha256Of(archive);
  if (entry.sha256 !== null && sha256 !== entry.sha256.toLowerCase()) {
    if (downloaded) rmSync(archive, { force: true });
    throw new ModelError(
      'VOX_ERR_CLIENT_MODEL_CHECKSUM',
      `${o.from ? o.from : `the download of ${entry.name}`} has SHA-256 ${sha256}, not the ${entry.sha256} the catalogue pins; nothing was installed${downloaded ? ' (the download was deleted: run the command again to fetch it afresh)' : ''}`,
    );
  }
  if (entry.sha256 === null) o.note?.(`SHA-256 ${sha256} (not verified: no pinned checksum)`);
  else o.note?.('checksum verified');

  const stage = staging(root, 'staging', entry.name);
  mkdirSync(stage);
  try {
    try {
      await unpack(archive, stage);
    } catch (err) {
      const full = diskError(err, `${entry.name}'s files`);
      if (full) throw full;
      if (downloaded && entry.sha256 === null) rmSync(archive, { force: true });
      const what = (err as Error).message.replace(/^Error in bzip2: /, 'bzip2: ');
      throw new ModelError('VOX_ERR_CLIENT_MODEL_ARCHIVE', `${o.from ?? `the archive of ${entry.name}`} is damaged or not a .tar.bz2 (${what}); nothing was installed`);
    }
    const dir = join(stage, entry.root);
    const files = Object.entries(entry.files).filter(([, rel]) => rel);
    for (const [kind, rel] of files) {
      if (!existsSync(join(dir, rel!))) {
        throw new ModelError('VOX_ERR_CLIENT_MODEL_ARCHIVE', `${o.from ?? `the archive of ${entry.name}`} has no ${entry.root}/${rel} (the ${kind} file); it is not ${entry.name}'s archive; nothing was installed`);
      }
    }
    const manifest: ModelManifest = {
      format: 1,
      name: entry.name,
      type: entry.type,
      files: entry.files,
      speakers: entry.speakers,
      languages: entry.languages,
      licence: entry.licence,
      source: { archive: o.from ? o.from.split(/[\\/]/).pop()! : `${entry.name}.tar.bz2`, sha256, ...(o.from ? {} : { url: entry.url }) },
      sizes: fileSizes(dir),
      installedAt: new Date().toISOString(),
    };
    try {
      writeFileSync(join(dir, MODEL_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    } catch (err) {
      throw diskError(err, `${entry.name}'s manifest`) ?? err;
    }
    const check = checkModel(dir, entry.name);
    if (!check.ok) throw new ModelError('VOX_ERR_CLIENT_MODEL_ARCHIVE', `${entry.name} did not unpack whole: ${check.reason}`);
    const target = join(root, entry.name);
    // The old copy (a --force reinstall) steps aside first, then one rename puts the new one in place.
    let old: string | undefined;
    if (existsSync(target)) {
      old = staging(root, 'trash', entry.name);
      renameSync(target, old);
    }
    renameSync(dir, target);
    if (old) rmSync(old, { recursive: true, force: true });
    if (downloaded) rmSync(archive, { force: true });
    return { dir: target, sha256, manifest };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Remove an installed model (it steps aside by a rename first, so nothing half-deleted keeps its name). */
export function removeModel(home: string, name: string): boolean {
  const target = join(modelsDir(home), name);
  if (!existsSync(target)) return false;
  const trash = staging(modelsDir(home), 'trash', name);
  renameSync(target, trash);
  rmSync(trash, { recursive: true, force: true });
  return true;
}
