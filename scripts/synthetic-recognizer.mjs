#!/usr/bin/env node
/**
 * A tiny speech recognizer that sherpa-onnx loads like a real NeMo CTC model,
 * for tests (no real recognizer can be downloaded here, and none ships on npm).
 *
 *   node scripts/synthetic-recognizer.mjs DIR [--name NAME]
 *
 * It writes DIR/NAME/ with model.onnx (an ONNX graph with the metadata that
 * sherpa-onnx's NeMo CTC loader reads), tokens.txt and the vox-asr.json
 * manifest voxd reads (packages/voxd/src/listen/recognizer.ts), so DIR can
 * serve as VOX_HOME/asr.
 *
 * The graph hears, it does not understand: a feature frame (80 log-mel bins,
 * computed by sherpa) whose mean is above LOUD is voiced; voiced frames within
 * about 300 ms of each other are one utterance (a max-pool over time), and
 * each utterance decodes, through sherpa's own CTC greedy search, to the
 * tokens of WORD. Silence decodes to nothing. So a recording with speech
 * transcribes to WORD, and the tests know it came from the model, run on the
 * audio voxd recorded. Built with onnx-proto, like scripts/synthetic-voice.mjs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tarBz2 } from './synthetic-voice.mjs';

const require = createRequire(import.meta.url);

/** What one utterance decodes to. */
export const WORD = 'heard';
/** The vocabulary: sentencepiece-style pieces, then the blank (last, as NeMo has it). */
export const TOKENS = ['▁heard', '<blk>'];
/** Mean log-mel of a voiced frame (digital silence is about -15, speech above 0). */
const LOUD = -12;
/** Half the max-pool window, in 10 ms frames. */
const JOIN_FRAMES = 15;

export function buildRecognizer() {
  const { onnx } = require('onnx-proto');
  const T = onnx.TensorProto.DataType;
  const INT = onnx.AttributeProto.AttributeType.INT;
  const INTS = onnx.AttributeProto.AttributeType.INTS;
  const dims = (d) => ({ dim: d.map((x) => (typeof x === 'number' ? { dimValue: x } : { dimParam: x })) });
  const value = (name, elemType, d) => ({ name, type: { tensorType: { elemType, shape: dims(d) } } });
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
  const ints = (name, v) => ({ name, type: INTS, ints: v });
  const int = (name, v) => ({ name, type: INT, i: v });
  const nodes = [
    // (N, 80, T) -> (N, 1, T): the mean over the mel bins.
    node('ReduceMean', ['audio_signal'], ['energy'], [ints('axes', [1]), int('keepdims', 1)]),
    node('Greater', ['energy', 'loud'], ['voiced_b']),
    node('Cast', ['voiced_b'], ['voiced'], [int('to', T.FLOAT)]),
    node(
      'MaxPool',
      ['voiced'],
      ['near'],
      [ints('kernel_shape', [2 * JOIN_FRAMES + 1]), ints('pads', [JOIN_FRAMES, JOIN_FRAMES]), ints('strides', [1])],
    ),
    // (N, 1, T) -> (N, T, 1); logits = near * WORD_ROW + (1 - near) * BLANK_ROW.
    node('Transpose', ['near'], ['near_t'], [ints('perm', [0, 2, 1])]),
    node('Sub', ['one', 'near_t'], ['far_t']),
    node('Mul', ['near_t', 'word_row'], ['a']),
    node('Mul', ['far_t', 'blank_row'], ['b']),
    node('Add', ['a', 'b'], ['logits']),
    node('LogSoftmax', ['logits'], ['logprobs'], [int('axis', -1)]),
    node('Identity', ['length'], ['encoded_lengths']),
  ];
  const graph = {
    name: 'vox-synthetic-nemo-ctc',
    input: [value('audio_signal', T.FLOAT, ['N', 80, 'T']), value('length', T.INT64, ['N'])],
    output: [value('logprobs', T.FLOAT, ['N', 'T', TOKENS.length]), value('encoded_lengths', T.INT64, ['N'])],
    initializer: [
      tensor('loud', T.FLOAT, [], [LOUD]),
      tensor('one', T.FLOAT, [], [1]),
      tensor('word_row', T.FLOAT, [TOKENS.length], [10, 0]),
      tensor('blank_row', T.FLOAT, [TOKENS.length], [0, 10]),
    ],
    node: nodes,
  };
  // What sherpa-onnx's NeMo CTC loader reads.
  const metadata = {
    vocab_size: String(TOKENS.length),
    subsampling_factor: '1',
    normalize_type: '',
    model_type: 'EncDecCTCModelBPE',
    comment: 'vox synthetic test recognizer',
  };
  const model = {
    irVersion: 8,
    producerName: 'vox scripts/synthetic-recognizer.mjs',
    opsetImport: [{ domain: '', version: 13 }],
    graph,
    metadataProps: Object.entries(metadata).map(([key, v]) => ({ key, value: v })),
  };
  const problem = onnx.ModelProto.verify(model);
  if (problem) throw new Error(`synthetic recognizer: ${problem}`);
  return Buffer.from(onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish());
}

export function recognizerTokens() {
  return TOKENS.map((t, i) => `${t} ${i}`).join('\n') + '\n';
}

/** Write DIR/NAME/{model.onnx,tokens.txt,vox-asr.json}. Returns the model directory. */
export function writeSyntheticRecognizer(dir, { name = 'synthetic-asr' } = {}) {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'model.onnx'), buildRecognizer());
  writeFileSync(join(out, 'tokens.txt'), recognizerTokens());
  writeFileSync(
    join(out, 'vox-asr.json'),
    JSON.stringify({ format: 1, type: 'nemo_ctc', files: { model: 'model.onnx', tokens: 'tokens.txt' } }, null, 2) +
      '\n',
  );
  return out;
}

/** A .tar.bz2 holding NAME/{model.onnx,tokens.txt} (no manifest: vox voices install writes it), as sherpa-onnx's releases do. */
export function recognizerArchive({ name = 'synthetic-asr' } = {}) {
  return tarBz2([
    [`${name}/`, null],
    [`${name}/model.onnx`, buildRecognizer()],
    [`${name}/tokens.txt`, Buffer.from(recognizerTokens())],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write('usage: node scripts/synthetic-recognizer.mjs DIR [--name NAME]\n');
    process.exit(2);
  }
  const i = rest.indexOf('--name');
  process.stdout.write(`${writeSyntheticRecognizer(dir, i >= 0 ? { name: rest[i + 1] } : {})}\n`);
}
