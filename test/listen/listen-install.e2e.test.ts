/**
 * A recognizer installed like a voice: `vox voices install NAME` for a
 * catalogue entry of a recognizer type downloads the archive from a server on
 * 127.0.0.1, checks its SHA-256, unpacks it into VOX_HOME/asr/NAME with the
 * vox-asr.json voxd reads, and the real voxd (transcriber.kind auto, the
 * default) then transcribes a listen with it instead of the server. The
 * archive is the synthetic NeMo CTC recognizer (scripts/synthetic-recognizer.mjs),
 * pinned by its own checksum.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { cleanEnv, FIXTURES, removeDir, startDaemon, tempDir, vox } from '../helpers/daemon.js';
import { startTranscriptionApi, type TranscriptionApi } from '../helpers/transcription-api.js';
import { needTool } from '../helpers/tools.js';
// @ts-expect-error: a plain .mjs script
import { WORD, recognizerArchive } from '../../scripts/synthetic-recognizer.mjs';

const SHIM = join(FIXTURES, 'listen', 'arecord');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let archive: Buffer;
let server: Server;
let base: string;
let api: TranscriptionApi;

before(async () => {
  archive = recognizerArchive({ name: 'synthetic-asr' }) as Buffer;
  server = createServer((req, res) => {
    if (req.url === '/synthetic-asr.tar.bz2') res.writeHead(200, { 'content-length': archive.length }).end(archive);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  api = await startTranscriptionApi();
});
after(async () => {
  await new Promise((r) => server?.close(r));
  await api?.close();
});

function setup(): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('vox-asr-install-');
  const entry = {
    name: 'synthetic-asr',
    title: 'Synthetic recognizer',
    type: 'nemo_ctc',
    url: `${base}/synthetic-asr.tar.bz2`,
    root: 'synthetic-asr',
    sha256: sha(archive),
    licence: 'GPL-3.0-or-later',
    free: true,
    languages: ['en'],
    files: { model: 'model.onnx', tokens: 'tokens.txt' },
  };
  const file = join(home, 'catalogue.json');
  writeFileSync(file, JSON.stringify([entry, { ...entry, name: 'bad-sum', sha256: 'ab'.repeat(32) }]));
  // A whisper entry that names a NeMo model's files: refused whole (the catalogue is then unusable until fixed).
  writeFileSync(join(home, 'whisper.json'), JSON.stringify([{ ...entry, name: 'no-encoder', type: 'whisper' }]));
  return { home, env: cleanEnv(home, { VOX_VOICES_CATALOGUE: file, VOX_NO_AUTOSTART: '1' }) };
}

test(
  'vox voices install puts a recognizer in VOX_HOME/asr; voxd (transcriber auto) transcribes with it, not the server; remove takes it away',
  { skip: needTool('sherpa-onnx') },
  async () => {
    const { home, env } = setup();
    try {
      const r = await vox(['voices', 'install', 'synthetic-asr'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /checksum verified/);
      assert.match(r.stdout, /Installed synthetic-asr in .*asr[\\/]synthetic-asr\nRecognizer: nemo_ctc\n/);
      const manifest = JSON.parse(readFileSync(join(home, 'asr', 'synthetic-asr', 'vox-asr.json'), 'utf8'));
      assert.equal(manifest.type, 'nemo_ctc');
      assert.equal(manifest.source.sha256, sha(archive));
      assert.deepEqual(readdirSync(join(home, 'asr')), ['synthetic-asr'], 'no staging or download is left');
      assert.ok(!existsSync(join(home, 'models', 'synthetic-asr')), 'a recognizer is not a voice');
      const list = await vox(['voices', 'list', '--installed', '--json'], { env });
      assert.deepEqual(
        JSON.parse(list.stdout).models.map((m: { name: string; installed: boolean }) => [m.name, m.installed]),
        [['synthetic-asr', true]],
      );

      writeFileSync(join(home, 'mic.json'), '{}');
      const d = await startDaemon({
        home,
        env: { VOXD_RECORDER: SHIM, VOX_TEST_MIC_CONTROL: join(home, 'mic.json'), VOXD_TRANSCRIBER_URL: api.url },
      });
      try {
        api.mode = { kind: 'ok', text: 'from the server' };
        api.received.length = 0;
        const l = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
        assert.equal(l.status, 200, JSON.stringify(l.body));
        assert.equal(l.body.text, WORD);
        assert.equal(l.body.transcriber, 'local synthetic-asr (nemo_ctc)', 'the answer says what auto picked');
        assert.equal(api.received.length, 0, 'the server got nothing');
        const rm = await vox(['voices', 'remove', 'synthetic-asr'], { env });
        assert.equal(rm.code, 0, rm.stderr);
        assert.equal(rm.stdout, 'Removed synthetic-asr.\n');
        const s = await d.api('POST', '/v1/listen', { silenceMs: 700, prompt: false });
        assert.equal(s.body.text, 'from the server', 'without the model, auto uses the server again');
        assert.match(s.body.transcriber, /^server http:\/\/127\.0\.0\.1:\d+\//);
      } finally {
        await d.stop();
      }
    } finally {
      removeDir(home);
    }
  },
);

test('a recognizer whose checksum does not match, or whose archive lacks a file its type needs, installs nothing', async () => {
  const { home, env } = setup();
  try {
    const r = await vox(['voices', 'install', 'bad-sum'], { env });
    assert.equal(r.code, 4, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `VOX_ERR_CLIENT_MODEL_CHECKSUM: the download of bad-sum has SHA-256 ${sha(archive)}, not the ${'ab'.repeat(32)} the catalogue pins`,
      ),
    );
    const w = await vox(['voices', 'install', 'no-encoder'], {
      env: { ...env, VOX_VOICES_CATALOGUE: join(home, 'whisper.json') },
    });
    assert.equal(w.code, 2, w.stderr);
    assert.match(w.stderr, /entry 1 \(no-encoder\): files\.encoder, files\.decoder, files\.tokens are required/);
    assert.deepEqual(existsSync(join(home, 'asr')) ? readdirSync(join(home, 'asr')) : [], []);
  } finally {
    removeDir(home);
  }
});
