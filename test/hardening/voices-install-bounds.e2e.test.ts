/**
 * `vox voices install` against hostile archives, servers and catalogue
 * entries (issue 23): the real `vox` binary, archives served by a real HTTP
 * server on 127.0.0.1 or given with --from. Each case must end with a clear
 * error, bounded work (no case waits on a timer longer than a few seconds: the
 * download deadlines are set short by VOX_VOICES_TIMEOUT and
 * VOX_VOICES_IDLE_TIMEOUT), nothing written outside VOX_HOME/models, and
 * nothing left inside it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { cleanEnv, removeDir, tempDir, VOX } from '../helpers/daemon.js';
import { syntheticArchive } from '../../scripts/synthetic-voice.mjs';

const require = createRequire(import.meta.url);
const MiB = 1024 * 1024;
const ESC = '\u001b';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface TarEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO';
  data?: Buffer;
  /** The size the header declares, when not the data's. */
  size?: number;
  linkpath?: string;
}

/** Tar blocks for `entries`, without the end blocks when `open` (so that more data may follow). */
function tar(entries: TarEntry[], open = false): Buffer {
  const { Header } = require('tar');
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? (e.data ? 'File' : 'Directory');
    const size = e.size ?? e.data?.length ?? 0;
    const header = new Header({
      path: e.path,
      mode: type === 'Directory' ? 0o755 : 0o644,
      size: type === 'File' ? size : 0,
      type,
      linkpath: e.linkpath,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (e.data) blocks.push(e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  if (!open) blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const bzip2 = (b: Buffer): Buffer => Buffer.from(require('compressjs').Bzip2.compressFile(b));

/**
 * A file that decompresses to `head` and then `zeros` zero bytes, made of
 * concatenated streams (bzip2 and gzip both read them as one): one stream of
 * 1 MiB of zeros, compressed once, repeated. That is how 2 GiB fit in 100 kB.
 */
function bomb(kind: 'bzip2' | 'gzip', head: Buffer, zeros: number): Buffer {
  const pack = kind === 'bzip2' ? bzip2 : (b: Buffer) => gzipSync(b);
  const mib = pack(Buffer.alloc(MiB));
  const parts = [pack(head)];
  for (let n = 0; n < Math.floor(zeros / MiB); n++) parts.push(mib);
  return Buffer.concat(parts);
}

let good: Buffer;
let server: Server;
let base: string;
const files = new Map<string, Buffer>();
/** Bytes the server sent on the endless route. */
let endlessSent = 0;

before(async () => {
  good = (await syntheticArchive({ name: 'synthetic' })) as Buffer;
  const bombHead = tar(
    [{ path: 'synthetic/' }, { path: 'synthetic/model.onnx', type: 'File', size: 2048 * MiB }],
    true,
  );
  files.set('/bomb.tar.bz2', bomb('bzip2', bombHead, 2048 * MiB));
  files.set('/bomb.tar.gz', bomb('gzip', bombHead, 512 * MiB));
  // A small valid archive, then 512 MiB of zeros after its end: no header declares them.
  files.set(
    '/tail.tar.gz',
    bomb(
      'gzip',
      tar(
        [
          { path: 'synthetic/' },
          { path: 'synthetic/model.onnx', data: Buffer.from('m') },
          { path: 'synthetic/tokens.txt', data: Buffer.from('t') },
        ],
        true,
      ),
      512 * MiB,
    ),
  );
  const many: TarEntry[] = [{ path: 'synthetic/' }];
  for (let i = 0; i < 100_000; i++) many.push({ path: `synthetic/f${i}`, data: Buffer.alloc(0), type: 'File' });
  files.set('/many.tar.gz', gzipSync(tar(many)));
  files.set('/truncated.tar.bz2', good.subarray(0, Math.floor(good.length / 2)));
  // Incompressible data, so that half the .gz is half the data.
  const noise = createHash('sha512');
  const random = Buffer.concat(Array.from({ length: 640 }, (_, i) => noise.copy().update(String(i)).digest()));
  const gz = gzipSync(tar([{ path: 'synthetic/' }, { path: 'synthetic/model.onnx', data: random }]));
  files.set('/truncated.tar.gz', gz.subarray(0, Math.floor(gz.length / 2)));
  files.set(
    '/cut-tar.tar.gz',
    gzipSync(
      tar([{ path: 'synthetic/' }, { path: 'synthetic/model.onnx', data: Buffer.alloc(40_000, 7) }]).subarray(0, 5000),
    ),
  );
  files.set(
    '/escape.tar.bz2',
    bzip2(
      tar([
        { path: 'synthetic/' },
        { path: 'synthetic/model.onnx', data: Buffer.from('model') },
        { path: 'synthetic/tokens.txt', data: Buffer.from('tokens') },
        { path: '../../escaped-dotdot', data: Buffer.from('x') },
        { path: '/tmp/escaped-absolute', data: Buffer.from('x') },
        { path: 'synthetic/out', type: 'SymbolicLink', linkpath: '../../../../..' },
        { path: 'synthetic/out/escaped-through-link', data: Buffer.from('x') },
        { path: 'synthetic/hard', type: 'Link', linkpath: '/etc/passwd' },
        { path: 'synthetic/dev', type: 'CharacterDevice' },
        { path: 'synthetic/fifo', type: 'FIFO' },
      ]),
    ),
  );
  files.set(
    '/links.tar.bz2',
    bzip2(
      tar([
        { path: 'synthetic/' },
        { path: 'synthetic/model.onnx', data: Buffer.from('model') },
        { path: 'synthetic/tokens.txt', data: Buffer.from('tokens') },
        { path: 'synthetic/out', type: 'SymbolicLink', linkpath: '/tmp' },
        { path: 'synthetic/out/vox-escaped-through-link', data: Buffer.from('x') },
        { path: 'synthetic/hard', type: 'Link', linkpath: '/etc/passwd' },
        { path: 'synthetic/dev', type: 'CharacterDevice' },
        { path: 'synthetic/fifo', type: 'FIFO' },
      ]),
    ),
  );
  files.set(
    '/absolute.tar.bz2',
    bzip2(
      tar([
        { path: 'synthetic/' },
        { path: 'synthetic/model.onnx', data: Buffer.from('m') },
        { path: 'synthetic/tokens.txt', data: Buffer.from('t') },
        { path: '/tmp/vox-escaped-absolute', data: Buffer.from('x') },
      ]),
    ),
  );
  server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/trickle.tar.bz2') {
      // One byte every 300 ms, forever: never idle, never done.
      res.writeHead(200, { 'content-length': good.length });
      let i = 0;
      const t = setInterval(() => (i < good.length ? res.write(good.subarray(i, ++i)) : res.end()), 300);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (path === '/endless.tar.bz2') {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) endlessSent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    if (path === '/huge-length.tar.bz2') {
      res.writeHead(200, { 'content-length': String(100 * 1024 * MiB) });
      res.write(Buffer.alloc(1024));
      return;
    }
    if (path === '/to-plain-http.tar.bz2') {
      res.writeHead(302, { location: 'http://example.invalid/x.tar.bz2' }).end();
      return;
    }
    const body = files.get(path);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

function entry(name: string, over: Record<string, unknown> = {}) {
  return {
    name,
    type: 'vits',
    url: `${base}/${name}.tar.bz2`,
    root: 'synthetic',
    sha256: null,
    licence: 'GPL-3.0-or-later',
    free: true,
    languages: ['en'],
    files: { model: 'model.onnx', tokens: 'tokens.txt' },
    speakers: [{ id: 'tone1', sid: 0 }],
    ...over,
  };
}

function setup(
  entries: unknown[],
  extra: NodeJS.ProcessEnv = {},
): { home: string; env: NodeJS.ProcessEnv; catalogue: string } {
  const home = tempDir('vox-bounds-');
  const catalogue = join(home, 'catalogue.json');
  writeFileSync(catalogue, JSON.stringify(entries));
  return { home, catalogue, env: cleanEnv(home, { VOX_VOICES_CATALOGUE: catalogue, VOX_NO_AUTOSTART: '1', ...extra }) };
}

function vox(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VOX, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Everything under VOX_HOME/models, recursively: a failed install must leave nothing. */
function modelsTree(home: string): string[] {
  const root = join(home, 'models');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true }).map(String).sort();
}

test(
  'decompression bombs (bzip2: 2 GiB in 100 kB; gzip: 512 MiB) are refused at the header that declares them; nothing is written',
  { timeout: 180_000 },
  async () => {
    const { home, env } = setup([
      entry('bomb'),
      entry('bomb-gz', { url: `${base}/bomb.tar.gz` }),
      entry('tail', { url: `${base}/tail.tar.gz` }),
    ]);
    try {
      for (const name of ['bomb', 'bomb-gz']) {
        const r = await vox(['voices', 'install', name, '--unverified'], env);
        assert.equal(r.status, 4, r.stderr);
        assert.match(
          r.stderr,
          /VOX_ERR_CLIENT_MODEL_TOO_LARGE: the archive of bomb(?:-gz)? is refused: its files hold more than \d+ bytes \(vox allows [\d.]+ MB and 5000 entries for a [\d.]+ MB archive\); nothing was installed/,
        );
        assert.deepEqual(modelsTree(home), [], `${name}: nothing is left`);
      }
      // Zeros after the archive's end, which no header declares: the decompressed stream is counted too.
      const t = await vox(['voices', 'install', 'tail', '--unverified'], env);
      assert.equal(t.status, 4, t.stderr);
      assert.match(
        t.stderr,
        /VOX_ERR_CLIENT_MODEL_TOO_LARGE: the archive of tail is refused: it unpacks to more than \d+ bytes/,
      );
      assert.deepEqual(modelsTree(home), []);
    } finally {
      removeDir(home);
    }
  },
);

test('an archive of 100,000 entries is refused once it passes 5,000', { timeout: 180_000 }, async () => {
  const { home, env } = setup([entry('many', { url: `${base}/many.tar.gz` })]);
  try {
    const r = await vox(['voices', 'install', 'many', '--unverified'], env);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_MODEL_TOO_LARGE: the archive of many is refused: it holds more than 5000 entries/,
    );
    assert.deepEqual(modelsTree(home), []);
  } finally {
    removeDir(home);
  }
});

test('a truncated archive is reported as truncated (bzip2, gzip, tar), and a wrong checksum as such', async () => {
  const { home, env } = setup([
    entry('truncated'),
    entry('truncated-gz', { url: `${base}/truncated.tar.gz` }),
    entry('cut-tar', { url: `${base}/cut-tar.tar.gz` }),
    entry('pinned', { url: `${base}/truncated.tar.bz2`, sha256: sha(good) }),
  ]);
  try {
    for (const name of ['truncated', 'truncated-gz', 'cut-tar']) {
      const r = await vox(['voices', 'install', name, '--unverified'], env);
      assert.equal(r.status, 4, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          `VOX_ERR_CLIENT_MODEL_ARCHIVE: the archive of ${name} is truncated: the archive ends in the middle of (?:its bzip2 data|its gzip data|a file); download it again; nothing was installed`,
        ),
      );
      assert.deepEqual(modelsTree(home), [], name);
    }
    const p = await vox(['voices', 'install', 'pinned'], env);
    assert.equal(p.status, 4, p.stderr);
    assert.match(
      p.stderr,
      new RegExp(
        `VOX_ERR_CLIENT_MODEL_CHECKSUM: the download of pinned has SHA-256 [0-9a-f]{64}, not the ${sha(good)} the catalogue pins`,
      ),
    );
    assert.deepEqual(modelsTree(home), []);
  } finally {
    removeDir(home);
  }
});

test('../ entries, absolute paths, links out of the folder and devices write nothing outside VOX_HOME/models', async () => {
  const { home, env } = setup([entry('escape')]);
  const cwd = join(home, 'a', 'b');
  mkdirSync(cwd, { recursive: true });
  try {
    const r = await vox(['voices', 'install', 'escape', '--unverified'], env, cwd);
    // node-tar in strict mode refuses the whole archive at its ".." entry.
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_MODEL_ARCHIVE: the archive of escape is refused: it holds an entry that points outside its directory \(TAR_ENTRY_ERROR: path contains '\.\.'\); nothing was installed/,
    );
    assert.deepEqual(modelsTree(home), []);
    for (const p of [
      join(home, 'escaped-dotdot'),
      join(home, 'models', '..', 'escaped-dotdot'),
      join(cwd, '..', '..', 'escaped-dotdot'),
      '/tmp/escaped-absolute',
      join(home, 'escaped-through-link'),
    ]) {
      assert.ok(!existsSync(p), `${p} was written`);
    }
    const tree = modelsTree(home);
    for (const p of tree) assert.doesNotMatch(p, /escaped|dev$|fifo$|hard$|out$/, `left: ${tree.join(', ')}`);
  } finally {
    removeDir(home);
  }
});

test('an absolute path refuses the archive; links out of the folder, hard links and devices are skipped, never followed out', async () => {
  const { home, env } = setup([entry('links'), entry('absolute')]);
  try {
    const a = await vox(['voices', 'install', 'absolute', '--unverified'], env);
    assert.equal(a.status, 4, a.stderr);
    assert.match(
      a.stderr,
      /VOX_ERR_CLIENT_MODEL_ARCHIVE: the archive of absolute is refused: it holds an entry that points outside its directory \(TAR_ENTRY_INFO: stripping \/ from absolute path\)/,
    );
    assert.deepEqual(modelsTree(home), []);
    const r = await vox(['voices', 'install', 'links', '--unverified'], env);
    assert.equal(r.status, 0, r.stderr);
    for (const p of ['/tmp/vox-escaped-absolute', '/tmp/vox-escaped-through-link'])
      assert.ok(!existsSync(p), `${p} was written`);
    // The model holds its two files and its manifest: no link, device or FIFO was made.
    assert.deepEqual(readdirSync(join(home, 'models', 'links')).sort(), [
      'model.onnx',
      'out',
      'tokens.txt',
      'vox-model.json',
    ]);
    assert.deepEqual(
      readdirSync(join(home, 'models', 'links', 'out')),
      ['vox-escaped-through-link'],
      'the link was skipped: "out" is a plain directory inside the model',
    );
    assert.deepEqual(readdirSync(join(home, 'models')), ['links']);
  } finally {
    removeDir(home);
  }
});

test('a download that trickles stalls, and one that outlasts VOX_VOICES_TIMEOUT ends; no .part is left', async () => {
  const slow = setup([entry('trickle')], { VOX_VOICES_IDLE_TIMEOUT: '1' });
  try {
    const r = await vox(['voices', 'install', 'trickle', '--unverified'], slow.env);
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_DOWNLOAD_FAILED: download of http:\/\/127\.0\.0\.1:\d+\/trickle\.tar\.bz2 failed after 3 tries \(stalled: \d+ bytes in 1 s\)/,
    );
    assert.deepEqual(modelsTree(slow.home), []);
  } finally {
    removeDir(slow.home);
  }
  const late = setup([entry('trickle')], { VOX_VOICES_TIMEOUT: '2' });
  try {
    const r = await vox(['voices', 'install', 'trickle', '--unverified'], late.env);
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_DOWNLOAD_FAILED: the download of http:\/\/127\.0\.0\.1:\d+\/trickle\.tar\.bz2 did not finish within 2 s; without a connection, fetch the archive elsewhere and run "vox voices install trickle --from FILE"/,
    );
    assert.deepEqual(modelsTree(late.home), []);
  } finally {
    removeDir(late.home);
  }
});

