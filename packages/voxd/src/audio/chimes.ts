/**
 * Chimes generated in code (no binary assets): short sine-tone figures with a
 * soft attack and release so they never click. 22050 Hz s16le mono.
 */
import type { ChimeSignal } from '@vox/protocol';
import type { AudioFormat } from './pcm.js';

export const CHIME_FORMAT: AudioFormat = { sampleRate: 22050, channels: 1, bitDepth: 16 };

/** [frequency Hz, duration ms] notes; 0 Hz is a rest. */
const FIGURES: Record<ChimeSignal, Array<[number, number]>> = {
  done: [
    [660, 120],
    [880, 180],
  ],
  prompt: [
    [880, 110],
    [0, 60],
    [880, 110],
  ],
  error: [
    [440, 180],
    [0, 40],
    [330, 260],
  ],
  attention: [
    [988, 90],
    [0, 40],
    [988, 90],
    [0, 40],
    [1319, 200],
  ],
};

export function chimePcm(signal: ChimeSignal, volume = 0.5): Buffer {
  const rate = CHIME_FORMAT.sampleRate;
  const notes = FIGURES[signal];
  const total = notes.reduce((n, [, ms]) => n + Math.round((rate * ms) / 1000), 0);
  const buf = Buffer.alloc(total * 2);
  let offset = 0;
  for (const [freq, ms] of notes) {
    const n = Math.round((rate * ms) / 1000);
    const ramp = Math.min(Math.round(rate * 0.01), Math.floor(n / 2));
    for (let i = 0; i < n; i++) {
      const env = Math.min(1, i / ramp, (n - 1 - i) / ramp);
      const v = freq === 0 ? 0 : Math.sin((2 * Math.PI * freq * i) / rate) * env * volume;
      buf.writeInt16LE(Math.round(v * 32767), (offset + i) * 2);
    }
    offset += n;
  }
  return buf;
}
