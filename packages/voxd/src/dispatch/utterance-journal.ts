/**
 * The journal as the dispatcher writes it: the one module that records an
 * utterance's steps there (journal.ts has the file and its rules). An
 * accept before the caller hears "queued", each batch of a narration, each
 * sentence that starts, and the outcome; nothing at all without a journal.
 * The other modules say what happened to an utterance, and this module
 * decides what of it the journal keeps (never the API key).
 */
import type { Outcome, WireErrorCode } from '@vox/protocol';
import type { Journal } from './journal.js';
import type { JournalEntry, NarrationMark } from './journal-records.js';
import { KEPT, pick, type Utterance } from './utterance.js';

export class UtteranceJournal {
  readonly #journal: Journal | undefined;
  /** The utterances in the journal: accepted here, or replayed from it. */
  readonly #kept = new WeakSet<Utterance>();

  constructor(journal: Journal | undefined) {
    this.#journal = journal;
  }

  /** There is a journal: at a shutdown, what is unsettled is handed over to the next voxd through it. */
  get enabled(): boolean {
    return this.#journal !== undefined;
  }

  /**
   * Record `u` accepted (Journal.accept: written now, or this throws a 503
   * and nothing changed). The promise resolves once it is synced; undefined
   * without a journal.
   */
  accept(u: Utterance): Promise<void> | undefined {
    if (!this.#journal) return undefined;
    const done = this.#journal.accept(journalEntry(u));
    done.catch(() => {}); // awaited by admission, unless the priority rules drop it at once
    this.#kept.add(u);
    return done;
  }

  /** `u` came from the journal (replay.ts): its steps are recorded there again. */
  replayed(u: Utterance): void {
    if (this.#journal) this.#kept.add(u);
  }

  /** A narration's next batch, before `u` takes it: its record again, whole; throws (503) when it cannot be written. */
  grow(u: Utterance, next: { sentences: string[]; text: string; narration: NarrationMark }): void {
    if (this.#kept.has(u)) this.#journal!.grow({ ...journalEntry(u), ...next });
  }

  /** The sentence `u` is at (its `current`) started: where a restart resumes. */
  progress(u: Utterance): void {
    if (this.#kept.has(u)) this.#journal!.progress(u.id, u.current);
  }

  /** `u` settled: what a re-send after a restart is joined to. */
  settle(u: Utterance, outcome: Outcome, reason?: string, code?: WireErrorCode): void {
    if (!this.#kept.has(u)) return;
    this.#journal!.settle({
      id: u.id,
      ...(u.requestId ? { requestId: u.requestId } : {}),
      dedupKey: u.dedupKey,
      windowMs: u.windowMs,
      outcome,
      ...(reason ? { reason } : {}),
      ...(code ? { code } : {}),
    });
  }
}

/** What the journal keeps of an utterance (never its API key). */
function journalEntry(u: Utterance): JournalEntry {
  return {
    id: u.id,
    ...pick(u, KEPT),
    kind: u.kind,
    priority: u.priority,
    text: u.text,
    // The utterance's own array, as it always was: a narration's batch is recorded (grow) before it is added.
    sentences: u.sentences as string[],
    dedupKey: u.dedupKey,
    windowMs: u.windowMs,
    acceptedAt: u.acceptedAt,
    ...(u.apiKey ? { hadApiKey: true } : {}),
  };
}
