import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EnergyEndPointer as EndPointer } from '../../src/listen/vad.js';

const RATE = 16_000;
const silence = (ms: number) => Buffer.alloc(Math.round((RATE * ms) / 1000) * 2);
function tone(ms: number, amplitude = 0.2): Buffer {
  const n = Math.round((RATE * ms) / 1000);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / RATE) * amplitude * 32767), i * 2);
  return b;
}
/** Feed in 37 ms blocks (not frame-aligned, as a pipe delivers) until it ends. */
function run(ep: EndPointer, audio: Buffer): string | undefined {
  for (let at = 0; at < audio.length; at += 1184) {
    const end = ep.push(audio.subarray(at, at + 1184));
    if (end) return end;
  }
  return undefined;
}
const opts = { sampleRate: RATE, silenceMs: 600, startTimeoutMs: 2000, maxMs: 10_000 };

describe('EndPointer', () => {
  test('speech then silence ends on the silence, with the length of the speech', () => {
    const ep = new EndPointer(opts);
    assert.equal(run(ep, Buffer.concat([silence(300), tone(1000), silence(200), tone(500), silence(2000)])), 'silence');
    // The 200 ms pause between the two is shorter than silenceMs: one utterance.
    assert.ok(Math.abs(ep.speechMs - 1700) <= 40, String(ep.speechMs));
    assert.ok(Math.abs(ep.elapsedMs - (300 + 1700 + 600)) <= 40, String(ep.elapsedMs));
    assert.ok(Math.abs(ep.speechEndMs! - 2000) <= 40);
  });

  test('no speech before the start timeout ends as timeout; a click is not speech', () => {
    const ep = new EndPointer(opts);
    assert.equal(run(ep, Buffer.concat([silence(500), tone(40, 0.9), silence(3000)])), 'timeout');
    assert.equal(ep.speechMs, 0);
    assert.ok(Math.abs(ep.elapsedMs - 2000) <= 20);
  });

  test('the hard maximum ends a listen that never stops; quiet hum under -40 dBFS is not speech', () => {
    const ep = new EndPointer({ ...opts, maxMs: 1500 });
    assert.equal(run(ep, Buffer.concat([tone(3000)])), 'max');
    assert.ok(Math.abs(ep.elapsedMs - 1500) <= 20);
    const quiet = new EndPointer(opts);
    assert.equal(run(quiet, tone(3000, 0.005)), 'timeout');
  });
});