test('an endless body stops at the size cap, a declared length over it is refused before the body; no .part is left', async () => {
  const { home, env } = setup([entry('endless', { sizeMB: 1 }), entry('huge-length', { sizeMB: 1 })]);
  try {
    endlessSent = 0;
    const r = await vox(['voices', 'install', 'endless', '--unverified'], env);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_MODEL_TOO_LARGE: http:\/\/127\.0\.0\.1:\d+\/endless\.tar\.bz2 is over 17\.5 MB, more than the 17\.5 MB vox accepts for this model/,
    );
    assert.ok(endlessSent < 64 * MiB, `the server sent ${endlessSent} bytes`);
    assert.deepEqual(modelsTree(home), []);
    const h = await vox(['voices', 'install', 'huge-length', '--unverified'], env);
    assert.equal(h.status, 4, h.stderr);
    assert.match(
      h.stderr,
      /VOX_ERR_CLIENT_MODEL_TOO_LARGE: .*huge-length\.tar\.bz2 is 102400\.0 MB, more than the 17\.5 MB/,
    );
    assert.deepEqual(modelsTree(home), []);
  } finally {
    removeDir(home);
  }
});

test('offline, the error names --from FILE and no empty models/.downloads is left (issue 19, item 11a)', async () => {
  const { home, env } = setup([
    entry('offline', { url: 'http://127.0.0.1:1/offline.tar.bz2' }),
    entry('downgrade', { url: `${base}/to-plain-http.tar.bz2` }),
  ]);
  try {
    const r = await vox(['voices', 'install', 'offline', '--unverified'], env);
    assert.equal(r.status, 3, r.stderr);
    assert.match(
      r.stderr,
      /VOX_ERR_CLIENT_DOWNLOAD_FAILED: download of http:\/\/127\.0\.0\.1:1\/offline\.tar\.bz2 failed after 3 tries \(.*ECONNREFUSED.*\); without a connection, fetch the archive elsewhere and run "vox voices install offline --from FILE"/,
    );
    assert.ok(!existsSync(join(home, 'models', '.downloads')), 'no empty .downloads');
    const bad = await vox(['voices', 'install', 'offline', '--unverified'], { ...env, VOX_VOICES_TIMEOUT: 'soon' });
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /VOX_VOICES_TIMEOUT=soon: give a number of seconds above 0 and at most 86400/);
    const d = await vox(['voices', 'install', 'downgrade', '--unverified'], env);
    assert.equal(d.status, 3, d.stderr);
    assert.match(
      d.stderr,
      /redirects to http:\/\/example\.invalid\/x\.tar\.bz2, which vox does not follow: url must be an https URL/,
    );
    assert.deepEqual(modelsTree(home), []);
  } finally {
    removeDir(home);
  }
});

