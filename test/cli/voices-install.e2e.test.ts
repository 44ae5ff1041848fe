/**
 * `vox voices install|list|remove` end to end: the real `vox` binary downloads
 * a voice model archive (the synthetic model of scripts/synthetic-voice.mjs,
 * as a .tar.bz2 like sherpa-onnx's releases) from an HTTP server on 127.0.0.1
 * that speaks Range requests, checks it, unpacks it, and voxd speaks with it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cleanEnv, removeDir, startDaemon, tempDir, VOX } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';
import { wavStats } from '../helpers/wav.js';
import { expectedSamples, syntheticArchive } from '../../scripts/synthetic-voice.mjs';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let good: Buffer;
let corrupt: Buffer;
let server: Server;
let base: string;
/** Requests seen: path and Range header. */
const seen: Array<{ path: string; range?: string }> = [];
/** Paths whose next response is cut after this many bytes. */
const cutOnce = new Map<string, number>();

before(async () => {
  good = (await syntheticArchive({ name: 'synthetic' })) as Buffer;
  // One flipped byte inside the bzip2 data: a block CRC fails.
  corrupt = Buffer.from(good);
  corrupt[Math.floor(corrupt.length / 2)]! ^= 0xff;
  const files: Record<string, Buffer> = { '/synthetic.tar.bz2': good, '/corrupt.tar.bz2': corrupt };
  server = createServer((req, res) => {
    const path = req.url ?? '';
    seen.push({ path, ...(req.headers.range ? { range: req.headers.range } : {}) });
    if (path === '/moved.tar.bz2') {
      res.writeHead(302, { location: '/synthetic.tar.bz2' }).end();
      return;
    }
    const body = files[path];
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
        'content-length': body.length - start,
      });
    } else {
      res.writeHead(200, { 'content-length': body.length });
    }
    const cut = cutOnce.get(path);
    if (cut !== undefined) {
      cutOnce.delete(path);
      // Half the body, then the connection drops: an interrupted download.
      res.write(body.subarray(start, cut), () => res.socket?.end());
      return;
    }
    res.end(body.subarray(start));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

function entry(name: string, over: Record<string, unknown> = {}) {
  return {
    name,
    title: `test voice ${name}`,
    type: 'vits',
    url: `${base}/synthetic.tar.bz2`,
    root: 'synthetic',
    sha256: sha(good),
    licence: 'GPL-3.0-or-later',
    free: true,
    languages: ['en'],
    files: { model: 'model.onnx', tokens: 'tokens.txt' },
    speakers: [{ id: 'tone1', sid: 0 }],
    ...over,
  };
}

function setup(): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('vox-voices-');
  const file = join(home, 'catalogue.json');
  writeFileSync(
    file,
    JSON.stringify([
      entry('synthetic'),
      entry('moved', { url: `${base}/moved.tar.bz2` }),
      entry('bad-sum', { sha256: 'ab'.repeat(32) }),
      entry('corrupt', { url: `${base}/corrupt.tar.bz2`, sha256: sha(corrupt) }),
      entry('unpinned', { sha256: null }),
      entry('nonfree', { free: false, licence: 'CC BY-NC-SA 4.0', licenceNote: 'Non-commercial use only.' }),
      entry('gone', { url: `${base}/missing.tar.bz2` }),
    ]),
  );
  return { home, env: cleanEnv(home, { VOX_VOICES_CATALOGUE: file, VOX_NO_AUTOSTART: '1' }) };
}

