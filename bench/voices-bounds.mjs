#!/usr/bin/env node
// The adversarial cases of `vox voices install` (issue 23), measured: for
// each, the wall time, the peak RSS (/usr/bin/time), the peak bytes under
// VOX_HOME/models while it runs (sampled every 50 ms), what is left there
// after, the exit code and the error's code. Not a budget: the figures for
// docs/benchmarks.md and a before/after comparison (BENCH_VOX=another
// build's bin/vox.cjs). Every run is under prlimit (address space 4 GiB, file
// size 2 GiB) and killed after BENCH_KILL_S (default 30) seconds, so that an
// unbounded build cannot take the machine. Prints one JSON line per case;
// BENCH_CASES=name,... runs only those.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { VOX, cleanEnv, report, round } from './lib.mjs';
import { syntheticArchive } from '../scripts/synthetic-voice.mjs';

const require = createRequire(import.meta.url);
const MiB = 1024 * 1024;
const KILL_S = Number(process.env.BENCH_KILL_S ?? 30);

function tar(entries, open = false) {
  const { Header } = require('tar');
  const blocks = [];
  for (const e of entries) {
    const type = e.type ?? (e.data ? 'File' : 'Directory');
    const size = e.size ?? e.data?.length ?? 0;
    const block = Buffer.alloc(512);
    new Header({
      path: e.path,
      mode: 0o644,
      size: type === 'File' ? size : 0,
      type,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
    }).encode(block, 0);
    blocks.push(block);
    if (e.data) blocks.push(e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  if (!open) blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
const bzip2 = (b) => Buffer.from(require('compressjs').Bzip2.compressFile(b));
function bomb(kind, head, zeros) {
  const pack = kind === 'bzip2' ? bzip2 : (b) => gzipSync(b);
  const mib = pack(Buffer.alloc(MiB));
  return Buffer.concat([pack(head), ...Array.from({ length: Math.floor(zeros / MiB) }, () => mib)]);
}

const dir = mkdtempSync(join(tmpdir(), 'vox-bench-bounds-'));
const good = await syntheticArchive({ name: 'synthetic' });
const head = (size) => tar([{ path: 'synthetic/' }, { path: 'synthetic/model.onnx', type: 'File', size }], true);
const files = {
  'bomb-bz2-2GiB': bomb('bzip2', head(2048 * MiB), 2048 * MiB),
  'bomb-gz-512MiB': bomb('gzip', head(512 * MiB), 512 * MiB),
  'entries-100k': gzipSync(
    tar([
      { path: 'synthetic/' },
      ...Array.from({ length: 100_000 }, (_, i) => ({ path: `synthetic/f${i}`, type: 'File', data: Buffer.alloc(0) })),
    ]),
  ),
  truncated: good.subarray(0, Math.floor(good.length / 2)),
  // Not an attack: a whole model whose model.onnx unpacks to 1 GiB from 47 kB of bzip2, installed within
  // its cap (sizeMB 200: 1.6 GB allowed): the RSS shows the decompression waits for the disk.
  'big-legit-1GiB': Buffer.concat([
    bomb('bzip2', head(1024 * MiB), 1024 * MiB),
    bzip2(tar([{ path: 'synthetic/tokens.txt', data: Buffer.from('t') }])),
  ]),
};
for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, `${name}.tar.bz2`), body);

const server = createServer((req, res) => {
  if (req.url === '/trickle') {
    res.writeHead(200, { 'content-length': good.length });
    let i = 0;
    const t = setInterval(() => (i < good.length ? res.write(good.subarray(i, ++i)) : res.end()), 1000);
    res.on('close', () => clearInterval(t));
  } else if (req.url === '/endless') {
    res.writeHead(200);
    const chunk = Buffer.alloc(256 * 1024);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  } else res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const entry = (name, over = {}) => ({
  name,
  type: 'vits',
  url: `${base}/${name}`,
  root: 'synthetic',
  sha256: null,
  licence: 'test',
  free: true,
  languages: ['en'],
  files: { model: 'model.onnx', tokens: 'tokens.txt' },
  speakers: [{ id: 'a', sid: 0 }],
  ...over,
});
const cases = [
  { name: 'bomb-bz2-2GiB', from: true },
  { name: 'bomb-gz-512MiB', from: true },
  { name: 'entries-100k', from: true },
  { name: 'truncated', from: true },
  { name: 'big-legit-1GiB', from: true, over: { sizeMB: 200 } },
  { name: 'trickle', env: { VOX_VOICES_IDLE_TIMEOUT: '5' } },
  { name: 'endless', over: { sizeMB: 100 } },
  { name: 'offline', over: { url: 'http://127.0.0.1:1/offline' } },
];

function bytesUnder(p) {
  if (!existsSync(p)) return 0;
  let n = 0;
  for (const f of readdirSync(p, { recursive: true })) {
    try {
      const s = statSync(join(p, String(f)));
      if (s.isFile()) n += s.size;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

try {
  // BENCH_CASES=a,b runs only those.
  const only = process.env.BENCH_CASES?.split(',');
  for (const c of cases.filter((k) => !only || only.includes(k.name))) {
    const home = join(dir, `home-${c.name}`);
    mkdirSync(home);
    const catalogue = join(home, 'catalogue.json');
    writeFileSync(catalogue, JSON.stringify([entry(c.name, c.over)]));
    const env = cleanEnv({ VOX_HOME: home, VOX_VOICES_CATALOGUE: catalogue, ...(c.env ?? {}) });
    const args = [
      'voices',
      'install',
      c.name,
      '--unverified',
      ...(c.from ? ['--from', join(dir, `${c.name}.tar.bz2`)] : []),
    ];
    const t0 = Date.now();
    const child = spawn(
      '/usr/bin/time',
      ['-f', '%M', 'prlimit', '--as=4294967296', `--fsize=${2048 * MiB}`, '--', process.execPath, VOX, ...args],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, bytesUnder(join(home, 'models')))), 50);
    let killed = false;
    const killer = setTimeout(() => {
      killed = true;
      // vox first (prlimit execs it, so it is the child of time), then time.
      const p = spawn('pkill', ['-KILL', '-P', String(child.pid)]);
      p.on('close', () => child.kill('SIGKILL'));
    }, KILL_S * 1000);
    const code = await new Promise((r) => child.on('close', r));
    clearInterval(sampler);
    clearTimeout(killer);
    const lines = stderr.trim().split('\n');
    const rssKB = Number(lines[lines.length - 1]);
    const error = /VOX_ERR_[A-Z_]+: .*/.exec(stderr)?.[0];
    report({
      bench: 'voices-bounds',
      case: c.name,
      seconds: round((Date.now() - t0) / 1000, 1),
      killedAfterS: killed ? KILL_S : undefined,
      maxRssMB: Number.isFinite(rssKB) ? round(rssKB / 1024, 0) : undefined,
      peakModelsBytes: peak,
      leftBytes: bytesUnder(join(home, 'models')),
      left: existsSync(join(home, 'models'))
        ? readdirSync(join(home, 'models'), { recursive: true }).map(String).slice(0, 5)
        : [],
      exit: code,
      error: error?.slice(0, 240),
      archiveBytes: files[c.name]?.length,
    });
    rmSync(home, { recursive: true, force: true });
  }
} finally {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
