/** The WAV reader the audio tests rely on, checked on WAVs built here. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toWav } from '../../packages/voxd/src/audio/wav.js';
import { removeDir, tempDir } from './daemon.js';
import { pcmStats, wavStats, writeSilentWav } from './wav.js';

/** `seconds` of a sine of amplitude `amp` (0..1), s16le, every channel alike. */
function sine(seconds: number, amp: number, sampleRate = 22050, channels = 1): Buffer {
  const frames = Math.round(seconds * sampleRate);
  const b = Buffer.alloc(frames * channels * 2);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(amp * 32767 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
    for (let c = 0; c < channels; c++) b.writeInt16LE(v, (i * channels + c) * 2);
  }
  return b;
}

function chunk(id: string, body: Buffer, size = body.length): Buffer {
  const h = Buffer.alloc(8);
  h.write(id, 0, 'ascii');
  h.writeUInt32LE(size, 4);
  return Buffer.concat([h, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function fmt(format: number, channels: number, sampleRate: number, bits: number): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt16LE(format, 0);
  b.writeUInt16LE(channels, 2);
  b.writeUInt32LE(sampleRate, 4);
  b.writeUInt32LE((sampleRate * channels * bits) / 8, 8);
  b.writeUInt16LE((channels * bits) / 8, 12);
  b.writeUInt16LE(bits, 14);
  return b;
}

function riff(chunks: Buffer[], size?: number): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
  return chunk('RIFF', body, size ?? body.length).subarray(0, 8 + body.length);
}

const SINE_RMS = 0.5 / Math.SQRT2;

describe('wavStats', () => {
  test('a WAV as voxd writes it: format, frames, duration, RMS and peak of a sine', () => {
    const s = wavStats(toWav({ sampleRate: 22050, channels: 1, bitDepth: 16 }, sine(1, 0.5)));
    assert.deepEqual(
      { ...s, rms: undefined, peak: undefined },
      {
        sampleRate: 22050,
        channels: 1,
        bitsPerSample: 16,
        frames: 22050,
        durationMs: 1000,
        rms: undefined,
        peak: undefined,
      },
    );
    assert.ok(Math.abs(s.rms - SINE_RMS) < 0.001, `rms ${s.rms}`);
    assert.ok(Math.abs(s.peak - 0.5) < 0.001, `peak ${s.peak}`);
  });

  test('reads a file by path', () => {
    const dir = tempDir('vox-wav-test-');
    try {
      const file = join(dir, 'a.wav');
      writeFileSync(file, toWav({ sampleRate: 16000, channels: 1, bitDepth: 16 }, sine(0.25, 0.5, 16000)));
      const s = wavStats(file);
      assert.equal(s.sampleRate, 16000);
      assert.equal(s.durationMs, 250);
    } finally {
      removeDir(dir);
    }
  });

  test('silence has RMS and peak 0', () => {
    const s = wavStats(toWav({ sampleRate: 22050, channels: 1, bitDepth: 16 }, Buffer.alloc(4410)));
    assert.equal(s.durationMs, 100);
    assert.equal(s.rms, 0);
    assert.equal(s.peak, 0);
  });

  test('skips unknown chunks, odd-sized ones with their pad byte, and stops at the declared data size', () => {
    const wav = riff([
      chunk('LIST', Buffer.from('INFOx')),
      chunk('fmt ', fmt(1, 2, 8000, 16)),
      chunk('fact', Buffer.alloc(4)),
      chunk('data', sine(0.5, 0.25, 8000, 2)),
      chunk('junk', Buffer.alloc(10, 0x7f)),
    ]);
    const s = wavStats(wav);
    assert.equal(s.channels, 2);
    assert.equal(s.frames, 4000);
    assert.equal(s.durationMs, 500);
    assert.ok(Math.abs(s.peak - 0.25) < 0.001, 'the trailing chunk is not audio');
  });

  test('a data size of 0 while audio follows (voxd mid-utterance) runs to the end', () => {
    const wav = riff([chunk('fmt ', fmt(1, 1, 22050, 16)), chunk('data', sine(0.2, 0.5), 0)], 36);
    assert.equal(wavStats(wav).frames, 4410);
  });

  test('streamed sizes (0xFFFFFFFF) and a data size past the end are read to the end, in whole frames', () => {
    // A writer cut off mid-frame: one stray byte after 2205 whole frames.
    const pcm = Buffer.concat([sine(0.1, 0.5), Buffer.alloc(1)]);
    const data = (size: number) => chunk('data', pcm, size).subarray(0, 8 + pcm.length);
    assert.equal(wavStats(riff([chunk('fmt ', fmt(1, 1, 22050, 16)), data(0xffffffff)], 0xffffffff)).frames, 2205);
    assert.equal(wavStats(riff([chunk('fmt ', fmt(1, 1, 22050, 16)), data(1_000_000)])).frames, 2205);
  });

  test('8-bit, 24-bit and float WAVs are read at full scale', () => {
    const u8 = Buffer.from([128, 255, 128, 0]);
    assert.ok(Math.abs(wavStats(riff([chunk('fmt ', fmt(1, 1, 8000, 8)), chunk('data', u8)])).peak - 1) < 0.01);
    const s24 = Buffer.alloc(6);
    s24.writeIntLE(-4194304, 0, 3); // -0.5
    assert.equal(wavStats(riff([chunk('fmt ', fmt(1, 1, 8000, 24)), chunk('data', s24)])).peak, 0.5);
    const f32 = Buffer.alloc(8);
    f32.writeFloatLE(0.25, 0);
    f32.writeFloatLE(-0.25, 4);
    const s = wavStats(riff([chunk('fmt ', fmt(3, 1, 8000, 32)), chunk('data', f32)]));
    assert.equal(s.rms, 0.25);
    assert.equal(s.frames, 2);
  });

  test('what is not a WAV fails with a reason', () => {
    assert.throws(() => wavStats(Buffer.from('hello world, not audio')), /not a readable WAV \(no RIFF\/WAVE header\)/);
    assert.throws(() => wavStats(riff([chunk('fmt ', fmt(1, 1, 8000, 16))])), /no data chunk/);
    assert.throws(() => wavStats(riff([chunk('data', Buffer.alloc(4))])), /data chunk before fmt chunk/);
    assert.throws(
      () => wavStats(riff([chunk('fmt ', fmt(2, 1, 8000, 4)), chunk('data', Buffer.alloc(4))])),
      /unsupported audio format 2/,
    );
  });
});

describe('pcmStats', () => {
  test('raw s16le, as an ALSA file device captures it', () => {
    const s = pcmStats(sine(0.5, 0.5, 22050, 2), { sampleRate: 22050, channels: 2 });
    assert.equal(s.frames, 11025);
    assert.equal(s.durationMs, 500);
    assert.ok(Math.abs(s.rms - SINE_RMS) < 0.001);
    assert.equal(pcmStats(Buffer.alloc(0), { sampleRate: 22050, channels: 1 }).rms, 0);
  });
});

test('writeSilentWav writes 16 kHz mono silence of the length asked', () => {
  const dir = tempDir();
  try {
    const s = wavStats(writeSilentWav(join(dir, 'quiet.wav'), 1500));
    assert.deepEqual(
      { sampleRate: s.sampleRate, channels: s.channels, durationMs: Math.round(s.durationMs), peak: s.peak },
      { sampleRate: 16000, channels: 1, durationMs: 1500, peak: 0 },
    );
  } finally {
    removeDir(dir);
  }
});
