/**
 * Audio checks for the tests, without sox: read a WAV (or raw s16le, as an ALSA
 * file device captures it) and measure its duration, RMS and peak.
 *
 * The RIFF walk skips chunks it does not know (LIST, fact, ...) and accepts a
 * WAV that is still being written or was streamed: voxd's file sink writes
 * data size 0 until the utterance ends, and pipes write 0xFFFFFFFF. Such a
 * data chunk runs to the end of the buffer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { toWav } from '../../packages/voxd/src/audio/wav.js';

export interface AudioStats {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Sample frames (one sample per channel). */
  frames: number;
  durationMs: number;
  /** Root mean square of all samples, 0..1 of full scale. */
  rms: number;
  /** Largest absolute sample, 0..1 of full scale. */
  peak: number;
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;
const STREAMED = 0xffffffff;

export function wavStats(input: string | Buffer): AudioStats {
  const name = typeof input === 'string' ? input : 'WAV buffer';
  const buf = typeof input === 'string' ? readFileSync(input) : input;
  const fail = (why: string): never => {
    throw new Error(`${name}: not a readable WAV (${why})`);
  };
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE')
    fail('no RIFF/WAVE header');
  let fmt: { format: number; channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  let at = 12;
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > buf.length) fail('short fmt chunk');
      let format = buf.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first 2 bytes of the sub-format GUID.
      if (format === EXTENSIBLE && size >= 40 && body + 26 <= buf.length) format = buf.readUInt16LE(body + 24);
      fmt = {
        format,
        channels: buf.readUInt16LE(body + 2),
        sampleRate: buf.readUInt32LE(body + 4),
        bitsPerSample: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) fail('data chunk before fmt chunk');
      const open = size === STREAMED || body + size > buf.length || (size === 0 && body < buf.length);
      return measure(buf.subarray(body, open ? buf.length : body + size), fmt!, name);
    }
    if (size === STREAMED) break;
    at = body + size + (size % 2); // chunks are padded to an even size
  }
  return fail(fmt ? 'no data chunk' : 'no fmt chunk');
}

/** Raw signed 16-bit little-endian PCM, e.g. what an ALSA `type file` device captured. */
export function pcmStats(buf: Buffer, options: { sampleRate: number; channels: number }): AudioStats {
  return measure(buf, { format: PCM, bitsPerSample: 16, ...options }, 'raw PCM');
}

function measure(
  data: Buffer,
  fmt: { format: number; channels: number; sampleRate: number; bitsPerSample: number },
  name: string,
): AudioStats {
  const { format, channels, sampleRate, bitsPerSample } = fmt;
  const bytes = bitsPerSample / 8;
  const read = sampleReader(format, bitsPerSample);
  if (!read || channels < 1 || sampleRate < 1)
    throw new Error(
      `${name}: unsupported audio format ${format}, ${bitsPerSample} bits, ${channels} channels, ${sampleRate} Hz`,
    );
  const frames = Math.floor(data.length / (bytes * channels));
  const samples = frames * channels;
  let sum = 0;
  let peak = 0;
  for (let i = 0; i < samples; i++) {
    const v = read(data, i * bytes);
    sum += v * v;
    const a = Math.abs(v);
    if (a > peak) peak = a;
  }
  return {
    sampleRate,
    channels,
    bitsPerSample,
    frames,
    durationMs: (frames / sampleRate) * 1000,
    rms: samples ? Math.sqrt(sum / samples) : 0,
    peak: Math.min(peak, 1),
  };
}

/** A reader of one sample as -1..1 of full scale, or undefined for a format the tests never see. */
function sampleReader(format: number, bits: number): ((b: Buffer, at: number) => number) | undefined {
  if (format === PCM) {
    if (bits === 8) return (b, at) => (b[at]! - 128) / 128;
    if (bits === 16) return (b, at) => b.readInt16LE(at) / 32768;
    if (bits === 24) return (b, at) => b.readIntLE(at, 3) / 8388608;
    if (bits === 32) return (b, at) => b.readInt32LE(at) / 2147483648;
  }
  if (format === FLOAT) {
    if (bits === 32) return (b, at) => b.readFloatLE(at);
    if (bits === 64) return (b, at) => b.readDoubleLE(at);
  }
  return undefined;
}

/** Writes a 16 kHz mono s16le WAV of `ms` of silence at `path` (what a recorder shim plays); returns the path. */
export function writeSilentWav(path: string, ms: number): string {
  const format = { sampleRate: 16000, channels: 1, bitDepth: 16 } as const;
  writeFileSync(path, toWav(format, Buffer.alloc(Math.round((16000 * ms) / 1000) * 2)));
  return path;
}
