/**
 * The speech queue and its priority rules, after speech-dispatcher's SSIP
 * classes (docs/priorities.md has the table). Unlike SSIP, a `text` replaces
 * only its own session's older text, and every item the rules remove is
 * returned to the caller so that it is reported, never dropped silently.
 *
 * Order: important > message > text > progress > notification; FIFO within a class.
 * An interrupted item goes back to the front of its class, except a `text`
 * whose session has queued a newer text meanwhile: that one replaces it.
 *
 * Every operation on one item is O(1) (a deep queue of 10,000 must not make
 * each admission, stop or expiry scan the rest): one linked list per class,
 * a node per item for removal, and per-session indexes of queued `text` and
 * `progress`, the only classes whose rules look for a session's items.
 */
import { PRIORITIES, type Priority } from '@vox/protocol';

export interface QueueItem {
  id: string;
  priority: Priority;
  session?: string;
  /** The last of a series of `progress` messages: always spoken. */
  final?: boolean;
  /** A narrated message (a `text` that grows): no text replaces it, and a message pauses it rather than ending it. */
  narration?: object;
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
const CLASSES: readonly Priority[] = ['important', 'message', 'text', 'progress', 'notification'];

function protectedProgress(item: QueueItem): boolean {
  return item.priority === 'progress' && item.final === true;
}

interface Node<T> {
  item: T;
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
  list: List<T>;
}

/** A doubly linked list: push at either end, remove any node, in O(1). */
class List<T> {
  head: Node<T> | undefined;
  tail: Node<T> | undefined;
  size = 0;

  push(item: T, front: boolean): Node<T> {
    const node: Node<T> = { item, prev: undefined, next: undefined, list: this };
    if (!this.head) this.head = this.tail = node;
    else if (front) {
      node.next = this.head;
      this.head.prev = node;
      this.head = node;
    } else {
      node.prev = this.tail;
      this.tail!.next = node;
      this.tail = node;
    }
    this.size++;
    return node;
  }

  unlink(node: Node<T>): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = undefined;
    this.size--;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let n = this.head; n;) {
      const next = n.next; // the caller may remove n
      yield n.item;
      n = next;
    }
  }
}

