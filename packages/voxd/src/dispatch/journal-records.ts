/**
 * The journal's records, one JSON object a line: `a` = accepted (all the
 * dispatcher needs to play it again), `p` = sentence n started, `s` =
 * settled (with its outcome, and what a re-send must be joined to: request
 * id, duplicate key and window). Reading them back skips and reports a torn
 * last line, a corrupt one, or one with a field voxd does not know or a value
 * it would not have written (a `priority` of `__proto__`), never fails: a
 * record is checked field by field against what voxd writes, so nothing
 * past this module sees a value it could not have produced.
 *
 * The reader holds at most `maxPendingBytes` of unsettled records: those past
 * it, in file order, are not replayed but reported (how many, which ids), and
 * a re-send of one learns it was dropped.
 */
import {
  CHIME_SIGNALS,
  ENGINE_NAMES,
  PRIORITIES,
  WIRE_ERRORS,
  type ChimeSignal,
  type Outcome,
  type Priority,
  type SpeakRequest,
  type WireErrorCode,
} from '@vox/protocol';
import type { NarrationState } from '../text/narration-text.js';
import type { HeldBatch, Skipped } from './narration-window.js';

/** A narrated message (dispatch/narration.ts): its last batch and where its text stands. */
export interface NarrationMark {
  message: string;
  /** The last batch taken. */
  index: number;
  /** The message's last batch was taken (or it reached its bound, `over`). */
  final: boolean;
  state: NarrationState;
  /** Batches that came ahead of a missing one, in index order (narration-window.ts). */
  held?: HeldBatch[];
  /** Indexes given up on: such a batch that comes after all is answered why. */
  skipped?: Skipped;
  /** The message reached NARRATION_MAX_MESSAGE_CHARS: the rest is left to the screen. */
  over?: boolean;
}

/** An accepted request as the journal keeps it: what it takes to play it again. */
export type JournalEntry = Pick<
  SpeakRequest,
  'requestId' | 'session' | 'final' | 'voice' | 'rate' | 'volume' | 'model'
> & {
  id: string;
  kind: 'speech' | 'chime';
  priority: Priority;
  /** The text as spoken, and its sentences (as prepared at accept: replay does not prepare again). */
  text: string;
  sentences: string[];
  /** The engine chosen at accept (a name, never `auto`). */
  engine?: string;
  signal?: ChimeSignal;
  dedupKey: string;
  windowMs: number;
  /** Wall-clock ms of the original accept. */
  acceptedAt: number;
  /** Wall-clock ms after which it expires unless it has started (maxAgeMs). */
  expiresAt?: number;
  /** The request carried its own API key, which is never written here (a re-send brings it back). */
  hadApiKey?: boolean;
  /** A narrated message: written again, whole, at each batch (the last record wins). */
  narration?: NarrationMark;
  /** Played again from the synthesis cache (`vox replay`): never synthesized anew. */
  cacheOnly?: boolean;
};

/** How a request ended, as the journal keeps it (for joining re-sends and duplicates after a restart). */
export interface SettledRecord {
  id: string;
  requestId?: string;
  dedupKey: string;
  windowMs: number;
  outcome: Outcome;
  reason?: string;
  code?: WireErrorCode;
  /** Wall-clock ms. */
  at: number;
}

export type PendingRecord = JournalEntry & {
  /** The last sentence that started playing, if any did: where a resume starts. */
  sentence?: number;
};

/** What the journal held when it was opened. */
export interface Replay {
  /** Unsettled requests, in the order they were accepted. */
  pending: PendingRecord[];
  /** Recently settled requests, oldest first. */
  settled: SettledRecord[];
  /** Records that could not be read (a torn last line, a corrupt line), each said in a sentence. */
  problems: string[];
  /** Unsettled requests past the cap, not replayed (each is in `settled` as dropped, and in `problems`). */
  notReplayed?: number;
}

export type Line = ({ t: 'a' } & JournalEntry) | { t: 'p'; id: string; n: number } | ({ t: 's' } & SettledRecord);

/** Bytes `line` takes in the file, newline included. */
export function lineBytes(line: Line): number {
  return Buffer.byteLength(JSON.stringify(line)) + 1;
}

