#!/usr/bin/env node
// pcm-check.mjs FILE [--rate 22050] [--channels 1] [--min-ms 300] [--max-ms 10000]
// Checks that a raw s16le capture (ALSA's file device) holds speech, not
// silence: RMS and peak above a floor, the speech's duration inside the bounds. Prints the
// figures; exits 1 when the capture fails a check. No sox: the fresh-machine
// root has nothing but Node.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '22050' },
    channels: { type: 'string', default: '1' },
    'min-ms': { type: 'string', default: '300' },
    'max-ms': { type: 'string', default: '10000' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: pcm-check.mjs FILE [--rate N] [--channels N] [--min-ms N] [--max-ms N]');
  process.exit(2);
}
const rate = Number(values.rate);
const channels = Number(values.channels);
let buf;
try {
  buf = readFileSync(positionals[0]);
} catch (err) {
  console.error(`pcm-check: cannot read the capture ${positionals[0]}: ${err.code ?? err.message}`);
  process.exit(1);
}
// A device may write silence around the speech (a sink that keeps the device
// open, ALSA's period padding): the checks use the span from the first to the
// last sample above 1% of full scale.
const samples = Math.floor(buf.length / 2);
const FLOOR = 0.01;
let first = -1;
let last = -1;
for (let i = 0; i < samples; i++) {
  if (Math.abs(buf.readInt16LE(i * 2) / 32768) > FLOOR) {
    if (first < 0) first = i;
    last = i;
  }
}
let sumSq = 0;
let peak = 0;
let loud = 0; // samples above the floor: speech has many, a click has few
for (let i = Math.max(first, 0); i <= last; i++) {
  const a = Math.abs(buf.readInt16LE(i * 2) / 32768);
  sumSq += a * a;
  if (a > peak) peak = a;
  if (a > FLOOR) loud++;
}
const span = first < 0 ? 0 : last - first + 1;
const ms = (n) => Math.round((n / channels / rate) * 1000);
const stats = {
  bytes: buf.length,
  totalMs: ms(samples),
  durationMs: ms(span),
  rms: span ? Math.sqrt(sumSq / span) : 0,
  peak,
  loudMs: ms(loud),
};
console.log(
  `pcm-check: ${positionals[0]}: ${JSON.stringify(stats)} (s16le, ${rate} Hz, ${channels} ch; duration and RMS over the span above 1% of full scale)`,
);
const problems = [];
if (stats.durationMs < Number(values['min-ms']) || stats.durationMs > Number(values['max-ms']))
  problems.push(`duration ${stats.durationMs} ms is outside ${values['min-ms']}..${values['max-ms']} ms`);
if (stats.rms < 0.01) problems.push(`RMS ${stats.rms.toFixed(4)} is silence (floor 0.01)`);
if (stats.peak < 0.05) problems.push(`peak ${stats.peak.toFixed(4)} is silence (floor 0.05)`);
if (stats.loudMs < 200) problems.push(`only ${stats.loudMs} ms above 1% of full scale`);
if (problems.length) {
  console.error(`pcm-check: not speech: ${problems.join('; ')}`);
  process.exit(1);
}