/** Run the real vox without blocking this process (the test's HTTP server must keep answering). */
function vox(
  args: string[],
  env: NodeJS.ProcessEnv,
  prefix: string[] = [],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cmd = prefix.length ? prefix[0]! : process.execPath;
    const argv = prefix.length ? [...prefix.slice(1), process.execPath, VOX, ...args] : [VOX, ...args];
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** What is under VOX_HOME/models: nothing half-made may be left there. */
function modelsTree(home: string): string[] {
  const root = join(home, 'models');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((n) =>
    n === '.downloads' ? readdirSync(join(root, n)).map((f) => `.downloads/${f}`) : [n],
  );
}

test('install downloads, resumes a cut download with a Range request, verifies, unpacks whole; voxd speaks it; list and remove', async (t) => {
  const { home, env } = setup();
  try {
    seen.length = 0;
    const half = Math.floor(good.length / 2);
    cutOnce.set('/synthetic.tar.bz2', half);
    const r = await vox(['voices', 'install', 'synthetic'], env);
    assert.equal(r.status, 0, r.stderr);
    const asks = seen.filter((s) => s.path === '/synthetic.tar.bz2');
    assert.equal(asks.length, 2, JSON.stringify(seen));
    assert.equal(asks[0]!.range, undefined);
    assert.equal(asks[1]!.range, `bytes=${half}-`, 'the second request resumes where the first was cut');
    assert.match(r.stderr, /resuming at/);
    assert.match(r.stderr, /checksum verified/);
    // Piped, progress is plain lines, not a redrawn bar.
    assert.doesNotMatch(r.stderr, /\r/);
    assert.match(r.stderr, /vox voices: synthetic: [\d.]+ of [\d.]+ MB \(100%\)/);
    assert.match(r.stdout, /Installed synthetic in .*models[\\/]synthetic\nVoices: synthetic\n/);
    assert.deepEqual(modelsTree(home), ['synthetic'], 'no download, staging or part file is left');
    const manifest = JSON.parse(readFileSync(join(home, 'models', 'synthetic', 'vox-model.json'), 'utf8'));
    assert.equal(manifest.source.sha256, sha(good));
    assert.equal(manifest.source.url, `${base}/synthetic.tar.bz2`);
    assert.ok(manifest.sizes['model.onnx'] > 0 && manifest.sizes['README.md'] > 0);

    const list = await vox(['voices', 'list', '--installed', '--json'], env);
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(
      JSON.parse(list.stdout).models.map((m: { name: string; installed: boolean }) => [m.name, m.installed]),
      [['synthetic', true]],
    );
    const again = await vox(['voices', 'install', 'synthetic'], env);
    assert.equal(again.status, 0);
    assert.match(again.stderr, /installed already \(--force installs it again\)/);

    const missing = needTool('sherpa-onnx');
    if (missing) t.diagnostic(`voxd speaking the installed model is not checked: ${missing}`);
    const d = await startDaemon({ home, env: { VOXD_ENGINE: 'auto' } });
    try {
      const s = await d.api('POST', '/v1/speak', { text: 'Installed by vox.', wait: true });
      if (missing) assert.match(s.body.fallbackReason ?? s.body.engine, /espeak|not installed/);
      else {
        assert.equal(s.body.engine, 'sherpa', JSON.stringify(s.body));
        const stats = wavStats(d.wavs()[0]!);
        assert.equal(stats.frames, expectedSamples('Installed by vox.'));
        assert.ok(stats.rms > 0.2);
      }
      const rm = await vox(['voices', 'remove', 'synthetic'], env);
      assert.equal(rm.status, 0, rm.stderr);
      assert.equal(rm.stdout, 'Removed synthetic.\n');
      assert.deepEqual(modelsTree(home), []);
      const after = await d.api('POST', '/v1/speak', { text: 'Removed again.', wait: true });
      assert.match(after.body.engine, /^espeak/, 'a removed model is not used');
    } finally {
      await d.stop();
    }
    const none = await vox(['voices', 'remove', 'synthetic'], env);
    assert.equal(none.status, 4);
    assert.match(none.stderr, /VOX_ERR_CLIENT_MODEL_UNKNOWN: no voice model "synthetic" is installed/);
  } finally {
    removeDir(home);
  }
});

test('a download that follows a redirect installs; one the server does not have is a clear HTTP error', async () => {
  const { home, env } = setup();
  try {
    const r = await vox(['voices', 'install', 'moved'], env);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(home, 'models', 'moved', 'vox-model.json')));
    const g = await vox(['voices', 'install', 'gone'], env);
    assert.equal(g.status, 3);
    assert.match(
      g.stderr,
      /VOX_ERR_CLIENT_DOWNLOAD_FAILED: HTTP 404 from http:\/\/127\.0\.0\.1:\d+\/missing\.tar\.bz2/,
    );
    const u = await vox(['voices', 'install', 'no-such-voice'], env);
    assert.equal(u.status, 4);
    assert.match(
      u.stderr,
      /VOX_ERR_CLIENT_MODEL_UNKNOWN: no voice model "no-such-voice" in the catalogue; known: kokoro-int8-en-v0_19, /,
    );
  } finally {
    removeDir(home);
  }
});

