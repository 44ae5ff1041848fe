/** RIFF/WAVE headers for s16le PCM. */
import type { AudioFormat } from './pcm.js';

export const WAV_HEADER_BYTES = 44;

export function wavHeader(format: AudioFormat, dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = format.channels * (format.bitDepth / 8);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(format.sampleRate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(format.bitDepth, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export function toWav(format: AudioFormat, pcm: Buffer): Buffer {
  return Buffer.concat([wavHeader(format, pcm.length), pcm]);
}
