#!/usr/bin/env node
/**
 * Writes test/fixtures/listen/sentence.wav, the microphone of the listen tests:
 * 300 ms of silence, a known sentence spoken by vox's own embedded eSpeak-NG
 * engine (from packages/voxd/dist: run `npm run build` first), then 4 s of
 * silence, as 16 kHz mono s16le (what voxd's capture records). Also prints
 * where the speech starts and ends, which test/listen/listen.e2e.test.ts checks
 * against. Run it again only to change the fixture; commit the WAV.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EspeakEngine } from '../packages/voxd/dist/engines/espeak.js';
import { resample } from '../packages/voxd/dist/audio/pcm.js';
import { toWav } from '../packages/voxd/dist/audio/wav.js';

export const SENTENCE = 'Please turn on the lights in the kitchen.';
const RATE = 16_000;
const LEAD_MS = 300;
const TAIL_MS = 4000;

const engine = new EspeakEngine();
await engine.start();
const s = await engine.synthesize({ text: SENTENCE });
const parts = [];
for await (const c of s.chunks) parts.push(Buffer.from(c));
await engine.close();
let speech = resample(Buffer.concat(parts), s.format.sampleRate, RATE);
// Trim the engine's own leading and trailing near-silence, so the fixture's speech span is what is printed.
const loud = (i) => Math.abs(speech.readInt16LE(i)) > 328; // -40 dBFS
let a = 0;
while (a < speech.length - 1 && !loud(a)) a += 2;
let b = speech.length - 2;
while (b > a && !loud(b)) b -= 2;
speech = speech.subarray(a, b + 2);
const silence = (ms) => Buffer.alloc(Math.round((RATE * ms) / 1000) * 2);
const pcm = Buffer.concat([silence(LEAD_MS), speech, silence(TAIL_MS)]);
const out = fileURLToPath(new URL('../test/fixtures/listen/sentence.wav', import.meta.url));
writeFileSync(out, toWav({ sampleRate: RATE, channels: 1, bitDepth: 16 }, pcm));
const speechMs = Math.round((speech.length / 2 / RATE) * 1000);
process.stdout.write(
  `${out}: speech from ${LEAD_MS} ms for ${speechMs} ms, then ${TAIL_MS} ms of silence (${Math.round((pcm.length / 2 / RATE) * 1000)} ms in all)\n`,
);
