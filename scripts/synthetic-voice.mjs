#!/usr/bin/env node
/**
 * A tiny voice model that sherpa-onnx loads like a real VITS voice, for tests
 * and benchmarks (no real model can be downloaded here, and none ships on npm).
 *
 *   node scripts/synthetic-voice.mjs DIR [--name NAME] [--speakers N] [--work N] [--archive FILE.tar.bz2] [--installed]
 *
 * It writes DIR/NAME/ with model.onnx (an ONNX graph with the metadata that
 * sherpa-onnx's VITS loader reads) and tokens.txt; with --installed also the
 * vox-model.json manifest that `vox voices install` writes, so DIR can serve
 * as VOX_HOME/models; with --archive a .tar.bz2 of NAME/ as sherpa's releases
 * lay them out (for the install tests).
 *
 * The graph: every input token becomes HOP samples (HOP * length_scale, so
 * `speed` works) of a sine whose pitch depends on the token and the speaker.
 * So N characters of text give exactly N * HOP samples at speed 1: the tests
 * check that length. It uses sherpa's character front end (metadata
 * `frontend=characters`): no lexicon and no espeak-ng-data.
 *
 * Built with onnx-proto (ONNX's protobuf schema compiled for protobufjs), a
 * devDependency: pure npm, so a fresh machine with only Node builds it too
 * (Debian's python3-onnx would be another apt package for CI to install).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export const SAMPLE_RATE = 16000;
export const HOP = 256;
/** The characters the model knows, in token-id order. Others are skipped by sherpa. */
export const TOKENS = [' ', ...'abcdefghijklmnopqrstuvwxyz', ...'0123456789', ...".,!?'-:;"];

/** Samples sherpa-onnx renders for `text` at speed 1: one HOP per known character. */
export function expectedSamples(text, speed = 1) {
  const known = [...text.toLowerCase()].filter((c) => TOKENS.includes(c)).length;
  return known * Math.floor(HOP / speed);
}

/** Width of the layers `work` adds. */
const WIDTH = 512;

/**
 * The ONNX model bytes. `work` adds that many dense layers (WIDTH x WIDTH,
 * MatMul + Tanh) over the tokens, whose result is multiplied by 0 and added to
 * the audio: the sound stays the same, and the synthesis costs time in
 * proportion to the text, as a real model's does (bench/sherpa.mjs uses it).
 */
