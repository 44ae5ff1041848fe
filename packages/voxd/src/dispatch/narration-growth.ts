/**
 * A narrated message's growth (narration.ts): the sentences the batches its
 * window lets through add, in order, with their secrets said as their kind,
 * and the mark that describes the message after them. A message is bounded:
 * past `max` characters it says the rest is on the screen and is over (final,
 * nothing held or open), so its memory and its journal record stay bounded.
 */
import { redactSecrets, type NarrationRequest } from '@vox/protocol';
import { initialState, narrate, type NarrationState } from '../text/narration-text.js';
import type { NarrationMark } from './journal-records.js';
import type { HeldBatch, Release, Window } from './narration-window.js';

/** What a message past NARRATION_MAX_MESSAGE_CHARS says last. */
export const OVER_PHRASE = 'The rest of this message is on the screen.';

/** Nothing but punctuation and spaces (as admission.ts). */
const UNSPEAKABLE = /^[\p{P}\s]*$/u;

export function heldOf(req: NarrationRequest): HeldBatch {
  return { index: req.index, final: req.final, delta: req.delta, at: Date.now() };
}

/** The message's window as its mark keeps it (copies: the mark changes only once the journal has the next one). */
export function windowOf(mark: NarrationMark): Window {
  return { next: mark.index + 1, held: [...(mark.held ?? [])], skipped: [...(mark.skipped ?? [])] };
}

export function overReason(max: number): string {
  return `the message is longer than the ${max} characters voxd narrates of one message: the rest is left to the screen`;
}

/** Why a batch given up on (narration-window.ts) is not taken now that it came. */
export function skippedReason(index: number, window: { ms: number; batches: number }): string {
  return `batch ${index} came after the batches past it were spoken: it was skipped, having not come within ${window.ms} ms or ${window.batches} batches`;
}

/**
 * The sentences the batches taken (`r.take`, in order) add to a message of
 * `spoken` characters, and its mark after them. Past `max` characters it
 * says the rest is on the screen and is over: final, nothing held or open.
 */
export function advance(
  mark: NarrationMark,
  w: Window,
  r: Release,
  spoken: number,
  max: number,
): { added: string[]; mark: NarrationMark } {
  const state: NarrationState = structuredClone(mark.state);
  let added: string[] = [];
  let final = mark.final;
  for (const b of r.take) {
    added.push(...speakable(narrate(state, b.delta, b.final)).map(unsecret));
    final ||= b.final;
  }
  let chars = spoken;
  const fit = added.findIndex((s) => (chars += s.length + 1) > max);
  if (fit >= 0) {
    added = [...added.slice(0, fit), OVER_PHRASE];
    return {
      added,
      mark: { message: mark.message, index: w.next - 1, final: true, state: initialState(), over: true },
    };
  }
  const next: NarrationMark = { message: mark.message, index: w.next - 1, final, state };
  if (w.held.length) next.held = w.held;
  if (w.skipped.length) next.skipped = w.skipped;
  return { added, mark: next };
}

function speakable(sentences: string[]): string[] {
  return sentences.filter((s) => !UNSPEAKABLE.test(s));
}

/** A sentence with its secrets said as their kind: what is spoken, kept in history and journaled. */
function unsecret(sentence: string): string {
  return redactSecrets(sentence).text;
}
