import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn as nodeSpawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Capture, recorderArgs, resolveRecorder } from '../../src/listen/capture.js';
import { isRunning } from '../../../../test/helpers/daemon.js';

const dir = mkdtempSync(join(tmpdir(), 'vox-capture-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A recorder script named arecord that starts a child holding its stdout, as wrapper scripts do. */
function wrapperRecorder(): { path: string; childPidFile: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const childPidFile = join(dir, 'child.pid');
  const path = join(bin, 'arecord');
  writeFileSync(
    path,
    `#!/bin/sh\nsleep 60 &\necho $! > ${childPidFile}\nwhile :; do printf '\\000\\000\\000\\000'; sleep 0.02; done\n`,
  );
  chmodSync(path, 0o755);
  return { path, childPidFile };
}

describe('capture', () => {
  test('the recorder is found by name, path or auto; a missing one names what to install', () => {
    const { path } = wrapperRecorder();
    const env = { PATH: join(dir, 'bin') };
    assert.deepEqual(resolveRecorder('auto', env, 'linux'), { path, kind: 'arecord' });
    assert.deepEqual(resolveRecorder('arecord', env, 'linux'), { path, kind: 'arecord' });
    assert.deepEqual(resolveRecorder(path, {}, 'linux'), { path, kind: 'arecord' });
    assert.throws(
      () => resolveRecorder('auto', { PATH: join(dir, 'nothing') }, 'linux'),
      (e: any) =>
        e.code === 'VOX_ERR_RECORDER_MISSING' && /none of arecord, rec, sox is on PATH.*alsa-utils/.test(e.message),
    );
    assert.throws(
      () => resolveRecorder('/no/such/rec', {}, 'linux'),
      (e: any) =>
        e.code === 'VOX_ERR_RECORDER_MISSING' &&
        /rec \(listen.recorder\) is not an executable file/.test(e.message) &&
        !e.message.includes('/no/such'),
    );
    assert.deepEqual(recorderArgs('sox').slice(0, 2), ['-q', '-d']);
  });

  test('a binary that vanished before spawn is a typed rejection, not a crash', async () => {
    await assert.rejects(
      Capture.start({ recorder: { path: join(dir, 'gone', 'arecord'), kind: 'arecord' }, onData() {} }),
      (e: any) => e.code === 'VOX_ERR_RECORDER_MISSING' && /ENOENT/.test(e.message),
    );
  });

  test('stop() ends the whole process group, and is a stop, not an error', async () => {
    const { path, childPidFile } = wrapperRecorder();
    let bytes = 0;
    const c = await Capture.start({ recorder: { path, kind: 'arecord' }, onData: (b) => (bytes += b.length) });
    const deadline = Date.now() + 10_000;
    while ((!existsSync(childPidFile) || bytes === 0) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const child = Number(readFileSync(childPidFile, 'utf8'));
    assert.ok(isRunning(child));
    await c.stop();
    assert.deepEqual(await c.ended, { by: 'stop' });
    assert.ok(!isRunning(c.pid!), 'the recorder is gone');
    assert.ok(!isRunning(child), 'the grandchild holding its pipe is gone too');
    await c.stop(); // harmless twice
  });

  test('a recorder that exits on its own reports how, with its last stderr line', async () => {
    const path = join(dir, 'bin', 'rec');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(
      path,
      `#!/bin/sh\necho "noise" >&2\necho "rec FAIL formats: can't open input \\\`default': no device" >&2\nexit 1\n`,
    );
    chmodSync(path, 0o755);
    const c = await Capture.start({ recorder: { path, kind: 'rec' }, onData() {} });
    const end = await c.ended;
    assert.equal(end.by, 'exit');
    if (end.by === 'exit') {
      assert.equal(end.code, 1);
      assert.equal(end.bytes, 0);
      assert.match(end.stderr, /^rec FAIL formats/);
    }
  });

  test('park() forks the recorder without running it; start() runs it in the same process, with its pipes; cancel() ends an unused one', async () => {
    const { path, childPidFile } = wrapperRecorder();
    rmSync(childPidFile, { force: true });
    const parked = Capture.park({ recorder: { path, kind: 'arecord' } });
    assert.ok(parked, 'a shell is forked');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(!existsSync(childPidFile), 'the recorder has not run while parked');
    let bytes = 0;
    const c = await parked.start({ recorder: { path, kind: 'arecord' }, onData: (b) => (bytes += b.length) });
    const deadline = Date.now() + 10_000;
    while ((!existsSync(childPidFile) || bytes === 0) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(bytes > 0, 'its audio reaches the capture');
    const child = Number(readFileSync(childPidFile, 'utf8'));
    assert.match(
      readFileSync(`/proc/${c.pid}/cmdline`, 'utf8'),
      /arecord/,
      'the parked process became the recorder (exec, same pid)',
    );
    await c.stop();
    assert.deepEqual(await c.ended, { by: 'stop' });
    assert.ok(!isRunning(c.pid!) && !isRunning(child), 'the recorder and its child are gone');
    await parked.cancel(); // nothing after start()

    rmSync(childPidFile, { force: true });
    const unused = Capture.park({ recorder: { path, kind: 'arecord' } })!;
    await new Promise((r) => setTimeout(r, 100));
    await unused.cancel();
    await unused.cancel(); // harmless twice
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!existsSync(childPidFile), 'a cancelled one never ran the recorder');
  });

  test('a parked shell that died meanwhile: start() spawns the recorder afresh', async () => {
    const { path } = wrapperRecorder();
    const parked = Capture.park({ recorder: { path, kind: 'arecord' } })!;
    await new Promise((r) => setTimeout(r, 100));
    await parked.cancel();
    // A park whose shell is killed from outside before it is used:
    const again = Capture.park({
      recorder: { path, kind: 'arecord' },
      spawn: (cmd, args, o) => {
        const ch = nodeSpawn(cmd, args, o);
        setTimeout(() => process.kill(-ch.pid!, 'SIGKILL'), 50);
        return ch;
      },
    })!;
    await new Promise((r) => setTimeout(r, 400));
    let bytes = 0;
    const c = await again.start({ recorder: { path, kind: 'arecord' }, onData: (b) => (bytes += b.length) });
    const deadline = Date.now() + 10_000;
    while (bytes === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(bytes > 0, 'a fresh recorder records');
    await c.stop();
  });
});
