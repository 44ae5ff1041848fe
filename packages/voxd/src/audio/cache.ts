/**
 * The on-disk synthesis cache in `VOX_HOME/cache`.
 *
 * Design notes:
 * - The key is a sha256 of a canonical JSON of everything that changes the
 *   audio: engine, model, voice, rate, volume, output format, each engine's
 *   `cacheParams`, and the cleaned text. (The reference implementation left the
 *   model and rate out, so a changed rate replayed the old audio.)
 * - One file per entry, `<key>.vox`: a 48-byte header (magic, format, PCM
 *   length, sha256 of the PCM) then the PCM. A short or altered file fails the
 *   check, is deleted and counts as a miss; the next put writes it afresh.
 * - Writes go to a unique temp file and are renamed into place, so readers
 *   never see half a file and two writers of one key cannot interleave.
 * - Size-bounded LRU. Recency is the file's mtime, touched on each hit, so the
 *   order survives a restart; in memory it is a Map kept in recency order.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioFormat } from './pcm.js';

/** Default size bound: 200 MB. */
export const CACHE_DEFAULT_MAX_BYTES = 200 * 1024 * 1024;
export const CACHE_HEADER_BYTES = 48;
const MAGIC = 'VOXC';
const VERSION = 1;
const EXT = '.vox';
/** Temp files older than this are leftovers of a crash. */
const STALE_TMP_MS = 60_000;

export interface CacheKeyInput {
  engine: string;
  model?: string;
  voice?: string;
  /** Words per minute. */
  rate?: number;
  /** 0 to 1. */
  volume?: number;
  /** Requested output format, when the engine has a choice (e.g. `pcm_22050`). */
  format?: string | AudioFormat;
  /** The engine's `cacheParams`. */
  params?: Record<string, string | number | boolean | undefined>;
  /** The cleaned text, exactly as sent to the engine. */
  text: string;
}

export interface CachedAudio {
  format: AudioFormat;
  pcm: Buffer;
}

export interface CacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
}

export interface Cache {
  key(input: CacheKeyInput): string;
  /** The entry, or undefined on a miss (a corrupt entry is removed and is a miss). */
  get(key: string): Promise<CachedAudio | undefined>;
  /** Store an entry. Resolves false when it was not stored (too large, disk error); never rejects. */
  put(key: string, format: AudioFormat, pcm: Buffer | readonly Buffer[]): Promise<boolean>;
  stats(): Promise<CacheStats>;
  close(): Promise<void>;
}

export interface CacheOptions {
  /** Directory of the entries, normally `homePaths(home).cache`. Created 0700. */
  dir: string;
  /** Size bound in bytes, headers included. Default 200 MB. */
  maxBytes?: number;
  log?: { warn(obj: object, msg?: string): void };
}

/** sha256 (hex) of the canonical JSON of `input`. */
export function cacheKey(input: CacheKeyInput): string {
  return createHash('sha256')
    .update(canonicalJson({ v: VERSION, ...input }))
    .digest('hex');
}

/** JSON with sorted keys and undefined members dropped, so equal inputs give equal strings. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function encodeEntry(format: AudioFormat, pcm: Buffer): Buffer {
  const h = Buffer.alloc(CACHE_HEADER_BYTES);
  h.write(MAGIC, 0, 'ascii');
  h.writeUInt16LE(VERSION, 4);
  h.writeUInt8(format.channels, 6);
  h.writeUInt8(format.bitDepth, 7);
  h.writeUInt32LE(format.sampleRate, 8);
  h.writeUInt32LE(pcm.length, 12);
  createHash('sha256').update(pcm).digest().copy(h, 16);
  return Buffer.concat([h, pcm]);
}

/** The entry in `buf`, or undefined when it is truncated, altered or not an entry. */
export function decodeEntry(buf: Buffer): CachedAudio | undefined {
  if (buf.length < CACHE_HEADER_BYTES || buf.toString('ascii', 0, 4) !== MAGIC || buf.readUInt16LE(4) !== VERSION)
    return undefined;
  const channels = buf.readUInt8(6);
  const bitDepth = buf.readUInt8(7);
  const sampleRate = buf.readUInt32LE(8);
  const length = buf.readUInt32LE(12);
  if (channels !== 1 || bitDepth !== 16 || sampleRate === 0 || buf.length !== CACHE_HEADER_BYTES + length)
    return undefined;
  const pcm = buf.subarray(CACHE_HEADER_BYTES);
  if (!createHash('sha256').update(pcm).digest().equals(buf.subarray(16, 48))) return undefined;
  return { format: { sampleRate, channels: 1, bitDepth: 16 }, pcm };
}

