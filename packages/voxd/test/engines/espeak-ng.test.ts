import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { findExecutable } from '@vox/protocol';
import { EspeakNgEngine, parseEspeakVoices, readWav } from '../../src/engines/espeak-ng.js';
import { wavHeader } from '../../src/audio/wav.js';
import { collect, sine } from '../fixtures/sine-engine.js';
import { needTool } from '../../../../test/helpers/tools.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function* pieces(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

function rms(pcm: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) sum += pcm.readInt16LE(i) ** 2;
  return Math.sqrt(sum / (pcm.length / 2));
}

describe('WAV stream reader', () => {
  const format = { sampleRate: 22050, channels: 1 as const, bitDepth: 16 as const };

  test('reads the format and streams the PCM, whatever the chunking', async () => {
    const pcm = sine(100, 22050);
    const wav = Buffer.concat([wavHeader(format, pcm.length), pcm]);
    for (const size of [1, 3, 7, 44, 45, 4096]) {
      const s = await readWav(pieces(wav, size));
      assert.deepEqual(s.format, format);
      const chunks: Buffer[] = [];
      for await (const c of s.chunks) chunks.push(c);
      assert.ok(
        chunks.every((c) => c.length % 2 === 0),
        `aligned at piece size ${size}`,
      );
      assert.deepEqual(Buffer.concat(chunks), pcm);
    }
  });

  test('a placeholder data size (as espeak-ng writes to a pipe) streams to the end', async () => {
    const pcm = sine(50, 22050);
    const header = wavHeader(format, 0x7ffff000);
    const s = await readWav(pieces(Buffer.concat([header, pcm]), 500));
    assert.deepEqual(await collect(s.chunks), pcm);
  });

  test('skips chunks before data and stops at the declared data size', async () => {
    const pcm = sine(20, 16000);
    const h = wavHeader({ ...format, sampleRate: 16000 }, pcm.length);
    const list = Buffer.concat([
      Buffer.from('LIST'),
      Buffer.from([5, 0, 0, 0]),
      Buffer.from('abcde'),
      Buffer.from([0]),
    ]);
    const wav = Buffer.concat([h.subarray(0, 36), list, h.subarray(36), pcm, Buffer.from('trailing junk')]);
    const s = await readWav(pieces(wav, 10));
    assert.equal(s.format.sampleRate, 16000);
    assert.deepEqual(await collect(s.chunks), pcm);
  });

  test('rejects what is not 16-bit mono PCM WAV', async () => {
    await assert.rejects(readWav(pieces(Buffer.from('hello world, not a wav file'), 5)), /not a WAV/);
    const stereo = wavHeader(format, 4);
    stereo.writeUInt16LE(2, 22);
    await assert.rejects(readWav(pieces(Buffer.concat([stereo, Buffer.alloc(4)]), 64)), /unsupported WAV format/);
    await assert.rejects(readWav(pieces(wavHeader(format, 10).subarray(0, 30), 64)), /ended/);
  });
});

describe('finding executables', () => {
  test('searches PATH without a shell', () => {
    const d = mkdtempSync(join(tmpdir(), 'vox-path-'));
    dirs.push(d);
    mkdirSync(join(d, 'bin'));
    writeFileSync(join(d, 'bin', 'tool'), '#!/bin/sh\n');
    chmodSync(join(d, 'bin', 'tool'), 0o755);
    writeFileSync(join(d, 'bin', 'plain'), 'not executable');
    chmodSync(join(d, 'bin', 'plain'), 0o644);
    const env = { PATH: ['/nonexistent', join(d, 'bin')].join(':') };
    assert.equal(findExecutable('tool', env, 'linux'), join(d, 'bin', 'tool'));
    assert.equal(findExecutable('plain', env, 'linux'), undefined);
    assert.equal(findExecutable('bin', { PATH: d }, 'linux'), undefined, 'a directory is not an executable');
    assert.equal(findExecutable('tool', {}, 'linux'), undefined);
  });

  test('ready() says why when espeak-ng is missing', async () => {
    const engine = new EspeakNgEngine({ env: { PATH: '/nonexistent' } });
    const r = await engine.ready();
    assert.equal(r.ready, false);
    assert.match((r as { reason: string }).reason, /espeak-ng is not installed.*apt-get install espeak-ng/);
    assert.deepEqual(await engine.voices(), []);
    await assert.rejects(engine.synthesize({ text: 'x' }), {
      code: 'VOX_ERR_SYNTHESIS_FAILED',
      message: /not installed/,
    });
  });
});