/** Outcomes a settle record may hold (what the ledger writes). */
const SETTLED_OUTCOMES: readonly string[] = [
  'played',
  'stopped',
  'expired',
  'failed',
  'dropped',
  'replaced',
  'interrupted',
  'deduped',
  'held',
] satisfies Outcome[];
/** Settles kept while reading (the journal keeps fewer: keepSettled). */
const MAX_SETTLED_READ = 4096;
/** Bad lines named one by one; past this, one sentence says how many more. */
const MAX_PROBLEMS_NAMED = 10;

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const bool: Check = (v) => typeof v === 'boolean';
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);
const strings: Check = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Every field an accept record may have, and what its value must be. */
const ACCEPT_FIELDS: Record<string, Check> = {
  t: (v) => v === 'a',
  id: str,
  kind: oneOf(['speech', 'chime']),
  priority: oneOf(PRIORITIES),
  text: str,
  sentences: strings,
  dedupKey: str,
  windowMs: num,
  acceptedAt: num,
  requestId: str,
  session: str,
  final: bool,
  voice: str,
  rate: num,
  volume: num,
  engine: oneOf(ENGINE_NAMES.filter((e) => e !== 'auto')),
  model: str,
  signal: oneOf(CHIME_SIGNALS),
  expiresAt: num,
  hadApiKey: bool,
  narration: isNarrationMark,
  cacheOnly: bool,
};
const ACCEPT_REQUIRED = ['id', 'kind', 'priority', 'text', 'sentences', 'dedupKey', 'windowMs', 'acceptedAt'];

const SETTLE_FIELDS: Record<string, Check> = {
  t: (v) => v === 's',
  id: str,
  requestId: str,
  dedupKey: str,
  windowMs: num,
  outcome: oneOf(SETTLED_OUTCOMES),
  reason: str,
  code: (v) => typeof v === 'string' && Object.hasOwn(WIRE_ERRORS, v),
  at: num,
};
const SETTLE_REQUIRED = ['id', 'dedupKey', 'windowMs', 'outcome', 'at'];

const PROGRESS_FIELDS: Record<string, Check> = {
  t: (v) => v === 'p',
  id: str,
  n: (v) => Number.isInteger(v) && (v as number) >= 0,
};

function isNarrationMark(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  const st = m.state as Record<string, unknown> | null;
  return (
    str(m.message) &&
    Number.isInteger(m.index) &&
    bool(m.final) &&
    typeof st === 'object' &&
    st !== null &&
    str(st.carry) &&
    oneOf(['prose', 'code', 'table'])(st.mode) &&
    Number.isInteger(st.count) &&
    strings(st.para) &&
    Number.isInteger(st.given) &&
    (st.fence === undefined || str(st.fence)) &&
    (st.lang === undefined || str(st.lang)) &&
    (st.cont === undefined || bool(st.cont)) &&
    (m.held === undefined || (Array.isArray(m.held) && m.held.every(isHeld))) &&
    (m.skipped === undefined ||
      (Array.isArray(m.skipped) &&
        m.skipped.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isInteger(n))))) &&
    (m.over === undefined || bool(m.over))
  );
}

function isHeld(v: unknown): boolean {
  const h = v as Record<string, unknown> | null;
  return (
    typeof h === 'object' &&
    h !== null &&
    Number.isInteger(h.index) &&
    bool(h.final) &&
    str(h.delta) &&
    typeof h.at === 'number'
  );
}

/** Why `rec` is not a record of this shape, or undefined when it is. */
function problemOf(
  rec: Record<string, unknown>,
  fields: Record<string, Check>,
  required: readonly string[],
): string | undefined {
  for (const key of Object.keys(rec)) {
    if (!Object.hasOwn(fields, key)) return `has a field voxd does not write (${JSON.stringify(key.slice(0, 40))})`;
    if (!fields[key]!(rec[key])) return `has a value voxd does not write in "${key}"`;
  }
  const missing = required.find((k) => !Object.hasOwn(rec, k));
  return missing ? `lacks "${missing}"` : undefined;
}

/**
 * Reads a journal one line at a time (journal-file.ts feeds it): bounded
 * memory whatever the file holds, and every line checked.
 */
export class JournalReader {
  readonly #maxPendingBytes: number;
  readonly #pending = new Map<string, { rec: PendingRecord; bytes: number }>();
  #pendingBytes = 0;
  #settled: SettledRecord[] = [];
  /** Unsettled accepts past the cap, by id (settled ones leave: nothing of theirs is lost). */
  readonly #over = new Map<string, SettledRecord>();
  /** Set at the first accept that did not fit. */
  #full = false;
  #bad = 0;
  readonly #problems: string[];

  readonly #now: number;

  constructor(options: { maxPendingBytes: number; problems?: string[]; now?: number }) {
    this.#maxPendingBytes = options.maxPendingBytes;
    this.#now = options.now ?? Date.now();
    this.#problems = options.problems ?? [];
  }

