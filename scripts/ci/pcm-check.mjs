#!/usr/bin/env node
// pcm-check.mjs FILE [--rate 22050] [--channels 1] [--min-ms 300] [--max-ms 10000]
// Checks that a raw s16le capture (ALSA's file device) holds speech, not
// silence: RMS and peak above a floor, duration inside the bounds. Prints the
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
const samples = Math.floor(buf.length / 2);
let sumSq = 0;
let peak = 0;
let loud = 0; // samples above 1% of full scale: speech has many, a click has few
for (let i = 0; i < samples; i++) {
  const v = buf.readInt16LE(i * 2) / 32768;
  sumSq += v * v;
  const a = Math.abs(v);
  if (a > peak) peak = a;
  if (a > 0.01) loud++;
}
const stats = {
  bytes: buf.length,
  durationMs: Math.round((samples / channels / rate) * 1000),
  rms: samples ? Math.sqrt(sumSq / samples) : 0,
  peak,
  loudMs: Math.round((loud / channels / rate) * 1000),
};
console.log(`pcm-check: ${positionals[0]}: ${JSON.stringify(stats)} (s16le, ${rate} Hz, ${channels} ch)`);
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
