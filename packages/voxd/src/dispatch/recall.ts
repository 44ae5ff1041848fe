/**
 * The recall: what became of recent utterances, what the person missed, and
 * where the last recap stopped, in VOX_HOME/recall.jsonl, so that `vox
 * recap`, `vox history` and `vox replay` work after a restart or a `kill -9`
 * (the journal keeps only what has not settled, and no text once it has).
 *
 * Design notes:
 * - One JSON line per settled speech utterance (`u`), and one per recap
 *   (`m`: the number of the last item it covered). Written at once, not
 *   synced: a `kill -9` keeps the page cache, as for the journal's settles.
 * - Missed is decided when the utterance settles (`missed`): `held` (a
 *   background session's, attention.ts, until a digest says it: an `h`
 *   line), `failed`, `dropped` (the queue's priority rules or the journal's cap
 *   dropped it: never heard), `interrupted` (cut by speech that outranked
 *   it: heard in part at most) and `expired` (never started in time). Not
 *   missed: played; stopped (the person silenced it, or moved on to a new
 *   prompt); replaced (a newer one of its session said it); deduplicated
 *   (its original was said).
 * - Bounded: the last MAX_KEPT utterances. The file is rewritten with only
 *   those (tmp file, rename) once it holds twice as many lines. A record
 *   keeps the text spoken (cut at TEXT_CHARS) and, for replay, its sentences
 *   with the engine, voice, rate, volume and model that render the cached
 *   audio, unless they pass REPLAY_CHARS.
 * - A line voxd did not write is skipped; a file it cannot write is said
 *   once in the log and speech goes on.
 * - Recaps and replays are not recorded (they are what the person asked
 *   for): their duplicate keys start with RECAP_KEY and REPLAY_KEY.
 */
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { PRIORITIES, type Outcome, type Priority, type RecallEntry } from '@vox/protocol';
import { stripTags } from '../text/tags.js';
import { openAppend } from './journal-file.js';
import type { Utterance } from './utterance.js';

/** Utterances kept. */
export const MAX_KEPT = 2000;
/** Characters of text kept for listing and recaps. */
const TEXT_CHARS = 300;
/** An utterance longer than this keeps no sentences: it cannot be replayed. */
const REPLAY_CHARS = 8000;
/** Most bytes read at start: twice MAX_KEPT records of the largest size, and some. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
/** Duplicate-key prefixes of a recap's and a replay's own speech (normalized: lower case). */
export const RECAP_KEY = 'vox recap ';
export const REPLAY_KEY = 'vox replay ';

const MISSED: ReadonlySet<Outcome> = new Set<Outcome>(['failed', 'dropped', 'interrupted', 'expired', 'held']);
/** The duplicate-key prefix of a digest's own speech (attention.ts): not recorded either. */
export const DIGEST_KEY = 'vox digest ';

/** One utterance as kept. */
export interface Recalled {
  t: 'u';
  /** Its number in the recall, counting up across restarts. */
  n: number;
  id: string;
  session?: string;
  priority: Priority;
  outcome: Outcome;
  text: string;
  /** Wall-clock ms it settled. */
  at: number;
  missed: boolean;
  engine?: string;
  voice?: string;
  rate?: number;
  volume?: number;
  model?: string;
  /** As rendered (a fallback's without tags): what a replay asks the cache for. */
  sentences?: string[];
}

/** `m`: a recap covered up to item `n`; `h`: a digest covered up to item `upTo`, and said (the person heard) `ns`. */
type Line = Recalled | { t: 'm'; n: number; at: number } | { t: 'h'; ns: number[]; upTo: number; at: number };

export interface RecallLog {
  warn(obj: object, msg?: string): void;
}

export class Recall {
  readonly #path: string | undefined;
  readonly #clock: () => number;
  readonly #log: RecallLog | undefined;
  #items: Recalled[] = [];
  #next = 1;
  /** The number of the last item a recap covered. */
  #mark = 0;
  /** The number of the last item a digest covered. */
  #digested = 0;
  #fd: number | undefined;
  #lines = 0;
  #failed = false;

  /** `path` undefined: kept in memory only (tests, a voxd without a home). */
  constructor(path: string | undefined, options: { clock?: () => number; log?: RecallLog } = {}) {
    this.#path = path;
    this.#clock = options.clock ?? Date.now;
    this.#log = options.log;
    if (path) this.#read(path);
  }

