/**
 * The order of a message's batches (narration.ts): they are taken in index
 * order, whatever order they arrive in. A batch that comes ahead of a missing
 * one is held (answered, journaled with the message) until the missing one
 * comes, and is taken right after it. The window is bounded: once more than
 * `batches` are held, or the oldest has been held `ms`, the missing ones are
 * skipped (the caller logs which) and the held ones are taken, so a batch
 * lost for good delays the message by that much at most and never stops it.
 * A skipped batch that comes after all is answered why, not taken.
 *
 * Plain data and pure functions: the window is part of the message's mark in
 * the journal, so a restarted voxd still holds what it held.
 */

/** A batch held until the ones before it come. */
export interface HeldBatch {
  index: number;
  final: boolean;
  delta: string;
  /** When it came, wall-clock ms (a restart keeps counting). */
  at: number;
}

/** Indexes skipped, as [first, last] ranges, the latest SKIPPED_KEPT of them. */
export type Skipped = Array<[number, number]>;

export interface WindowLimits {
  /** Most batches held at once. */
  batches: number;
  /** Longest a batch is held, in ms. */
  ms: number;
}

/** The window of one message: the next index to take, what is held (in index order), what was skipped. */
export interface Window {
  next: number;
  held: HeldBatch[];
  skipped: Skipped;
}

/** What can be taken now (in order), and the ranges just skipped to reach it. */
export interface Release {
  take: HeldBatch[];
  skipped: Skipped;
}

const SKIPPED_KEPT = 16;

/**
 * Place batch `b` in window `w` (changed in place): `repeated` when its index
 * was taken or is held already, `skipped` when it was given up on, else what
 * can now be taken.
 */
export function arrive(w: Window, b: HeldBatch, limits: WindowLimits): Release | 'repeated' | 'skipped' {
  if (b.index < w.next) return wasSkipped(w.skipped, b.index) ? 'skipped' : 'repeated';
  const at = w.held.findIndex((h) => h.index >= b.index);
  if (at >= 0 && w.held[at]!.index === b.index) return 'repeated';
  w.held.splice(at < 0 ? w.held.length : at, 0, b);
  return release(w, b.at, limits);
}

/** Whether `index` was given up on. */
export function wasSkipped(skipped: Skipped | undefined, index: number): boolean {
  return skipped?.some(([a, z]) => index >= a && index <= z) ?? false;
}

/** Take what is in order; past the window's bounds at `now`, skip the gap before the first held batch and go on. */
export function release(w: Window, now: number, limits: WindowLimits): Release {
  const out: Release = { take: [], skipped: [] };
  for (;;) {
    while (w.held[0]?.index === w.next) {
      out.take.push(w.held.shift()!);
      w.next++;
    }
    const first = w.held[0];
    if (!first || (w.held.length <= limits.batches && now - oldest(w) < limits.ms)) return out;
    const gap: [number, number] = [w.next, first.index - 1];
    out.skipped.push(gap);
    w.skipped.push(gap);
    if (w.skipped.length > SKIPPED_KEPT) w.skipped.shift();
    w.next = first.index;
  }
}

/** When the oldest held batch will have waited its time (wall-clock ms), or undefined when none is held. */
export function dueAt(w: Pick<Window, 'held'>, limits: WindowLimits): number | undefined {
  return w.held.length ? oldest(w) + limits.ms : undefined;
}

function oldest(w: Pick<Window, 'held'>): number {
  return Math.min(...w.held.map((h) => h.at));
}