  /** One line of the file (no newline); `n` counts from 1. */
  line(raw: string, n: number): void {
    if (!raw) return;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch {
      return this.#skip(`journal line ${n} is not JSON; it was skipped`);
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec))
      return this.#skip(`journal line ${n} is not a record voxd knows; it was skipped`);
    const r = rec as Record<string, unknown>;
    const [fields, required] =
      r.t === 'a'
        ? [ACCEPT_FIELDS, ACCEPT_REQUIRED]
        : r.t === 's'
          ? [SETTLE_FIELDS, SETTLE_REQUIRED]
          : r.t === 'p'
            ? [PROGRESS_FIELDS, ['id', 'n']]
            : [undefined, []];
    if (!fields) return this.#skip(`journal line ${n} is not a record voxd knows; it was skipped`);
    const problem =
      problemOf(r, fields, required) ??
      (r.t === 'a' && r.kind === 'chime' && r.signal === undefined ? 'is a chime without its signal' : undefined);
    if (problem) return this.#skip(`journal line ${n} ${problem}; that record was skipped, the rest is replayed`);
    if (r.t === 'a') this.#accept(r as unknown as Line & { t: 'a' }, Buffer.byteLength(raw) + 1);
    else if (r.t === 'p') {
      const p = this.#pending.get(r.id as string);
      // A narration that played all it has so far waits at its end (n = length) for the rest.
      if (p && ((r.n as number) < p.rec.sentences.length || (p.rec.narration && r.n === p.rec.sentences.length)))
        p.rec.sentence = r.n as number;
    } else this.#settle(r as unknown as Line & { t: 's' });
  }

  /** What was read; `torn` is what followed the last newline (a cut-short record), if anything. */
  finish(torn?: string): Replay {
    if (torn)
      this.#problems.push(
        `the journal's last record was cut short (${torn.length} bytes; voxd stopped during a write); it was ignored`,
      );
    if (this.#bad > MAX_PROBLEMS_NAMED)
      this.#problems.push(`${this.#bad - MAX_PROBLEMS_NAMED} more journal lines were skipped as well`);
    if (this.#over.size) {
      const ids = [...this.#over.keys()];
      this.#problems.push(
        `the journal held ${ids.length} unsettled request${ids.length === 1 ? '' : 's'} past its cap of ${this.#maxPendingBytes} bytes (VOXD_JOURNAL_MAX_BYTES); ` +
          `${ids.length === 1 ? 'it was' : 'they were'} not replayed and a re-send learns it was dropped: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}`,
      );
    }
    const dropped = [...this.#over.values()].slice(-MAX_SETTLED_READ);
    return {
      pending: [...this.#pending.values()].map((p) => p.rec),
      settled: [...this.#settled, ...dropped],
      problems: this.#problems,
      ...(this.#over.size ? { notReplayed: this.#over.size } : {}),
    };
  }

  #accept(line: Line & { t: 'a' }, bytes: number): void {
    const { t: _t, ...entry } = line;
    const old = this.#pending.get(entry.id);
    if (old) this.#pendingBytes -= old.bytes;
    // A narration written again keeps where it was played to.
    const sentence = old?.rec.sentence;
    // In order: once one does not fit, none after it is replayed ahead of it.
    if (this.#full || this.#pendingBytes + bytes > this.#maxPendingBytes) {
      this.#full = true;
      this.#pending.delete(entry.id);
      this.#over.set(entry.id, {
        id: entry.id,
        ...(entry.requestId ? { requestId: entry.requestId } : {}),
        dedupKey: entry.dedupKey,
        windowMs: entry.windowMs,
        outcome: 'dropped',
        reason: 'not replayed: the journal held more than its cap when voxd restarted',
        at: this.#now,
      });
      return;
    }
    this.#pending.set(entry.id, {
      rec: sentence !== undefined && entry.narration ? { ...entry, sentence } : entry,
      bytes,
    });
    this.#pendingBytes += bytes;
  }

  #settle(line: Line & { t: 's' }): void {
    const { t: _t, ...rec } = line;
    const p = this.#pending.get(rec.id);
    if (p) {
      this.#pending.delete(rec.id);
      this.#pendingBytes -= p.bytes;
    }
    this.#over.delete(rec.id);
    this.#settled.push(rec);
    if (this.#settled.length > 2 * MAX_SETTLED_READ) this.#settled = this.#settled.slice(-MAX_SETTLED_READ);
  }

  #skip(problem: string): void {
    if (++this.#bad <= MAX_PROBLEMS_NAMED) this.#problems.push(problem);
  }
}