  /** `u` settled in `outcome`: kept (speech only, and not a recap's or a replay's own). */
  settled(u: Utterance, outcome: Outcome): void {
    const own = [RECAP_KEY, REPLAY_KEY, DIGEST_KEY].some((k) => u.dedupKey.startsWith(k));
    if (u.kind !== 'speech' || own) return;
    const e = u.entry;
    const fallback = e.fallbackReason !== undefined;
    const sentences = fallback ? u.sentences.map((s) => stripTags(s)) : [...u.sentences];
    const rec: Recalled = {
      t: 'u',
      n: this.#next++,
      id: u.id,
      ...(u.session ? { session: u.session } : {}),
      priority: u.priority,
      outcome,
      text: u.text.length > TEXT_CHARS ? `${u.text.slice(0, TEXT_CHARS - 1)}…` : u.text,
      at: this.#clock(),
      missed: MISSED.has(outcome),
      ...(e.engine ? { engine: e.engine } : {}),
      // A fallback spoke without the voice and model, which named the engine that failed.
      ...(u.voice && !fallback ? { voice: u.voice } : {}),
      ...(u.rate !== undefined ? { rate: u.rate } : {}),
      ...(u.volume !== undefined ? { volume: u.volume } : {}),
      ...(u.model && !fallback ? { model: u.model } : {}),
      ...(outcome === 'played' && sentences.join('').length <= REPLAY_CHARS ? { sentences } : {}),
    };
    this.#items.push(rec);
    if (this.#items.length > 2 * MAX_KEPT) this.#items = this.#items.slice(-MAX_KEPT);
    this.#write(rec);
  }

  /** Missed since the last recap, oldest first. */
  missed(): Recalled[] {
    const out: Recalled[] = [];
    for (let i = this.#items.length - 1; i >= 0 && this.#items[i]!.n > this.#mark; i--)
      if (this.#items[i]!.missed) out.push(this.#items[i]!);
    return out.reverse();
  }

  /** A recap covered everything up to item `last` (what it found missed; by default all kept so far). */
  markRecapped(last = this.#items.at(-1)?.n ?? 0): void {
    if (last <= this.#mark) return;
    this.#mark = last;
    this.#write({ t: 'm', n: last, at: this.#clock() });
  }

  /** Held since the last recap and the last digest, oldest first (attention.ts). */
  held(): Recalled[] {
    return this.missed().filter((r) => r.outcome === 'held' && r.n > this.#digested);
  }

  /** A digest covered the items up to `upTo` and said `ns`: those are heard, no longer missed. */
  heard(ns: readonly number[], upTo: number): void {
    this.#hear(new Set(ns));
    this.#digested = Math.max(this.#digested, upTo);
    this.#write({ t: 'h', ns: [...ns], upTo, at: this.#clock() });
  }

  #hear(ns: ReadonlySet<number>): void {
    for (let i = this.#items.length - 1; i >= 0 && ns.size > 0; i--)
      if (ns.has(this.#items[i]!.n)) this.#items[i]!.missed = false;
  }

  /** The played utterances that can be played again, newest first (of `session` when given). */
  replayable(session?: string): Recalled[] {
    const out: Recalled[] = [];
    for (let i = this.#items.length - 1; i >= 0 && out.length < MAX_KEPT; i--) {
      const r = this.#items[i]!;
      if (r.sentences && r.sentences.length > 0 && r.engine && (!session || r.session === session)) out.push(r);
    }
    return out;
  }

  /** The newest `limit` utterances (of `session` when given), newest first, as the wire lists them. */
  list(limit: number, session?: string): RecallEntry[] {
    const numbers = new Map(this.replayable(session).map((r, i) => [r, i + 1]));
    const out: RecallEntry[] = [];
    for (let i = this.#items.length - 1; i >= 0 && out.length < limit; i--) {
      const r = this.#items[i]!;
      if (session && r.session !== session) continue;
      const replay = numbers.get(r);
      out.push({
        id: r.id,
        ...(r.session ? { session: r.session } : {}),
        priority: r.priority,
        outcome: r.outcome,
        text: r.text,
        at: new Date(r.at).toISOString(),
        ...(r.engine ? { engine: r.engine } : {}),
        missed: r.missed,
        ...(replay ? { replay } : {}),
      });
    }
    return out;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #write(line: Line): void {
    if (!this.#path) return;
    try {
      this.#fd ??= openAppend(this.#path);
      writeSync(this.#fd, `${JSON.stringify(line)}\n`);
      this.#failed = false;
      if (++this.#lines > 2 * MAX_KEPT) this.#compact(this.#path);
    } catch (err) {
      if (!this.#failed) this.#log?.warn({ path: this.#path, err: (err as Error).message }, 'recall not written');
      this.#failed = true;
      this.close();
    }
  }

  /** Rewrite with the items kept and the mark (tmp file, rename). */
  #compact(path: string): void {
    this.#items = this.#items.slice(-MAX_KEPT);
    const at = this.#clock();
    const lines: Line[] = [...this.#items, { t: 'm', n: this.#mark, at }, { t: 'h', ns: [], upTo: this.#digested, at }];
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
    renameSync(tmp, path);
    this.close();
    this.#lines = lines.length;
  }

  #read(path: string): void {
    let text: string;
    try {
      const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const size = Math.min(fstatSync(fd).size, MAX_READ_BYTES);
        const buf = Buffer.alloc(size);
        let at = 0;
        while (at < size) {
          const got = readSync(fd, buf, at, size - at, at);
          if (got === 0) break;
          at += got;
        }
        text = buf.subarray(0, at).toString('utf8');
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.#log?.warn({ path, code }, 'recall not read; it starts empty');
      return;
    }
    let bad = 0;
    for (const raw of text.split('\n')) {
      if (!raw) continue;
      this.#lines++;
      const line = parse(raw);
      if (!line) bad++;
      else if (line.t === 'm') this.#mark = Math.max(this.#mark, line.n);
      else if (line.t === 'h') {
        this.#hear(new Set(line.ns));
        this.#digested = Math.max(this.#digested, line.upTo);
      } else {
        this.#items.push(line);
        if (this.#items.length > 2 * MAX_KEPT) this.#items = this.#items.slice(-MAX_KEPT);
      }
      if (line && line.t !== 'h') this.#next = Math.max(this.#next, line.n + 1);
    }
    this.#items = this.#items.slice(-MAX_KEPT);
    if (bad) this.#log?.warn({ path, lines: bad }, 'recall lines voxd did not write were skipped');
  }
}

const OUTCOMES: readonly string[] = [
  'played',
  'failed',
  'expired',
  'interrupted',
  'stopped',
  'replaced',
  'dropped',
  'held',
] satisfies Outcome[];

/** A line as voxd writes it, or undefined (a torn or foreign line). */
function parse(raw: string): Line | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (r.t === 'h') {
    const ok = Array.isArray(r.ns) && r.ns.every((n) => Number.isSafeInteger(n)) && Number.isSafeInteger(r.upTo);
    return ok && typeof r.at === 'number'
      ? { t: 'h', ns: r.ns as number[], upTo: r.upTo as number, at: r.at }
      : undefined;
  }
  if (!Number.isSafeInteger(r.n) || (r.n as number) < 0 || typeof r.at !== 'number') return undefined;
  if (r.t === 'm') return { t: 'm', n: r.n as number, at: r.at };
  const opt = (k: string, type: string) => r[k] === undefined || typeof r[k] === type;
  const ok =
    r.t === 'u' &&
    typeof r.id === 'string' &&
    typeof r.text === 'string' &&
    typeof r.missed === 'boolean' &&
    (PRIORITIES as readonly unknown[]).includes(r.priority) &&
    OUTCOMES.includes(r.outcome as string) &&
    ['session', 'engine', 'voice', 'model'].every((k) => opt(k, 'string')) &&
    ['rate', 'volume'].every((k) => opt(k, 'number')) &&
    (r.sentences === undefined || (Array.isArray(r.sentences) && r.sentences.every((s) => typeof s === 'string')));
  if (!ok) return undefined;
  const { t: _t, n, id, text, at, missed, priority, outcome, ...rest } = r;
  const keep = ['session', 'engine', 'voice', 'model', 'rate', 'volume', 'sentences'] as const;
  const out: Recalled = {
    t: 'u',
    n: n as number,
    id: id as string,
    text: text as string,
    at: at as number,
    missed: missed as boolean,
    priority: priority as Priority,
    outcome: outcome as Outcome,
  };
  for (const k of keep) if (rest[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = rest[k];
  return out;
}