test('a hostile VOX_VOICES_CATALOGUE entry is refused, naming the problem, with its control characters escaped', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [entry('huge', { sizeMB: 1e12 }), /sizeMB must be a number above 0 and at most 4096/],
    [entry('../up'), /name must be letters, digits/],
    [entry('a/b'), /name must be letters, digits/],
    [entry('dots..name'), /no "\.\."/],
    [entry('file', { url: 'file:///etc/passwd' }), /url must be an https URL/],
    [entry('ftp', { url: 'ftp://example.com/x.tar.bz2' }), /url must be an https URL/],
    [entry('plain', { url: 'http://example.com/x.tar.bz2' }), /plain http only to this machine/],
    [entry('creds', { url: 'https://user:secret@example.com/x.tar.bz2' }), /must not hold a user name or password/],
    [entry('root', { root: '../..' }), /root must name the archive's top directory/],
    [entry('abs', { root: '/etc' }), /root must name/],
    [entry('files', { files: { model: '../../../etc/passwd', tokens: 't' } }), /files must be paths inside/],
    [entry('title', { title: `x${ESC}]0;pwned\u0007` }), /title must be text .* without control characters/],
    [entry('note', { free: false, licenceNote: `read ${ESC}[2J this` }), /licenceNote must be text/],
    [{ ...entry(`esc${ESC}[31m`) }, /entry 1 \(esc\\x1b\[31m\): name must be/],
  ];
  for (const [e, problem] of cases) {
    const { home, env } = setup([e]);
    try {
      const r = await vox(['voices', 'install', String(e.name), '--unverified'], env);
      assert.equal(r.status, 2, `${String(e.name)}: ${r.stderr}`);
      assert.match(r.stderr, /VOX_ERR_CLIENT_USAGE: VOX_VOICES_CATALOGUE \(.*\): entry 1/);
      assert.match(r.stderr, problem);
      assert.ok(!r.stderr.includes(ESC) && !r.stderr.includes('secret'), JSON.stringify(r.stderr));
      assert.deepEqual(modelsTree(home), []);
    } finally {
      removeDir(home);
    }
  }
});