export function buildModel({ speakers = 1, work = 0 } = {}) {
  const { onnx } = require('onnx-proto');
  const T = onnx.TensorProto.DataType;
  const INT = onnx.AttributeProto.AttributeType.INT;
  const dims = (d) => ({ dim: d.map((x) => (typeof x === 'number' ? { dimValue: x } : { dimParam: x })) });
  const input = (name, elemType, d) => ({ name, type: { tensorType: { elemType, shape: dims(d) } } });
  const tensor = (name, dataType, d, values) => ({
    name,
    dataType,
    dims: d,
    ...(dataType === T.FLOAT ? { floatData: values } : { int64Data: values }),
  });
  const node = (opType, inputs, outputs, attribute = []) => ({
    opType,
    input: inputs,
    output: outputs,
    name: outputs[0],
    attribute,
  });
  // Pitch by token (150 Hz and up), shifted per speaker so speakers sound apart.
  const table = [];
  for (let s = 0; s < speakers; s++) for (let i = 0; i < TOKENS.length; i++) table.push(150 + i * 12 + s * 40);
  const inputs = [
    input('x', T.INT64, [1, 'T']),
    input('x_length', T.INT64, [1]),
    input('noise_scale', T.FLOAT, [1]),
    input('length_scale', T.FLOAT, [1]),
    input('noise_scale_w', T.FLOAT, [1]),
  ];
  const nodes = [];
  let ids = 'x';
  if (speakers > 1) {
    // sherpa passes the speaker id as the sixth input, named sid.
    inputs.push(input('sid', T.INT64, [1]));
    nodes.push(node('Mul', ['sid', 'n_tokens'], ['offset']), node('Add', ['x', 'offset'], ['x_spk']));
    ids = 'x_spk';
  }
  const extra = [];
  let out = 'y';
  if (work > 0) {
    out = 'y_pure';
    let seed = 1;
    // Gain near 1 per layer (no shrinking into denormals, which would make the cost anything but linear).
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.18;
    extra.push(
      tensor(
        'embed',
        T.FLOAT,
        [TOKENS.length * speakers, WIDTH],
        Array.from({ length: TOKENS.length * speakers * WIDTH }, rand),
      ),
    );
    extra.push(tensor('layer', T.FLOAT, [WIDTH, WIDTH], Array.from({ length: WIDTH * WIDTH }, rand)));
    extra.push(tensor('nothing', T.FLOAT, [], [0]));
    nodes.push(node('Gather', ['embed', ids], ['h0']));
    for (let i = 0; i < work; i++) {
      nodes.push(node('MatMul', [`h${i}`, 'layer'], [`m${i}`]), node('Tanh', [`m${i}`], [`h${i + 1}`]));
    }
    nodes.push(
      node('ReduceSum', [`h${work}`], ['h_sum'], [{ name: 'keepdims', type: INT, i: 0 }]),
      node('Mul', ['h_sum', 'nothing'], ['zero_work']),
    );
  }
  nodes.push(
    node('Gather', ['freq_table', ids], ['f_1T']),
    node('Reshape', ['f_1T', 'column'], ['f_T1']),
    node('Mul', ['hop', 'length_scale'], ['hop_scaled']),
    node('Floor', ['hop_scaled'], ['hop_floor']),
    node('Cast', ['hop_floor'], ['hop_i'], [{ name: 'to', type: INT, i: T.INT64 }]),
    node('Shape', ['f_T1'], ['f_shape']),
    node('Slice', ['f_shape', 'i0', 'i1'], ['t_dim']),
    node('Concat', ['t_dim', 'hop_i'], ['grid'], [{ name: 'axis', type: INT, i: 0 }]),
    node('Expand', ['f_T1', 'grid'], ['f_grid']),
    node('ReduceProd', ['grid'], ['total'], [{ name: 'keepdims', type: INT, i: 0 }]),
    node('Cast', ['total'], ['total_f'], [{ name: 'to', type: INT, i: T.FLOAT }]),
    node('Range', ['zero', 'total_f', 'one'], ['t']),
    node('Reshape', ['t', 'grid'], ['t_grid']),
    node('Mul', ['t_grid', 'f_grid'], ['cycles']),
    node('Mul', ['cycles', 'omega'], ['phase']),
    node('Sin', ['phase'], ['wave']),
    node('Mul', ['wave', 'amplitude'], ['scaled']),
    node('Reshape', ['scaled', 'audio_shape'], [out]),
  );
  if (work > 0) nodes.push(node('Add', [out, 'zero_work'], ['y']));
  const graph = {
    name: 'vox-synthetic-vits',
    input: inputs,
    output: [input('y', T.FLOAT, [1, 1, 'S'])],
    initializer: [
      tensor('freq_table', T.FLOAT, [table.length], table),
      tensor('n_tokens', T.INT64, [], [TOKENS.length]),
      tensor('hop', T.FLOAT, [1], [HOP]),
      tensor('omega', T.FLOAT, [], [(2 * Math.PI) / SAMPLE_RATE]),
      tensor('amplitude', T.FLOAT, [], [0.5]),
      tensor('zero', T.FLOAT, [], [0]),
      tensor('one', T.FLOAT, [], [1]),
      tensor('i0', T.INT64, [1], [0]),
      tensor('i1', T.INT64, [1], [1]),
      tensor('column', T.INT64, [2], [-1, 1]),
      tensor('audio_shape', T.INT64, [3], [1, 1, -1]),
      ...extra,
    ],
    node: nodes,
  };
  // What sherpa-onnx's VITS loader reads (sample_rate, n_speakers, language and comment are required).
  const metadata = {
    model_type: 'vits',
    comment: 'vox synthetic test voice',
    language: 'English',
    sample_rate: String(SAMPLE_RATE),
    n_speakers: String(speakers),
    add_blank: '0',
    frontend: 'characters',
    use_eos_bos: '0',
    blank_id: '0',
    bos_id: '0',
    eos_id: '0',
    pad_id: '0',
    punctuation: '',
  };
  const model = {
    irVersion: 8,
    producerName: 'vox scripts/synthetic-voice.mjs',
    opsetImport: [{ domain: '', version: 13 }],
    graph,
    metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value })),
  };
  const problem = onnx.ModelProto.verify(model);
  if (problem) throw new Error(`synthetic model: ${problem}`);
  return Buffer.from(onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish());
}

