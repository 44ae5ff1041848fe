/**
 * Installing and removing voice models in `VOX_HOME/models` (file management
 * only: a model is loaded by voxd, never here).
 *
 * Design notes:
 * - Download (download.ts): into `models/.downloads/NAME.tar.bz2.part`,
 *   within a size cap, a deadline and a stall timeout; renamed to `.tar.bz2`
 *   once whole.
 * - Verify: the archive's SHA-256 against the catalogue's pin before anything
 *   is unpacked. A mismatch installs nothing.
 * - Unpack (unpack.ts): with backpressure, within a cap on entries and on the
 *   bytes the files hold (UNPACK_RATIO times the archive's catalogue size, or
 *   its own size), into a staging directory `models/.staging-*`; the expected
 *   files are checked, the manifest is written last, and one rename makes
 *   `models/NAME` appear whole. Pure npm, not the system `tar`: a fresh Debian
 *   root has `tar` but not always `bzip2`.
 * - A failed install leaves nothing behind: no staging directory, no `.part`,
 *   no download, and no empty `.downloads` (a full disk must not stay full of
 *   a half download; a cut connection is retried within the run instead).
 * - A full disk (ENOSPC, or EFBIG from a file-size limit) is reported as such,
 *   with what was being written.
 * - A recognizer (catalogue type nemo_ctc, whisper, moonshine) goes the same
 *   way into `VOX_HOME/asr/NAME`, with `vox-asr.json` as its manifest (the
 *   one voxd's listen/recognizer.ts reads; same fields, no speakers).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { printable } from '@vox/protocol';
import {
  ASR_MANIFEST,
  asrModelsDir,
  checkModel,
  fileSizes,
  MODEL_MANIFEST,
  modelsDir,
  type ModelManifest,
} from '@vox/protocol/models';
import { isRecognizer, type CatalogueEntry } from './catalogue.js';
import { download, type DownloadOptions } from './download.js';
import { diskError, MB, mb, ModelError, type Progress } from './model-error.js';
import { TooLargeError, TruncatedError, unpack } from './unpack.js';

export { ModelError, type Progress } from './model-error.js';

/** The files of a model may hold this many times its archive's size (voice models compress little: Kokoro's is about 1.3). */
export const UNPACK_RATIO = 8;
/** ... and at least this much, whatever the archive's size. */
export const UNPACK_FLOOR_BYTES = 64 * MB;
/** The most entries an archive may hold (a voice with espeak-ng-data holds a few hundred). */
export const MAX_ARCHIVE_ENTRIES = 5_000;
/** A download may be this many times its catalogue size (publishers' sizes are approximate), plus DOWNLOAD_SLACK_BYTES. */
export const DOWNLOAD_RATIO = 1.5;
export const DOWNLOAD_SLACK_BYTES = 16 * MB;
/** The largest download of an entry that gives no size. */
export const MAX_DOWNLOAD_BYTES = 2048 * MB;

/** The download's own options (download.ts), but its size cap, which comes from the entry. */
export interface InstallOptions extends Omit<DownloadOptions, 'maxBytes'> {
  home: string;
  entry: CatalogueEntry;
  /** A local archive instead of the download. */
  from?: string;
  /** Install even when the catalogue pins no checksum. */
  unverified?: boolean;
}

export interface InstallResult {
  dir: string;
  sha256: string;
  manifest: ModelManifest;
}

/** The largest archive downloaded for `entry`, in bytes. */
export function downloadCap(entry: Pick<CatalogueEntry, 'sizeMB'>): number {
  return entry.sizeMB ? Math.ceil(entry.sizeMB * MB * DOWNLOAD_RATIO) + DOWNLOAD_SLACK_BYTES : MAX_DOWNLOAD_BYTES;
}

