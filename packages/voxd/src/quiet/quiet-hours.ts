/**
 * Quiet hours (the `quietHours` setting, "22:00-07:00"): between the two
 * local times the quiet gate holds speech. One timer to the next edge, not a
 * poll; it is re-armed at each edge, so a clock change is caught at the next.
 * The window's syntax is checked once in @vox/protocol's settings schema.
 */
import { parseQuietHours, type QuietWindow } from '@vox/protocol/settings';
import type { QuietGate } from './gate.js';

const DAY_MIN = 24 * 60;

/** True when `date` (local time) is inside the window; it may cross midnight. */
export function inQuietHours(w: QuietWindow, date: Date): boolean {
  const m = date.getHours() * 60 + date.getMinutes();
  return w.start <= w.end ? m >= w.start && m < w.end : m >= w.start || m < w.end;
}

/** Ms from `date` to the next edge of the window (a start or an end), at least one second. */
export function msToNextEdge(w: QuietWindow, date: Date): number {
  const now = date.getHours() * 60 + date.getMinutes();
  const ahead = (edge: number) => (edge - now + DAY_MIN) % DAY_MIN || DAY_MIN;
  const minutes = Math.min(ahead(w.start), ahead(w.end));
  const ms = minutes * 60_000 - date.getSeconds() * 1000 - date.getMilliseconds();
  return Math.max(1000, ms);
}

export class QuietHours {
  readonly #window: QuietWindow;
  readonly #gate: QuietGate;
  readonly #clock: () => number;
  readonly #text: string;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(spec: string, gate: QuietGate, clock: () => number = Date.now) {
    const w = parseQuietHours(spec);
    if (!w) throw new Error(`not a quiet hours window: ${spec}`);
    this.#window = w;
    this.#gate = gate;
    this.#clock = clock;
    this.#text = spec.trim();
    this.#tick();
  }

  #tick(): void {
    if (this.#closed) return;
    const now = new Date(this.#clock());
    this.#gate.set('quiet-hours', inQuietHours(this.#window, now) ? `quiet hours (${this.#text})` : false);
    this.#timer = setTimeout(() => this.#tick(), msToNextEdge(this.#window, now));
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#gate.set('quiet-hours', false);
  }
}
