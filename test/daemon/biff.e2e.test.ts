/**
 * Biff walls, replayed: each line of test/fixtures/biff-walls.txt reaches
 * eight sessions at once (`vox unmute --once 600 TEXT` from eight project
 * directories within 2 s, with and without configs that change the voice and
 * the announce prefix), and once more from a session started "60 s later".
 * Each wall must be heard exactly once, every run must exit 0, and the tags
 * Biff appends must never be spoken.
 *
 * voxd runs in this process, so that its clock is ours: the 60 s are a clock
 * step, never a wait. The real `vox` binary finds it through VOX_HOME
 * (token + voxd.json), as it would find a daemon started by a client.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '@vox/protocol';
import { prepareInline } from '../../packages/voxd/src/text/preparer.js';
import { buildServer, singleEngine } from '../../packages/voxd/src/server.js';
import { FileSink } from '../../packages/voxd/src/sinks/file.js';
// From the build: the engine's worker thread is loaded by file URL, which the
// TypeScript loader of the tests does not map from .js to .ts.
import { EspeakEngine } from '../../packages/voxd/dist/engines/espeak.js';
import { FIXTURES, cleanEnv, http, removeDir, startDaemon, tempDir, vox, waitFor } from '../helpers/daemon.js';

const WALLS_FILE = join(FIXTURES, 'biff-walls.txt');
const WALLS = readFileSync(WALLS_FILE, 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** Eight sessions' project directories: config front matter, or null for none. */
const PROJECTS: Array<string | null> = [
  null,
  'voice: en-gb',
  'voice: en-us+f2\nannounce: true',
  'announce: Team',
  null,
  'voice: en-us\nrate: 220',
  'dedup: 30\nvolume: 0.8',
  'announce: true',
];