/** What the files of `entry`'s archive may hold, for an archive of `archiveBytes`. */
export function unpackCap(entry: Pick<CatalogueEntry, 'sizeMB'>, archiveBytes: number): number {
  return Math.max(UNPACK_FLOOR_BYTES, UNPACK_RATIO * Math.max(archiveBytes, (entry.sizeMB ?? 0) * MB));
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
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

/** Removes `dir` when it is empty (a `.downloads` that nothing uses). */
function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // Gone already, or not ours to judge.
  }
}

/** Install one catalogue entry: fetch or take the archive, verify, unpack, and move it into place whole. */
export async function installModel(o: InstallOptions): Promise<InstallResult> {
  const { entry } = o;
  const recognizer = isRecognizer(entry);
  const root = recognizer ? asrModelsDir(o.home) : modelsDir(o.home);
  const downloads = join(root, '.downloads');
  assertVerifiable(entry, o.unverified);
  let archive: string;
  let downloaded = false;
  const shownFrom = o.from === undefined ? undefined : printable(o.from);
  if (o.from) {
    if (!existsSync(o.from) || !statSync(o.from).isFile())
      throw new ModelError('VOX_ERR_CLIENT_USAGE', `--from ${shownFrom}: no such file`);
    archive = o.from;
    mkdirSync(root, { recursive: true });
  } else {
    mkdirSync(downloads, { recursive: true });
    archive = join(downloads, `${entry.name}.tar.bz2`);
    downloaded = true;
  }
  const part = `${archive}.part`;
  try {
    if (downloaded) {
      if (!existsSync(archive)) {
        try {
          await download(entry.url, part, { ...o, maxBytes: downloadCap(entry) });
        } catch (err) {
          // Offline, or the server is gone: the archive may be fetched another way.
          if (err instanceof ModelError && err.code === 'VOX_ERR_CLIENT_DOWNLOAD_FAILED') {
            throw new ModelError(
              err.code,
              `${err.message}; without a connection, fetch the archive elsewhere and run "vox voices install ${entry.name} --from FILE"`,
            );
          }
          throw err;
        }
        renameSync(part, archive);
      } else {
        o.note?.('using the archive downloaded before');
      }
    }
    const what = shownFrom ?? `the archive of ${entry.name}`;
    const sha256 = await sha256Of(archive);
    if (entry.sha256 !== null && sha256 !== entry.sha256.toLowerCase()) {
      throw new ModelError(
        'VOX_ERR_CLIENT_MODEL_CHECKSUM',
        `${o.from ? shownFrom : `the download of ${entry.name}`} has SHA-256 ${sha256}, not the ${entry.sha256} the catalogue pins; nothing was installed${downloaded ? ' (the download was deleted: run the command again to fetch it afresh)' : ''}`,
      );
    }
    if (entry.sha256 === null) o.note?.(`SHA-256 ${sha256} (not verified: no pinned checksum)`);
    else o.note?.('checksum verified');

    const stage = staging(root, 'staging', entry.name);
    mkdirSync(stage);
    try {
      const archiveBytes = statSync(archive).size;
      const limits = { maxBytes: unpackCap(entry, archiveBytes), maxEntries: MAX_ARCHIVE_ENTRIES };
      try {
        await unpack(archive, stage, limits);
      } catch (err) {
        const full = diskError(err, `${entry.name}'s files`);
        if (full) throw full;
        if (err instanceof TooLargeError) {
          throw new ModelError(
            'VOX_ERR_CLIENT_MODEL_TOO_LARGE',
            `${what} is refused: ${err.message} (vox allows ${mb(limits.maxBytes)} and ${limits.maxEntries} entries for a ${mb(archiveBytes)} archive); nothing was installed`,
          );
        }
        if (err instanceof TruncatedError) {
          throw new ModelError(
            'VOX_ERR_CLIENT_MODEL_ARCHIVE',
            `${what} is truncated: ${err.message}; ${o.from ? 'copy it again' : 'download it again'}; nothing was installed`,
          );
        }
        const why = printable((err as Error).message.replace(/^Error in bzip2: /, 'bzip2: ').slice(0, 200));
        if (/path contains '\.\.'|absolute path/.test(why)) {
          throw new ModelError(
            'VOX_ERR_CLIENT_MODEL_ARCHIVE',
            `${what} is refused: it holds an entry that points outside its directory (${why}); nothing was installed`,
          );
        }
        throw new ModelError(
          'VOX_ERR_CLIENT_MODEL_ARCHIVE',
          `${what} is damaged or not a .tar.bz2 (${why}); nothing was installed`,
        );
      }
      const dir = join(stage, entry.root);
      const files = Object.entries(entry.files).filter(([, rel]) => rel);
      for (const [kind, rel] of files) {
        if (!existsSync(join(dir, rel!))) {
          throw new ModelError(
            'VOX_ERR_CLIENT_MODEL_ARCHIVE',
            `${what} has no ${entry.root}/${rel} (the ${kind} file); it is not ${entry.name}'s archive; nothing was installed`,
          );
        }
      }
      const manifest: ModelManifest = {
        format: 1,
        name: entry.name,
        type: entry.type as ModelManifest['type'],
        files: entry.files,
        speakers: entry.speakers,
        languages: entry.languages,
        licence: entry.licence,
        source: {
          archive: o.from ? o.from.split(/[\\/]/).pop()! : `${entry.name}.tar.bz2`,
          sha256,
          ...(o.from ? {} : { url: entry.url }),
        },
        sizes: fileSizes(dir),
        installedAt: new Date().toISOString(),
      };
      try {
        writeFileSync(join(dir, recognizer ? ASR_MANIFEST : MODEL_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
      } catch (err) {
        throw diskError(err, `${entry.name}'s manifest`) ?? err;
      }
      const check = recognizer ? ({ ok: true } as const) : checkModel(dir, entry.name);
      if (!check.ok)
        throw new ModelError('VOX_ERR_CLIENT_MODEL_ARCHIVE', `${entry.name} did not unpack whole: ${check.reason}`);
      const target = join(root, entry.name);
      // The old copy (a --force reinstall) steps aside first, then one rename puts the new one in place.
      let old: string | undefined;
      if (existsSync(target)) {
        old = staging(root, 'trash', entry.name);
        renameSync(target, old);
      }
      renameSync(dir, target);
      if (old) rmSync(old, { recursive: true, force: true });
      return { dir: target, sha256, manifest };
    } finally {
      await removeStage(stage);
    }
  } finally {
    // Success or failure, nothing of the download stays (see the design notes).
    if (downloaded) {
      rmSync(part, { force: true });
      rmSync(archive, { force: true });
      removeIfEmpty(downloads);
    }
  }
}

/**
 * The staging directory, removed once nothing writes into it. After a
 * refused entry node-tar's writes of the entries before it may still land:
 * a removal then fails with ENOTEMPTY (seen in CI), or a directory is made
 * again behind it. So it is tried until it stays gone, for up to ~2 s, and
 * never throws: it runs in a `finally`, where a throw would replace the
 * refusal the user must see.
 */
export async function removeStage(stage: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    try {
      rmSync(stage, { recursive: true, force: true });
    } catch {
      // ENOTEMPTY: a late write landed meanwhile; the next round gets it.
    }
    await new Promise((r) => setTimeout(r, 25));
    if (!existsSync(stage)) return;
  }
}

/** Remove an installed model (it steps aside by a rename first, so nothing half-deleted keeps its name). */
export function removeModel(home: string, name: string, recognizer = false): boolean {
  const root = recognizer ? asrModelsDir(home) : modelsDir(home);
  const target = join(root, name);
  if (!existsSync(target)) return false;
  const trash = staging(root, 'trash', name);
  renameSync(target, trash);
  rmSync(trash, { recursive: true, force: true });
  return true;
}
