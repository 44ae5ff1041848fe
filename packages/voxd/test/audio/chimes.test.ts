import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHIME_SIGNALS } from '@vox/protocol';
import { CHIME_FORMAT, chimePcm } from '../../src/audio/chimes.js';

const samples = (buf: Buffer) => Array.from({ length: buf.length / 2 }, (_, i) => buf.readInt16LE(i * 2));
const peak = (xs: number[]) => xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const rms = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length) / 32767;

/** The figures' total lengths in ms (chimes.ts); a change here is a change users hear. */
const LENGTH_MS = { done: 300, prompt: 280, error: 480, attention: 460 } as const;

test('every signal has a figure of the documented length, at 22050 Hz s16le mono', () => {
  assert.deepEqual(CHIME_FORMAT, { sampleRate: 22050, channels: 1, bitDepth: 16 });
  for (const signal of CHIME_SIGNALS) {
    const pcm = chimePcm(signal);
    const seconds = pcm.length / 2 / CHIME_FORMAT.sampleRate;
    assert.ok(Math.abs(seconds * 1000 - LENGTH_MS[signal]) < 1, `${signal}: ${seconds * 1000} ms`);
  }
});

test('each signal sounds different', () => {
  const pcms = CHIME_SIGNALS.map((s) => chimePcm(s).toString('base64'));
  assert.equal(new Set(pcms).size, CHIME_SIGNALS.length);
});

test('a chime is audible, never clips, and starts and ends at silence (no click)', () => {
  for (const signal of CHIME_SIGNALS) {
    const xs = samples(chimePcm(signal));
    assert.ok(rms(xs) > 0.1, `${signal} RMS ${rms(xs)}`);
    assert.ok(peak(xs) <= Math.round(0.5 * 32767), `${signal} peak ${peak(xs)} at the default volume 0.5`);
    assert.ok(Math.abs(xs[0]!) < 50 && Math.abs(xs.at(-1)!) < 50, `${signal} edges ${xs[0]}, ${xs.at(-1)}`);
    // The envelope ramps: no jump between neighbouring samples bigger than a 1.3 kHz sine's at this volume.
    let jump = 0;
    for (let i = 1; i < xs.length; i++) jump = Math.max(jump, Math.abs(xs[i]! - xs[i - 1]!));
    assert.ok(jump < 0.5 * 32767 * ((2 * Math.PI * 1400) / 22050), `${signal} jump ${jump}`);
  }
});

test('a rest is silence', () => {
  // prompt: 110 ms tone, 60 ms rest, 110 ms tone.
  const xs = samples(chimePcm('prompt'));
  const at = (ms: number) => Math.round((22050 * ms) / 1000);
  assert.equal(peak(xs.slice(at(111), at(169))), 0);
});

test('volume scales the amplitude; volume 0 is silent', () => {
  const full = peak(samples(chimePcm('done', 1)));
  const half = peak(samples(chimePcm('done', 0.5)));
  assert.ok(full > 32000 && full <= 32767, `full ${full}`);
  assert.ok(Math.abs(half - full / 2) <= 2, `half ${half} vs ${full}`);
  assert.equal(peak(samples(chimePcm('done', 0))), 0);
});