/** The mood tags at the end of a wall, e.g. `[alert] [serious]` → ['alert', 'serious']. */
function tagsOf(wall: string): string[] {
  return [...wall.matchAll(/\[([a-z][a-z '-]*)\]/g)].map((m) => m[1]!);
}

describe('Biff walls reach eight sessions, and one more a minute later', () => {
  let skew = 0;
  const clock = () => Date.now() + skew;
  let home: string;
  let out: string;
  let port: number;
  let token: string;
  let env: NodeJS.ProcessEnv;
  let root: string;
  const dirs: string[] = [];
  let close: () => Promise<void>;

  before(async () => {
    home = tempDir('vox-biff-home-');
    out = join(home, 'out');
    root = tempDir('vox-biff-projects-');
    token = 'biff-test-token-0123456789abcdef0123456789abcdef';
    const engine = new EspeakEngine();
    await engine.start();
    const sink = new FileSink(out, { realtime: false });
    const { app } = await buildServer({
      token,
      synthesizer: singleEngine(engine),
      sink,
      prepare: prepareInline,
      clock,
      version: VERSION,
    });
    close = async () => {
      await app.close();
      await engine.close();
      await sink.close();
    };
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    port = typeof addr === 'object' && addr ? addr.port : 0;
    writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
    writeFileSync(
      join(home, 'voxd.json'),
      JSON.stringify({
        pid: process.pid,
        host: '127.0.0.1',
        port,
        version: VERSION,
        startedAt: new Date().toISOString(),
      }),
    );
    // VOX_NO_AUTOSTART: a run that could not reach this voxd must fail the test, not start another.
    env = cleanEnv(home, { VOX_NO_AUTOSTART: '1' });
    PROJECTS.forEach((config, i) => {
      const dir = join(root, `project-${i}`);
      mkdirSync(dir, { recursive: true });
      if (config !== null) {
        mkdirSync(join(dir, '.vox'));
        writeFileSync(join(dir, '.vox', 'config.md'), `---\n${config}\n---\n`);
      }
      dirs.push(dir);
    });
    const late = join(root, 'late-session');
    mkdirSync(late);
    dirs.push(late);
  });
  after(async () => {
    await close?.();
    removeDir(home);
    removeDir(root);
  });

  const api = (method: string, path: string) => http(port, method, path, { token });
  const wavs = () => readdirSync(out).filter((f) => f.endsWith('.wav'));
  const idle = () =>
    waitFor(
      async () => {
        const s = (await api('GET', '/v1/status')).body;
        return s.queue.length === 0 && s.playing === null ? s : undefined;
      },
      60_000,
      'voxd to go idle',
    );

  test('the fixture holds walls, and Biff finds --once in "vox unmute --help"', async () => {
    assert.ok(WALLS.length >= 5, `${WALLS.length} walls`);
    const help = await vox(['unmute', '--help'], { env });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--once/);
  });

  WALLS.forEach((wall, n) => {
    test(`wall ${n + 1}: ${wall.slice(0, 48)}…`, async () => {
      await idle();
      const before = wavs().length;

      // Eight sessions at once.
      const runs = await Promise.all(
        dirs.slice(0, 8).map((cwd) => vox(['unmute', '--once', '600', wall], { env, cwd })),
      );
      runs.forEach((r, i) => assert.equal(r.code, 0, `session ${i}: ${r.stderr}`));
      await idle();
      assert.equal(wavs().length, before + 1, 'eight sessions, one playback');

      // A session started a minute later, while the wall is still active.
      skew += 60_000;
      const late = await vox(['unmute', '--once', '600', wall], { env, cwd: dirs[8]! });
      assert.equal(late.code, 0, late.stderr);
      await idle();
      assert.equal(wavs().length, before + 1, 'still one playback a minute later');

      const history = (
        (await api('GET', '/v1/status')).body.history as Array<{
          text: string;
          kind: string;
          outcome: string;
          acceptedAt: string;
        }>
      ).slice(0, 9);
      assert.equal(history.length, 9);
      assert.deepEqual(
        history.map((h) => h.outcome).filter((o) => o !== 'deduped'),
        ['played'],
      );
      for (const h of history) {
        assert.equal(h.kind, 'speech');
        assert.doesNotMatch(h.text, /\[[a-z][a-z '-]*\]/, `a tag in "${h.text}"`);
        for (const tag of tagsOf(wall))
          assert.doesNotMatch(h.text, new RegExp(`\\b${tag}\\b`, 'i'), `"${tag}" spoken in "${h.text}"`);
        assert.match(h.text, /Wall from \w/);
      }
    });
  });

  test('every wall was played once, and nothing else', () => {
    assert.equal(wavs().length, WALLS.length);
  });
});

describe('Biff walls through the real voxd binary', () => {
  test('each wall, sent by eight sessions at once and once more after it played, is heard once', async () => {
    const d = await startDaemon({ realtime: false });
    const root = tempDir('vox-biff-real-');
    try {
      const dirs = PROJECTS.map((front, i) => {
        const dir = join(root, `project-${i}`);
        mkdirSync(dir, { recursive: true });
        if (front !== null) {
          mkdirSync(join(dir, '.vox'));
          writeFileSync(join(dir, '.vox', 'config.md'), `---\n${front}\n---\n`);
        }
        return dir;
      });
      for (const wall of WALLS) {
        const before = d.wavs().length;
        const runs = await Promise.all(dirs.map((cwd) => vox(['unmute', '--once', '600', wall], { env: d.env, cwd })));
        for (const r of runs) assert.equal(r.code, 0, r.stderr);
        await d.idle();
        const late = await vox(['unmute', '--once', '600', wall], { env: d.env, cwd: dirs[3]! });
        assert.equal(late.code, 0, late.stderr);
        await d.idle();
        assert.equal(d.wavs().length, before + 1, `one WAV for: ${wall}`);
      }
      const s = await d.api('GET', '/v1/status');
      for (const h of s.body.history) {
        for (const tag of ['[', 'serious', 'excited', 'cheerful', 'curious', 'intense'])
          assert.ok(!h.text.includes(tag), `"${tag}" spoken in: ${h.text}`);
      }
    } finally {
      await d.stop();
      removeDir(d.home);
      removeDir(root);
    }
  });
});