export class SpeechQueue<T extends QueueItem> {
  readonly #lists = new Map<Priority, List<T>>(CLASSES.map((p) => [p, new List<T>()]));
  readonly #nodes = new Map<T, Node<T>>();
  /** Queued items of one session, for the classes whose rules are per session. */
  readonly #bySession = {
    text: new Map<string | undefined, Set<T>>(),
    progress: new Map<string | undefined, Set<T>>(),
  };

  get length(): number {
    return this.#nodes.size;
  }

  /** Queued items of one class. */
  /** How many are queued in each class. */
  counts(): Record<Priority, number> {
    return Object.fromEntries(PRIORITIES.map((p) => [p, this.count(p)])) as Record<Priority, number>;
  }

  count(priority: Priority): number {
    return this.#lists.get(priority)!.size;
  }

  /** Every queued item, in playing order (O(n): for views, not for rules). */
  items(): readonly T[] {
    return [...this.#iterate()];
  }

  /** The first `limit` queued items, in playing order. */
  first(limit: number): T[] {
    const out: T[] = [];
    for (const item of this.#iterate()) {
      if (out.length >= limit) break;
      out.push(item);
    }
    return out;
  }

  /** Apply the rules for a new item, given what is playing now, and queue it if admitted. */
  admit(item: T, playing: T | null): Admission<T> {
    const removed: Array<Removal<T>> = [];
    const busy = playing !== null || this.length > 0;
    const p = item.priority;
    const speechQueued = this.count('important') + this.count('message') + this.count('text') > 0;

    if (p === 'notification' && busy) {
      return {
        admitted: false,
        reason: 'notification dropped: other speech is queued or playing',
        removed,
        playing: 'continue',
      };
    }
    if (p === 'progress' && !item.final && speechQueued) {
      return { admitted: false, reason: 'progress dropped: other speech is queued', removed, playing: 'continue' };
    }
    if (
      p === 'progress' &&
      !item.final &&
      playing &&
      playing.priority !== 'progress' &&
      playing.priority !== 'notification'
    ) {
      return { admitted: false, reason: 'progress dropped: other speech is playing', removed, playing: 'continue' };
    }

    // Anything newer drops a queued notification.
    this.#removeAll(this.#lists.get('notification')!, () => true, 'dropped', `dropped for newer ${p} speech`, removed);
    if (p === 'message') {
      this.#removeAll(this.#lists.get('text')!, (q) => !q.narration, 'dropped', 'cancelled by a message', removed);
      this.#removeAll(
        this.#lists.get('progress')!,
        (q) => !protectedProgress(q),
        'dropped',
        'cancelled by a message',
        removed,
      );
    }
    if (p === 'text') {
      if (!item.narration)
        this.#removeAll(
          this.#bySession.text.get(item.session) ?? new Set(),
          (q) => !q.narration,
          'replaced',
          'replaced by a newer text from the same session',
          removed,
        );
    }
    if (p === 'progress') {
      this.#removeAll(
        this.#bySession.progress.get(item.session) ?? new Set(),
        (q) => !protectedProgress(q),
        'replaced',
        'replaced by newer progress from the same session',
        removed,
      );
    }

    let playingAction: Admission<T>['playing'] = 'continue';
    if (playing) {
      const pp = playing.priority;
      if (p === 'important' && pp !== 'important') {
        playingAction =
          pp === 'message' || pp === 'text' || protectedProgress(playing) ? 'interrupt-resume' : 'interrupt-drop';
      } else if (p === 'message' && playing.narration) {
        playingAction = 'interrupt-resume';
      } else if (
        p === 'message' &&
        (pp === 'text' || pp === 'notification' || (pp === 'progress' && !protectedProgress(playing)))
      ) {
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
    if (item.priority === 'text' && !item.narration) {
      for (const newer of this.#bySession.text.get(item.session) ?? []) if (!newer.narration) return newer;
    }
    this.#insert(item, true);
    return undefined;
  }

  /**
   * Put back an item that was queued before voxd restarted (the journal's
   * replay), without the rules: they were applied when it was first
   * accepted. `front` for one that had started (it resumes first in its class).
   */
  restore(item: T, front: boolean): void {
    this.#insert(item, front);
  }

  /** Queue a narration again behind its class: it played its turn (or all it had), and the others go first. */
  pushBack(item: T): void {
    this.#insert(item, false);
  }

  /** Something queued would play before a `priority` item queued now. */
  waitingAtOrAbove(priority: Priority): boolean {
    for (const p of CLASSES) {
      if (this.#lists.get(p)!.size > 0) return true;
      if (p === priority) return false;
    }
    return false;
  }

  /** Take the next item to play. */
  shift(): T | undefined {
    for (const p of CLASSES) {
      const head = this.#lists.get(p)!.head;
      if (head) {
        this.remove(head.item);
        return head.item;
      }
    }
    return undefined;
  }

  /** Remove one item; false when it is not queued. O(1). */
  remove(item: T): boolean {
    const node = this.#nodes.get(item);
    if (!node) return false;
    node.list.unlink(node);
    this.#nodes.delete(item);
    const index = this.#index(item);
    if (index) {
      const set = index.get(item.session);
      set?.delete(item);
      if (set?.size === 0) index.delete(item.session);
    }
    return true;
  }

  /** Remove and return every item that matches, in playing order. */
  removeWhere(pred: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (const p of CLASSES) {
      for (let n = this.#lists.get(p)!.head; n;) {
        const next = n.next;
        if (pred(n.item)) {
          out.push(n.item);
          this.remove(n.item);
        }
        n = next;
      }
    }
    return out;
  }

  *#iterate(): IterableIterator<T> {
    for (const p of CLASSES) for (let n = this.#lists.get(p)!.head; n; n = n.next) yield n.item;
  }

  #index(item: T): Map<string | undefined, Set<T>> | undefined {
    return item.priority === 'text'
      ? this.#bySession.text
      : item.priority === 'progress'
        ? this.#bySession.progress
        : undefined;
  }

  #insert(item: T, front: boolean): void {
    this.#nodes.set(item, this.#lists.get(item.priority)!.push(item, front));
    const index = this.#index(item);
    if (index) {
      const set = index.get(item.session) ?? new Set<T>();
      index.set(item.session, set);
      set.add(item);
    }
  }

  #removeAll(
    from: List<T> | Set<T>,
    pred: (q: T) => boolean,
    outcome: Removal<T>['outcome'],
    reason: string,
    into: Array<Removal<T>>,
  ): void {
    if (from.size === 0) return;
    const matched = [...from].filter(pred);
    for (const q of matched) {
      this.remove(q);
      into.push({ item: q, outcome, reason });
    }
  }
}