export function createCache(options: CacheOptions): Cache {
  const dir = options.dir;
  const maxBytes = options.maxBytes ?? CACHE_DEFAULT_MAX_BYTES;
  /** key → size in bytes, least recently used first. */
  const index = new Map<string, number>();
  let total = 0;
  let hits = 0;
  let misses = 0;
  let init: Promise<void> | undefined;

  const fileOf = (key: string) => join(dir, key + EXT);

  function forget(key: string): void {
    const size = index.get(key);
    if (size !== undefined) {
      total -= size;
      index.delete(key);
    }
  }

  function remember(key: string, size: number): void {
    forget(key);
    index.set(key, size);
    total += size;
  }

  function load(): Promise<void> {
    init ??= (async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const found: Array<{ key: string; size: number; mtimeMs: number }> = [];
      const now = Date.now();
      for (const name of await readdir(dir)) {
        const full = join(dir, name);
        try {
          if (name.endsWith('.tmp')) {
            if (now - (await stat(full)).mtimeMs > STALE_TMP_MS) await unlink(full);
            continue;
          }
          if (!name.endsWith(EXT)) continue;
          const st = await stat(full);
          found.push({ key: name.slice(0, -EXT.length), size: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // Gone meanwhile.
        }
      }
      found.sort((a, b) => a.mtimeMs - b.mtimeMs);
      for (const f of found) remember(f.key, f.size);
      await evict();
    })();
    return init;
  }

  async function evict(): Promise<void> {
    for (const [key] of index) {
      if (total <= maxBytes) break;
      forget(key);
      await unlink(fileOf(key)).catch(() => {});
    }
  }

  async function drop(key: string, why: string): Promise<void> {
    forget(key);
    await unlink(fileOf(key)).catch(() => {});
    options.log?.warn({ key, why }, 'cache entry removed');
  }

  return {
    key: cacheKey,

    async get(key) {
      if (!/^[0-9a-f]{64}$/.test(key)) return undefined;
      await load();
      let buf: Buffer;
      try {
        buf = await readFile(fileOf(key));
      } catch {
        forget(key);
        misses++;
        return undefined;
      }
      const entry = decodeEntry(buf);
      if (!entry) {
        await drop(key, 'corrupt or truncated');
        misses++;
        return undefined;
      }
      hits++;
      remember(key, buf.length);
      // Recency survives restarts through the mtime; a failed touch only costs order.
      const now = new Date();
      utimes(fileOf(key), now, now).catch(() => {});
      return entry;
    },

    async put(key, format, pcm) {
      if (!/^[0-9a-f]{64}$/.test(key)) return false;
      const data = encodeEntry(format, Buffer.isBuffer(pcm) ? pcm : Buffer.concat(pcm as Buffer[]));
      if (data.length > maxBytes) return false;
      try {
        await load();
        const tmp = join(dir, `${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
        try {
          await writeFile(tmp, data, { mode: 0o600 });
          await rename(tmp, fileOf(key));
        } catch (err) {
          // A full disk fails the write after the file was made: no *.tmp is left behind.
          await unlink(tmp).catch(() => {});
          throw err;
        }
        remember(key, data.length);
        await evict();
        return true;
      } catch (err) {
        options.log?.warn({ err: (err as Error).message }, 'cache write failed');
        return false;
      }
    },

    async stats() {
      await load();
      return { entries: index.size, bytes: total, maxBytes, hits, misses };
    },

    async close() {
      await init?.catch(() => {});
    },
  };
}
