/**
 * `vox say --out` (issue 9, item 7): WAV only, said plainly; a missing
 * directory is named; a success says what was written, as the MCP record tool does.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, vox, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

let d: Daemon;
let cwd: string;
before(async () => {
  d = await startDaemon({ audio: 'null' });
  cwd = tempDir('vox-out-');
});
after(async () => {
  await d.stop();
  removeDir(d.home);
  removeDir(cwd);
});

async function accepted(): Promise<number> {
  return (await d.api('GET', '/v1/status')).body.counters.accepted;
}

test('--out x.mp3 (or no extension) is refused before anything is synthesized: WAV only, said plainly', async () => {
  for (const name of ['x.mp3', 'speech.ogg', 'speech']) {
    const r = await vox(['say', '--out', name, 'hello there'], { env: d.env, cwd });
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /^vox say: --out writes WAV files only, and "[^"]+" (ends in \.\w+|has no extension): give a name ending in \.wav/,
      name,
    );
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    assert.equal(r.stdout, '');
  }
  assert.deepEqual(readdirSync(cwd), [], 'nothing written');
});

test('--out into a missing directory names the directory and writes nothing', async () => {
  const before = await accepted();
  const r = await vox(['say', '--out', 'renders/today/x.wav', 'hello there'], { env: d.env, cwd });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /the directory "renders\/today" does not exist; create it first \(mkdir -p "renders\/today"\)/,
  );
  assert.equal(existsSync(join(cwd, 'renders')), false, 'the directory is not created');
  assert.equal((await d.api('GET', '/v1/status')).body.counters.accepted, before, 'nothing was sent to voxd');
});

test('a successful --out prints the file, its length and the engine; --json prints them as JSON', async () => {
  mkdirSync(join(cwd, 'out'));
  const r = await vox(['say', '--out', 'out/hello.wav', 'Hello from vox'], { env: d.env, cwd });
  assert.equal(r.code, 0, r.stderr);
  const m = /^Wrote (\d+\.\d) s of audio, (\d+) KB \(espeak\) to out\/hello\.wav\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  const stats = wavStats(join(cwd, 'out/hello.wav'));
  assert.ok(
    Math.abs(Number(m[1]) - stats.durationMs / 1000) < 0.06,
    `printed ${m[1]} s, the file holds ${stats.durationMs} ms`,
  );
  assert.ok(stats.rms > 0.01, 'speech, not silence');

  const j = await vox(['say', '--json', '--out', 'out/again.wav', 'Hello again'], { env: d.env, cwd });
  assert.equal(j.code, 0, j.stderr);
  const info = JSON.parse(j.stdout);
  assert.equal(info.path, join(cwd, 'out/again.wav'));
  assert.equal(info.engine, 'espeak');
  assert.ok(Math.abs(info.seconds - wavStats(info.path).durationMs / 1000) < 0.01);

  const q = await vox(['say', '--quiet', '--out', 'out/quiet.wav', 'Hush'], { env: d.env, cwd });
  assert.equal(q.code, 0);
  assert.equal(q.stdout + q.stderr, '', '--quiet prints nothing');
  assert.ok(existsSync(join(cwd, 'out/quiet.wav')));
});