export function tokensFile() {
  return TOKENS.map((t, i) => `${t} ${i}`).join('\n') + '\n';
}

/** The manifest entries a catalogue or `vox voices install` gives this model. */
export function syntheticSpeakers(speakers = 1) {
  return Array.from({ length: speakers }, (_, i) => ({ id: `tone${i + 1}`, sid: i, name: `Synthetic tone ${i + 1}` }));
}

/** Write DIR/NAME/{model.onnx,tokens.txt} (and, `installed`, vox-model.json). Returns the model directory. */
export function writeSyntheticVoice(
  dir,
  { name = 'synthetic', speakers = 1, work = 0, installed = false, installedAt = new Date().toISOString() } = {},
) {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  const model = buildModel({ speakers, work });
  writeFileSync(join(out, 'model.onnx'), model);
  writeFileSync(join(out, 'tokens.txt'), tokensFile());
  if (installed) {
    const manifest = {
      format: 1,
      name,
      type: 'vits',
      files: { model: 'model.onnx', tokens: 'tokens.txt' },
      speakers: syntheticSpeakers(speakers),
      languages: ['en'],
      licence: 'GPL-3.0-or-later',
      source: { archive: `${name}.tar.bz2`, sha256: 'none (generated by scripts/synthetic-voice.mjs)' },
      sizes: { 'model.onnx': model.length, 'tokens.txt': Buffer.byteLength(tokensFile()) },
      installedAt,
    };
    writeFileSync(join(out, 'vox-model.json'), JSON.stringify(manifest, null, 2) + '\n');
  }
  return out;
}

/** A .tar.bz2 holding NAME/ (as sherpa-onnx's releases do), built in memory with node-tar and compressjs. */
export async function syntheticArchive({ name = 'synthetic', speakers = 1 } = {}) {
  return tarBz2([
    [`${name}/`, null],
    [`${name}/model.onnx`, buildModel({ speakers })],
    [`${name}/tokens.txt`, Buffer.from(tokensFile())],
    [`${name}/README.md`, Buffer.from('A synthetic voice for tests: sine tones, one per character.\n')],
  ]);
}

/** A .tar.bz2 of [path, Buffer | null (a directory)] entries. */
export function tarBz2(files) {
  const { Header } = require('tar');
  const { Bzip2 } = require('compressjs');
  const blocks = [];
  for (const [path, data] of files) {
    const header = new Header({
      path,
      mode: data ? 0o644 : 0o755,
      size: data ? data.length : 0,
      type: data ? 'File' : 'Directory',
      mtime: new Date(0),
      uid: 0,
      gid: 0,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (data) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.from(Bzip2.compressFile(Buffer.concat(blocks)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { parseArgs } = await import('node:util');
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      speakers: { type: 'string' },
      work: { type: 'string' },
      archive: { type: 'string' },
      installed: { type: 'boolean' },
    },
  });
  const [dir] = positionals;
  if (!dir && !values.archive) {
    process.stderr.write(
      'usage: node scripts/synthetic-voice.mjs DIR [--name NAME] [--speakers N] [--work N] [--installed] [--archive FILE.tar.bz2]\n',
    );
    process.exit(2);
  }
  const opts = {
    name: values.name ?? 'synthetic',
    speakers: Number(values.speakers ?? 1),
    work: Number(values.work ?? 0),
    installed: values.installed ?? false,
  };
  if (dir) process.stdout.write(`${writeSyntheticVoice(dir, opts)}\n`);
  if (values.archive) {
    mkdirSync(dirname(values.archive), { recursive: true });
    writeFileSync(values.archive, await syntheticArchive(opts));
    process.stdout.write(`${values.archive}\n`);
  }
}
