/**
 * The journal's records, one JSON object a line: `a` = accepted (all the
 * dispatcher needs to play it again), `p` = sentence n started, `s` =
 * settled (with its outcome, and what a re-send must be joined to: request
 * id, duplicate key and window). Reading them back skips and reports a torn
 * last line or a corrupt one, never fails.
 */
import type { ChimeSignal, Outcome, Priority, SpeakRequest, WireErrorCode } from '@vox/protocol';

/** An accepted request as the journal keeps it: what it takes to play it again. */
export type JournalEntry = Pick<SpeakRequest, 'requestId' | 'session' | 'final' | 'voice' | 'rate' | 'volume' | 'model'> & {
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
}

export type Line =
  | ({ t: 'a' } & JournalEntry)
  | { t: 'p'; id: string; n: number }
  | ({ t: 's' } & SettledRecord);

/** Bytes `line` takes in the file, newline included. */
export function lineBytes(line: Line): number {
  return Buffer.byteLength(JSON.stringify(line)) + 1;
}

/** The records in a journal file's `text`; what cannot be read is added to `problems`. */
export function parseJournal(text: string, problems: string[]): Replay {
  const pending = new Map<string, PendingRecord>();
  const settled: SettledRecord[] = [];
  const lines = text.split('\n');
  // The last element is what follows the final newline: empty, or a torn record.
  const torn = lines.pop();
  if (torn) problems.push(`the journal's last record was cut short (${torn.length} bytes; voxd stopped during a write); it was ignored`);
  lines.forEach((raw, i) => {
    if (!raw) return;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      problems.push(`journal line ${i + 1} is not JSON; it was skipped`);
      return;
    }
    if (line?.t === 'a' && valid(line)) {
      const { t: _t, ...entry } = line;
      pending.set(line.id, entry);
    } else if (line?.t === 'p' && typeof line.id === 'string' && Number.isInteger(line.n) && line.n >= 0) {
      const p = pending.get(line.id);
      if (p && line.n < p.sentences.length) p.sentence = line.n;
    } else if (line?.t === 's' && typeof line.id === 'string' && typeof line.outcome === 'string' && typeof line.at === 'number') {
      pending.delete(line.id);
      const { t: _t, ...rec } = line;
      settled.push(rec);
    } else {
      problems.push(`journal line ${i + 1} is not a record voxd knows; it was skipped`);
    }
  });
  return { pending: [...pending.values()], settled, problems };
}

function valid(e: Partial<JournalEntry>): e is JournalEntry {
  return (
    typeof e.id === 'string' &&
    (e.kind === 'speech' || e.kind === 'chime') &&
    typeof e.priority === 'string' &&
    typeof e.text === 'string' &&
    Array.isArray(e.sentences) &&
    e.sentences.every((s) => typeof s === 'string') &&
    typeof e.dedupKey === 'string' &&
    typeof e.windowMs === 'number' &&
    typeof e.acceptedAt === 'number'
  );
}