test('a checksum mismatch is refused: nothing is installed and the download is deleted', async () => {
  const { home, env } = setup();
  try {
    const r = await vox(['voices', 'install', 'bad-sum'], env);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `VOX_ERR_CLIENT_MODEL_CHECKSUM: the download of bad-sum has SHA-256 ${sha(good)}, not the ${'ab'.repeat(32)} the catalogue pins; nothing was installed`,
      ),
    );
    assert.deepEqual(modelsTree(home), []);
  } finally {
    removeDir(home);
  }
});

test('a corrupt archive (its checksum matching) is refused with the bzip2 error; nothing is left half-unpacked', async () => {
  const { home, env } = setup();
  try {
    const r = await vox(['voices', 'install', 'corrupt'], env);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_MODEL_ARCHIVE: the archive of corrupt is damaged or not a \.tar\.bz2 \(bzip2: crc32 do not match\); nothing was installed/,
    );
    assert.deepEqual(
      modelsTree(home).filter((n) => !n.startsWith('.downloads')),
      [],
    );
    // Not an archive at all, from a file.
    const junk = join(home, 'junk.tar.bz2');
    writeFileSync(junk, 'this is not an archive\n');
    const j = await vox(['voices', 'install', 'synthetic', '--from', junk], env);
    assert.equal(j.status, 4);
    assert.match(j.stderr, /VOX_ERR_CLIENT_MODEL_CHECKSUM/, 'a pinned entry checks the file first');
    const jj = await vox(['voices', 'install', 'unpinned', '--from', junk, '--unverified'], env);
    assert.equal(jj.status, 4);
    assert.match(jj.stderr, /VOX_ERR_CLIENT_MODEL_ARCHIVE: .*junk\.tar\.bz2 is damaged or not a \.tar\.bz2/);
    assert.deepEqual(
      modelsTree(home).filter((n) => !n.startsWith('.downloads')),
      [],
    );
  } finally {
    removeDir(home);
  }
});

test('--from FILE installs with no network; an unpinned model needs --unverified, and its SHA-256 is printed', async () => {
  const { home, env } = setup();
  try {
    const file = join(home, 'synthetic.tar.bz2');
    writeFileSync(file, good);
    seen.length = 0;
    const r = await vox(['voices', 'install', 'synthetic', '--from', file], env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(seen.length, 0, 'no request was made');
    assert.equal(
      JSON.parse(readFileSync(join(home, 'models', 'synthetic', 'vox-model.json'), 'utf8')).source.archive,
      'synthetic.tar.bz2',
    );
    const u = await vox(['voices', 'install', 'unpinned', '--from', file], env);
    assert.equal(u.status, 4);
    assert.match(
      u.stderr,
      /VOX_ERR_CLIENT_MODEL_UNVERIFIED: vox has no verified SHA-256 for unpinned .*add --unverified/,
    );
    assert.ok(!existsSync(join(home, 'models', 'unpinned')));
    const v = await vox(['voices', 'install', 'unpinned', '--from', file, '--unverified'], env);
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stderr, new RegExp(`SHA-256 ${sha(good)} \\(not verified`));
    // Every built-in entry is pinned: another file is refused, and --unverified does not override a pin.
    for (const args of [[], ['--unverified']]) {
      const k = await vox(['voices', 'install', 'kokoro-int8-en-v0_19', '--from', file, ...args], env);
      assert.equal(k.status, 4, k.stderr);
      assert.match(
        k.stderr,
        /VOX_ERR_CLIENT_MODEL_CHECKSUM: .*c9f0dd393615805b0bab050c340834d5e684e732aec91c0e860cd30e982c08bd the catalogue pins; nothing was installed/,
      );
    }
    assert.ok(!existsSync(join(home, 'models', 'kokoro-int8-en-v0_19')));
  } finally {
    removeDir(home);
  }
});

test('a voice whose licence is not free shows the licence and installs only when accepted', async () => {
  const { home, env } = setup();
  try {
    const r = await vox(['voices', 'install', 'nonfree'], env);
    assert.equal(r.status, 4);
    assert.match(r.stderr, /nonfree: licence CC BY-NC-SA 4\.0\nNon-commercial use only\.\n/);
    assert.match(r.stderr, /VOX_ERR_CLIENT_MODEL_LICENCE: .*run again with --yes/);
    assert.deepEqual(modelsTree(home), []);
    const y = await vox(['voices', 'install', 'nonfree', '--yes'], env);
    assert.equal(y.status, 0, y.stderr);
    assert.ok(existsSync(join(home, 'models', 'nonfree', 'vox-model.json')));
  } finally {
    removeDir(home);
  }
});

