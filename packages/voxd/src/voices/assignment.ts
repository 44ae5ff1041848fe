/**
 * A voice of its own for each session: a request with a session and no voice
 * (the project's `voice` key sets one, and wins) gets the voice this session
 * was given on this engine, or the first of the engine's pool that no other
 * session holds. With every voice held, the session that spoke least recently
 * gives its voice up (it gets a new one when it next speaks). Kept in
 * VOX_HOME/session-voices.json, so a restarted voxd gives the same voices.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { readRegularFile, type SessionVoice } from '@vox/protocol';
import { moveAside } from '../access/state-file.js';
import type { Engine } from '../engines/engine.js';
import { ESPEAK_DEFAULT_VOICE } from '../engines/espeak.js';

/** Its file in VOX_HOME. */
export const SESSION_VOICES_FILE = 'session-voices.json';
/** Sessions remembered, across every engine: the oldest is forgotten past it. */
export const MAX_ASSIGNED_SESSIONS = 256;
/** Voices of one engine taken into the pool. */
export const MAX_POOL_VOICES = 64;
/** The file is far below this; a bigger one is not read. */
const FILE_MAX_BYTES = 64 * 1024;
/** The order of use is saved at most this often when no assignment changes (a restart's least-recently-used is that old at worst). */
const TOUCH_SAVE_MS = 10_000;
/** An engine's pool is asked again after this (a model installed meanwhile adds speakers). */
const POOL_TTL_MS = 60_000;

/**
 * eSpeak's voices are languages: distinct voices of one language are its
 * variants. The default language, then male and female variants alternating.
 */
export const ESPEAK_POOL = [
  ESPEAK_DEFAULT_VOICE,
  ...[1, 2, 3, 4, 5, 6, 7].flatMap((n) => [`${ESPEAK_DEFAULT_VOICE}+f${n}`, `${ESPEAK_DEFAULT_VOICE}+m${n}`]),
];

interface Entry {
  session: string;
  engine: string;
  voice: string;
  lastUsed: number;
}

export interface VoiceAssignmentOptions {
  /** Where the assignment is kept; none: memory only. */
  path?: string;
  clock?: () => number;
  maxSessions?: number;
  log?: { warn(obj: object, msg?: string): void };
}

const key = (engine: string, session: string) => `${engine}\u0000${session}`;

export class VoiceAssignment {
  readonly #o: VoiceAssignmentOptions;
  readonly #clock: () => number;
  /** In order of last use, oldest first (a Map keeps insertion order). */
  readonly #entries = new Map<string, Entry>();
  readonly #pools = new Map<string, { at: number; voices: Promise<string[]> }>();
  #savedAt = -Infinity;

  constructor(options: VoiceAssignmentOptions = {}) {
    this.#o = options;
    this.#clock = options.clock ?? Date.now;
    if (options.path) this.#load(options.path);
  }

  /** The voice for `session` on `engine`, or undefined when the engine offers no pool. */
  async voiceFor(session: string, engine: Engine): Promise<string | undefined> {
    const pool = await this.pool(engine);
    return this.assign(session, engine.name, pool);
  }

  /** The pure choice, given the engine's pool (testable alone). */
  assign(session: string, engine: string, pool: readonly string[]): string | undefined {
    if (pool.length === 0) return undefined;
    const k = key(engine, session);
    const now = this.#clock();
    const had = this.#entries.get(k);
    if (had && pool.includes(had.voice)) {
      this.#touch(k, { ...had, lastUsed: now });
      if (now - this.#savedAt >= TOUCH_SAVE_MS) this.#save();
      return had.voice;
    }
    const held = new Set<string>();
    let oldest: [string, Entry] | undefined;
    for (const [ek, e] of this.#entries) {
      if (e.engine !== engine || ek === k) continue;
      held.add(e.voice);
      if (!oldest && pool.includes(e.voice)) oldest = [ek, e];
    }
    let voice = pool.find((v) => !held.has(v));
    if (voice === undefined) {
      // Every voice is held: the least recently used session's goes to this one.
      const [ok, oe] = oldest!;
      this.#entries.delete(ok);
      voice = oe.voice;
    }
    this.#touch(k, { session, engine, voice, lastUsed: now });
    const max = this.#o.maxSessions ?? MAX_ASSIGNED_SESSIONS;
    for (const ek of this.#entries.keys()) {
      if (this.#entries.size <= max) break;
      this.#entries.delete(ek);
    }
    this.#save();
    return voice;
  }

  /** Newest use first, for status. */
  list(): SessionVoice[] {
    return [...this.#entries.values()].reverse().map((e) => ({
      session: e.session,
      engine: e.engine,
      voice: e.voice,
      lastUsedAt: new Date(e.lastUsed).toISOString(),
    }));
  }

  /** The voices a session may be given on `engine`: ids it accepts, at most MAX_POOL_VOICES. */
  pool(engine: Engine): Promise<string[]> {
    const cached = this.#pools.get(engine.name);
    if (cached && this.#clock() - cached.at < POOL_TTL_MS) return cached.voices;
    const voices = poolOf(engine).catch(() => []);
    this.#pools.set(engine.name, { at: this.#clock(), voices });
    return voices;
  }

  #touch(k: string, e: Entry): void {
    this.#entries.delete(k);
    this.#entries.set(k, e);
  }

  #load(path: string): void {
    const read = readRegularFile(path, { maxBytes: FILE_MAX_BYTES });
    if (!read.ok) {
      if (read.problem !== 'missing') this.#o.log?.warn({ path }, `session voices not read: the file ${read.why}`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.text);
    } catch {
      this.#o.log?.warn({ path }, 'session voices not read: not JSON');
      return;
    }
    const list = (parsed as { sessions?: unknown })?.sessions;
    if (!Array.isArray(list)) return;
    const max = this.#o.maxSessions ?? MAX_ASSIGNED_SESSIONS;
    for (const e of list.slice(-max) as Partial<Entry>[]) {
      if (
        typeof e?.session !== 'string' ||
        typeof e.engine !== 'string' ||
        typeof e.voice !== 'string' ||
        typeof e.lastUsed !== 'number'
      )
        continue;
      if (e.session.length > 200 || e.engine.length > 50 || e.voice.length > 100) continue;
      this.#touch(key(e.engine, e.session), {
        session: e.session,
        engine: e.engine,
        voice: e.voice,
        lastUsed: e.lastUsed,
      });
    }
  }

  /** Written whole, through a new file renamed over the old one; a failure is logged, never the request's. */
  #save(): void {
    const path = this.#o.path;
    if (!path) return;
    this.#savedAt = this.#clock();
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      const moved = moveAside(path);
      if (moved) this.#o.log?.warn({ path }, moved);
      rmSync(tmp, { force: true });
      writeFileSync(tmp, `${JSON.stringify({ sessions: [...this.#entries.values()] })}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      this.#o.log?.warn({ path, err: (err as Error).message }, 'session voices not saved');
    }
  }
}

async function poolOf(engine: Engine): Promise<string[]> {
  const candidates =
    engine.name === 'espeak' || engine.name === 'espeak-ng' ? ESPEAK_POOL : (await engine.voices()).map((v) => v.id);
  const out: string[] = [];
  for (const v of candidates) {
    if (out.length >= MAX_POOL_VOICES) break;
    if (!engine.knowsVoice || (await engine.knowsVoice(v).catch(() => false))) out.push(v);
  }
  return out;
}