test('parses espeak-ng --voices', () => {
  const out = [
    'Pty Language       Age/Gender VoiceName          File                 Other Languages',
    ' 5  af              --/M      Afrikaans          gmw/af               ',
    ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
    ' 5  en-us-nyc       --/M      English_(America,_New_York_City) gmw/en-US-nyc        ',
    ' 5  en-us           --/M      Duplicate          gmw/en-US            ',
  ].join('\n');
  assert.deepEqual(parseEspeakVoices(out), [
    { id: 'af', name: 'Afrikaans', languages: ['af'], engine: 'espeak-ng' },
    { id: 'en-us', name: 'English (America)', languages: ['en-us', 'en'], engine: 'espeak-ng' },
    { id: 'en-us-nyc', name: 'English (America, New York City)', languages: ['en-us-nyc'], engine: 'espeak-ng' },
  ]);
});

/** Pids of this process's children named `comm`, from /proc (no pgrep needed). */
function childrenNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const m = /^\d+ \((.*)\) \S+ (\d+) /.exec(readFileSync(`/proc/${p}/stat`, 'utf8'));
      if (m && m[1] === comm && Number(m[2]) === process.pid) pids.push(Number(p));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

describe('the real espeak-ng binary', { skip: needTool('espeak-ng') }, () => {
  const engine = new EspeakNgEngine();
  after(() => engine.close());

  test('is ready and lists voices', async () => {
    assert.deepEqual(await engine.ready(), { ready: true });
    const voices = await engine.voices();
    assert.ok(
      voices.some((v) => v.id === 'en-us'),
      'en-us is among the voices',
    );
    assert.ok(voices.every((v) => v.engine === 'espeak-ng'));
  });

  test('speaks: streams 22050 Hz PCM that is not silence', async () => {
    const s = await engine.synthesize({ text: 'The build finished without errors.', voice: 'en-us' });
    assert.deepEqual(s.format, { sampleRate: 22050, channels: 1, bitDepth: 16 });
    const pcm = await collect(s.chunks);
    assert.ok(pcm.length > 22050, `more than half a second of audio (${pcm.length} bytes)`);
    assert.ok(rms(pcm) > 300, 'not silence');
  });

  test('rate and volume change the audio', async () => {
    const text = 'One two three four five six seven eight.';
    const slow = await collect((await engine.synthesize({ text, rate: 120 })).chunks);
    const fast = await collect((await engine.synthesize({ text, rate: 400 })).chunks);
    assert.ok(fast.length < slow.length * 0.7, `faster speech is shorter (${fast.length} vs ${slow.length})`);
    const quiet = await collect((await engine.synthesize({ text, rate: 400, volume: 0.2 })).chunks);
    assert.ok(rms(quiet) < rms(fast) * 0.5, 'lower volume is quieter');
  });

  test('text starting with a dash is spoken, not taken as an option', async () => {
    const pcm = await collect((await engine.synthesize({ text: '--version please' })).chunks);
    assert.ok(pcm.length > 4410);
  });

  test('an unknown voice fails before any audio, with espeak-ng’s reason', async () => {
    await assert.rejects(engine.synthesize({ text: 'hello', voice: 'zzqq' }), {
      code: 'VOX_ERR_SYNTHESIS_FAILED',
      message: /espeak-ng exited with code 1.*voice does not exist/,
    });
  });

  test('abort stops the process', async () => {
    const ac = new AbortController();
    const s = await engine.synthesize({ text: 'This is a long sentence. '.repeat(40), signal: ac.signal });
    const it = s.chunks[Symbol.asyncIterator]();
    assert.equal((await it.next()).done, false);
    ac.abort();
    await assert.rejects(
      (async () => {
        for (;;) if ((await it.next()).done) break;
      })(),
      /abort/i,
    );
  });

  test('stopping early leaves no process behind', async () => {
    const s = await engine.synthesize({ text: 'Stop me early. '.repeat(30) });
    for await (const _ of s.chunks) break;
    assert.ok(existsSync('/proc/self/stat'), 'this check reads /proc');
    for (let i = 0; i < 50 && childrenNamed('espeak-ng').length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(childrenNamed('espeak-ng'), [], 'no espeak-ng child left running');
  });
});