test(
  'a full disk (a file-size limit) is reported as such; nothing is installed and no .part is kept',
  { skip: needTool('prlimit') },
  async () => {
    const { home, env } = setup();
    try {
      const r = await vox(['voices', 'install', 'synthetic'], env, ['prlimit', `--fsize=1024:1024`, '--']);
      assert.equal(r.status, 4, r.stderr);
      assert.match(
        r.stderr,
        /VOX_ERR_CLIENT_DISK_FULL: no room to write the download synthetic\.tar\.bz2\.part \(file size limit reached\)/,
      );
      assert.ok(!existsSync(join(home, 'models', 'synthetic')));
      // A full disk must not stay full of a half download (the issue: 200 MB kept after DISK_FULL).
      assert.deepEqual(modelsTree(home), []);
      // With room again, the same command installs from the start.
      const ok = await vox(['voices', 'install', 'synthetic'], env);
      assert.equal(ok.status, 0, ok.stderr);
      assert.doesNotMatch(ok.stderr, /resuming at/);
      assert.deepEqual(modelsTree(home), ['synthetic']);
    } finally {
      removeDir(home);
    }
  },
);

test(
  'on a terminal: a progress bar, and a licence that is not free is asked about',
  { skip: needTool('script') },
  async () => {
    const { home, env } = setup();
    try {
      // script(1) gives vox a pseudo-terminal; what is typed on its stdin reaches vox's.
      const inPty = (args: string[], input: string) =>
        new Promise<{ status: number | null; out: string; err: string }>((resolve, reject) => {
          const cmd = [process.execPath, VOX, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
          const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
          child.stdout.setEncoding('utf8').on('data', (d: string) => {
            out += d;
            if (input && /\[y\/N\]/.test(out)) {
              child.stdin.write(input);
              input = '';
            }
          });
          const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
          child.on('error', reject);
          child.on('close', (status) => {
            clearTimeout(timer);
            resolve({ status, out, err });
          });
        });
      // What happened, not "1 !== 0": script's own words (no pseudo-terminal?) and vox's output.
      const said = (r: { status: number | null; out: string; err: string }) =>
        `script exited ${r.status}; its stderr: ${JSON.stringify(r.err.slice(-500))}; the terminal showed: ${JSON.stringify(r.out.slice(-500))}`;
      const r = await inPty(['voices', 'install', 'synthetic'], '');
      assert.equal(r.status, 0, said(r));
      assert.match(r.out, /\r\[#{30}\] [\d.]+ \/ [\d.]+ MB/, 'a bar redrawn in place, full at the end');
      const no = await inPty(['voices', 'install', 'nonfree'], 'n\n');
      assert.notEqual(no.status, 0, said(no));
      assert.match(no.out, /licence CC BY-NC-SA 4\.0[\s\S]*Install it under this licence\? \[y\/N\]/);
      assert.ok(!existsSync(join(home, 'models', 'nonfree')));
      const yes = await inPty(['voices', 'install', 'nonfree'], 'y\n');
      assert.equal(yes.status, 0, said(yes));
      assert.ok(existsSync(join(home, 'models', 'nonfree', 'vox-model.json')));
    } finally {
      removeDir(home);
    }
  },
);

test('a bad VOX_VOICES_CATALOGUE is a usage error naming the file and the entry (exit 2)', async () => {
  const { home, env } = setup();
  try {
    const file = join(home, 'bad-catalogue.json');
    writeFileSync(file, '{"not": "a list"}');
    const l = await vox(['voices', 'list'], { ...env, VOX_VOICES_CATALOGUE: file });
    assert.equal(l.status, 2);
    assert.equal(
      l.stderr,
      `vox voices: VOX_ERR_CLIENT_USAGE: VOX_VOICES_CATALOGUE (${file}): must be a JSON list of entries\n`,
    );
    writeFileSync(file, '[{"name": "mine"}]');
    const i = await vox(['voices', 'install', 'mine'], { ...env, VOX_VOICES_CATALOGUE: file });
    assert.equal(i.status, 2);
    assert.match(i.stderr, /^vox voices: VOX_ERR_CLIENT_USAGE: VOX_VOICES_CATALOGUE \(.*\): entry 1 \(mine\): /);
  } finally {
    removeDir(home);
  }
});
