/**
 * The speech queue and its priority rules, after speech-dispatcher's SSIP
 * classes (docs/priorities.md has the table). Unlike SSIP, a `text` replaces
 * only its own session's older text, and every item the rules remove is
 * returned to the caller so that it is reported, never dropped silently.
 *
 * Order: important > message > text > progress > notification; FIFO within a class.
 * An interrupted item goes back to the front of its class, except a `text`
 * whose session has queued a newer text meanwhile: that one replaces it.
 */
import type { Priority } from '@vox/protocol';

export interface QueueItem {
  id: string;
  priority: Priority;
  session?: string;
  /** The last of a series of `progress` messages: always spoken. */
  final?: boolean;
}

export interface Removal<T> {
  item: T;
  outcome: 'replaced' | 'dropped';
  reason: string;
}

export interface Admission<T> {
  /** False when the new item itself is dropped (a notification when something else is busy). */
  admitted: boolean;
  reason?: string;
  /** Queued items the new one removed. */
  removed: Array<Removal<T>>;
  /** What to do with the utterance playing now. */
  playing: 'continue' | 'interrupt-resume' | 'interrupt-drop';
}

const RANK: Record<Priority, number> = { important: 0, message: 1, text: 2, progress: 3, notification: 4 };

function protectedProgress(item: QueueItem): boolean {
  return item.priority === 'progress' && item.final === true;
}

export class SpeechQueue<T extends QueueItem> {
  #items: T[] = [];

  get length(): number {
    return this.#items.length;
  }

  items(): readonly T[] {
    return this.#items;
  }

  /** Apply the rules for a new item, given what is playing now, and queue it if admitted. */
  admit(item: T, playing: T | null): Admission<T> {
    const removed: Array<Removal<T>> = [];
    const busy = playing !== null || this.#items.length > 0;
    const p = item.priority;

    if (p === 'notification' && busy) {
      return { admitted: false, reason: 'notification dropped: other speech is queued or playing', removed, playing: 'continue' };
    }
    if (p === 'progress' && !item.final && this.#items.some((q) => q.priority !== 'progress' && q.priority !== 'notification')) {
      return { admitted: false, reason: 'progress dropped: other speech is queued', removed, playing: 'continue' };
    }
    if (p === 'progress' && !item.final && playing && playing.priority !== 'progress' && playing.priority !== 'notification') {
      return { admitted: false, reason: 'progress dropped: other speech is playing', removed, playing: 'continue' };
    }

    // Anything newer drops a queued notification.
    this.#remove((q) => q.priority === 'notification', 'dropped', `dropped for newer ${p} speech`, removed);
    if (p === 'message' || p === 'important') {
      this.#remove(
        (q) => (q.priority === 'text' || (q.priority === 'progress' && !protectedProgress(q))) && p === 'message',
        'dropped',
        'cancelled by a message',
        removed,
      );
    }
    if (p === 'text') {
      this.#remove((q) => q.priority === 'text' && q.session === item.session, 'replaced', 'replaced by a newer text from the same session', removed);
    }
    if (p === 'progress') {
      this.#remove(
        (q) => q.priority === 'progress' && q.session === item.session && !protectedProgress(q),
        'replaced',
        'replaced by newer progress from the same session',
        removed,
      );
    }

    let playingAction: Admission<T>['playing'] = 'continue';
    if (playing) {
      const pp = playing.priority;
      if (p === 'important' && pp !== 'important') {
        playingAction = pp === 'message' || pp === 'text' || protectedProgress(playing) ? 'interrupt-resume' : 'interrupt-drop';
      } else if (p === 'message' && (pp === 'text' || pp === 'notification' || (pp === 'progress' && !protectedProgress(playing)))) {
        playingAction = 'interrupt-drop';
      } else if ((p === 'text' || p === 'progress') && pp === 'notification') {
        playingAction = 'interrupt-drop';
      }
    }
    this.#insert(item, false);
    return { admitted: true, removed, playing: playingAction };
  }

  /**
   * Put an interrupted utterance back at the front of its class, to resume.
   * A `text` whose session queued a newer text while it played is not put
   * back: back in the queue it would be the older queued text, which the
   * newer one replaces. Returns that newer item in that case, else undefined.
   */
  requeue(item: T): T | undefined {
    if (item.priority === 'text') {
      const newer = this.#items.find((q) => q.priority === 'text' && q.session === item.session);
      if (newer) return newer;
    }
    this.#insert(item, true);
    return undefined;
  }

  /** Take the next item to play. */
  shift(): T | undefined {
    return this.#items.shift();
  }

  /** Remove and return every item that matches. */
  removeWhere(pred: (item: T) => boolean): T[] {
    const out: T[] = [];
    this.#items = this.#items.filter((q) => (pred(q) ? (out.push(q), false) : true));
    return out;
  }

  #insert(item: T, front: boolean): void {
    const rank = RANK[item.priority];
    const at = this.#items.findIndex((q) => (front ? RANK[q.priority] >= rank : RANK[q.priority] > rank));
    if (at === -1) this.#items.push(item);
    else this.#items.splice(at, 0, item);
  }

  #remove(pred: (q: T) => boolean, outcome: Removal<T>['outcome'], reason: string, into: Array<Removal<T>>): void {
    for (const q of this.removeWhere(pred)) into.push({ item: q, outcome, reason });
  }
}
