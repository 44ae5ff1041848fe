/**
 * Chimes end to end: POST /v1/chime and `vox chime` against the real voxd with
 * the file sink (each signal at most once in 5 s), and the `speak: false`
 * path, where `vox say` from a muted project plays a chime instead of speech.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startDaemon, tempDir, vox, type Daemon } from '../helpers/daemon.js';
import { wavStats } from '../helpers/wav.js';

describe('POST /v1/chime and vox chime', () => {
  let d: Daemon;
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
  });

  test('the same signal twice within 5 s plays once; the second is deduped and names the first', async () => {
    const before = d.wavs().length;
    const first = await d.api('POST', '/v1/chime', { signal: 'done', session: 'shop#abc123' });
    assert.equal(first.status, 202);
    assert.equal(first.body.status, 'queued');
    const second = await d.api('POST', '/v1/chime', { signal: 'done', session: 'api#def456' });
    assert.equal(second.status, 200);
    assert.equal(second.body.status, 'deduped');
    assert.equal(second.body.originalId, first.body.id);
    assert.ok(second.body.duplicate.windowRemainingMs <= 5000);
    await d.idle();
    const files = d.wavs().slice(before);
    assert.equal(files.length, 1);
    assert.ok(files[0]!.endsWith(`-${first.body.id}.wav`));
    const stats = wavStats(files[0]!);
    assert.ok(Math.abs(stats.durationMs - 300) < 10, `the done chime is 300 ms, got ${stats.durationMs}`);
    assert.ok(stats.rms > 0.05, `RMS ${stats.rms}`);
    // Once played, a repeat inside the window is still a duplicate.
    const third = await d.api('POST', '/v1/chime', { signal: 'done', wait: true });
    assert.equal(third.body.status, 'deduped');
    assert.equal(third.body.duplicate.originalStatus, 'played');
    const h = (await d.api('GET', '/v1/status')).body.history;
    const entry = h.find((e: any) => e.id === first.body.id);
    assert.equal(entry.kind, 'chime');
    assert.equal(entry.outcome, 'played');
    assert.equal(entry.text, '(done chime)');
    assert.equal(h.find((e: any) => e.id === second.body.id).outcome, 'deduped');
  });

  test('a different signal plays', async () => {
    const before = d.wavs().length;
    const r = await d.api('POST', '/v1/chime', { signal: 'error', wait: true });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'played');
    assert.equal(d.wavs().length, before + 1);
    assert.ok(Math.abs(wavStats(d.wavs().at(-1)!).durationMs - 480) < 10);
  });

  test('vox chime: the first plays, a repeat within 5 s is reported deduped, exit 0 both times', async () => {
    const before = d.wavs().length;
    const a = await vox(['chime', 'attention', '--wait', '--json'], { env: d.env });
    assert.equal(a.code, 0, a.stderr);
    assert.equal(JSON.parse(a.stdout).status, 'played');
    const b = await vox(['chime', 'attention'], { env: d.env });
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stderr, /attention deduped/);
    const c = await vox(['chime', 'attention', '--json'], { env: d.env });
    assert.equal(JSON.parse(c.stdout).status, 'deduped');
    assert.equal(JSON.parse(c.stdout).originalId, JSON.parse(a.stdout).id);
    await d.idle();
    assert.equal(d.wavs().length, before + 1);
  });

  test('vox chime refuses an unknown signal with a usage error', async () => {
    const r = await vox(['chime', 'fanfare'], { env: d.env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown signal "fanfare"/);
    const api = await d.api('POST', '/v1/chime', { signal: 'fanfare' });
    assert.equal(api.status, 400);
    assert.equal(api.body.code, 'VOX_ERR_BODY_INVALID');
  });
});

describe('speak: false', () => {
  let d: Daemon;
  let project: string;
  before(async () => {
    d = await startDaemon();
    project = tempDir('vox-muted-');
    mkdirSync(join(project, '.vox'));
    writeFileSync(
      join(project, '.vox', 'config.md'),
      '---\nspeak: false\n---\n\nThis project plays chimes instead of speech.\n',
    );
  });
  after(async () => {
    await d.stop();
    removeDir(d.home);
    removeDir(project);
  });

  test('vox say from a muted project plays a chime, not speech', async () => {
    const r = await vox(['say', '--wait', '--json', 'The build is green.'], { env: d.env, cwd: project });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).status, 'played');
    const h = (await d.api('GET', '/v1/status')).body.history;
    assert.equal(h.length, 1);
    assert.equal(h[0].kind, 'chime');
    assert.equal(h[0].text, '(done chime)');
    assert.match(h[0].session, /^vox-muted-/);
    assert.ok(!h.some((e: any) => e.kind === 'speech' || /build is green/.test(e.text)));
    const files = d.wavs();
    assert.equal(files.length, 1);
    assert.ok(Math.abs(wavStats(files[0]!).durationMs - 300) < 10, 'a chime, not a sentence');
  });
});
