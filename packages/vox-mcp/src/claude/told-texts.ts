/**
 * What a session's narration has already told, by either path: MessageDisplay
 * batches (claude/narration.ts) and the transcript (claude/transcript-narration.ts).
 * A text seen by one path is not narrated by the other.
 *
 * Design notes:
 * - Matched by text, not by id: MessageDisplay's `message_id` is an id of
 *   Claude Code's display (a UUID found nowhere in the transcript, seen with
 *   2.1.332), the transcript has the API's `msg_…` and its own line uuids.
 * - Two texts match when one starts with the other (whitespace collapsed, the
 *   first MATCH_CHARS compared): MessageDisplay may have given only the
 *   first lines of a message when the transcript shows the whole of it.
 * - Each entry matches once: a reply that says the same words twice ("Done.")
 *   in two messages is narrated twice, as it was written twice.
 * - MessageDisplay fires before Claude Code writes the message to the
 *   transcript (2.1.332), so a transcript text is nearly always checked
 *   against a display that came first; the other way round is checked too.
 * - Only within a turn (from one prompt to the next): a text of an earlier
 *   turn that one path missed never silences the same words later.
 * - Bounded: the last MAX_ENTRIES texts of a session, MAX_SESSIONS sessions.
 */

/** Characters of a text compared. */
export const MATCH_CHARS = 2000;
export const MAX_ENTRIES = 64;
export const MAX_SESSIONS = 16;

interface Entry {
  /** `turn`: a new prompt; nothing before it is matched. */
  from: 'display' | 'transcript' | 'turn';
  /** MessageDisplay's message_id, or the transcript line's key. */
  key: string;
  /** Normalised, at most MATCH_CHARS. */
  text: string;
  /** Matched by the other path once. */
  matched: boolean;
  /** A MessageDisplay message the transcript told first: its batches are dropped. */
  drop?: boolean;
}

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, MATCH_CHARS);

function overlaps(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  return n > 0 && a.slice(0, n) === b.slice(0, n);
}

export class ToldTexts {
  readonly #sessions = new Map<string, Entry[]>();

  #entries(session: string): Entry[] {
    let list = this.#sessions.get(session);
    if (list) {
      this.#sessions.delete(session);
    } else {
      list = [];
      if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    this.#sessions.set(session, list);
    return list;
  }

  /** The entries of the current turn. */
  #turn(list: Entry[]): Entry[] {
    let i = list.length;
    while (i > 0 && list[i - 1]!.from !== 'turn') i--;
    return list.slice(i);
  }

  #push(list: Entry[], e: Entry): void {
    list.push(e);
    if (list.length > MAX_ENTRIES) list.splice(0, list.length - MAX_ENTRIES);
  }

  /**
   * A MessageDisplay batch: true when the message should be narrated, false when
   * the transcript already told it (every later batch of that message then too).
   */
  display(session: string, message: string, delta: string): boolean {
    const list = this.#entries(session);
    const turn = this.#turn(list);
    const own = turn.find((e) => e.from === 'display' && e.key === message);
    if (own) {
      if (own.drop) return false;
      // A later batch: the message's text grows, while it still fits in what is compared.
      if (own.text.length < MATCH_CHARS) own.text = norm(`${own.text} ${delta}`);
      return true;
    }
    const text = norm(delta);
    const told = text ? turn.find((e) => e.from === 'transcript' && !e.matched && overlaps(e.text, text)) : undefined;
    if (told) {
      told.matched = true;
      // Remembered as told, so its later batches are dropped too.
      this.#push(list, { from: 'display', key: message, text, matched: true, drop: true });
      return false;
    }
    this.#push(list, { from: 'display', key: message, text, matched: false });
    return true;
  }

  /** A text of the transcript: true when it should be narrated, false when MessageDisplay gave it. */
  transcript(session: string, key: string, text: string): boolean {
    const list = this.#entries(session);
    const turn = this.#turn(list);
    if (turn.some((e) => e.from === 'transcript' && e.key === key)) return false;
    const t = norm(text);
    const shown = t ? turn.find((e) => e.from === 'display' && !e.matched && overlaps(e.text, t)) : undefined;
    if (shown) shown.matched = true;
    this.#push(list, { from: 'transcript', key, text: t, matched: shown !== undefined });
    return shown === undefined && t !== '';
  }

  /** A new prompt in the session. */
  newTurn(session: string): void {
    this.#push(this.#entries(session), { from: 'turn', key: '', text: '', matched: true });
  }

  /** True when no text of the turn so far, by either path, is this one (the turn's last, at Stop). */
  unheard(session: string, text: string): boolean {
    const t = norm(text);
    return !this.#turn(this.#entries(session)).some((e) => e.from !== 'turn' && overlaps(e.text, t));
  }

  /** Forget every session (tests). */
  clear(): void {
    this.#sessions.clear();
  }
}
