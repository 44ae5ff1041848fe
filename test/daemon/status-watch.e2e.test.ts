/**
 * `vox status --watch` survives voxd's restarts (issue 9, item 6): a watch on
 * a pipe reports that voxd stopped, waits, and follows the next voxd on the
 * same VOX_HOME (a new port and a new token, read from voxd.json and the token
 * file), after a clean stop and after a crash. Ctrl-C ends it with exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { VOX, removeDir, startDaemon, waitFor, type Daemon } from '../helpers/daemon.js';

test('vox status --watch reports a stopped voxd and follows the next one, across a stop and a crash', async () => {
  const d1 = await startDaemon({ audio: 'null' });
  const daemons: Daemon[] = [d1];
  const watch = spawn(process.execPath, [VOX, 'status', '--watch'], { env: d1.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  watch.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  watch.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => watch.once('exit', (code) => r(code)));
  try {
    let n = 0;
    /** Speak through `d` until the watch shows the request's id: it is connected to `d`. */
    const seenThrough = (d: Daemon) =>
      waitFor(
        async () => {
          const r = await d.api('POST', '/v1/speak', { text: `ping ${n++}` });
          assert.equal(r.status, 202, JSON.stringify(r.body));
          await new Promise((res) => setTimeout(res, 200));
          return out.includes(` ${r.body.id} `) ? r.body.id : undefined;
        },
        30_000,
        `the watch to show an event from voxd pid ${d.pid}`,
      );
    const count = (re: RegExp) => (out.match(re) ?? []).length;

    await seenThrough(d1);

    // A clean stop, then a new voxd with a new token (and port 0: a new port).
    assert.equal(await d1.stop(), 0);
    await waitFor(() => count(/ voxd stopped \(/g) === 1, 20_000, 'the watch to report the stop');
    assert.equal(watch.exitCode, null, 'the watch is still running');
    rmSync(join(d1.home, 'token'));
    const d2 = await startDaemon({ audio: 'null', home: d1.home });
    daemons.push(d2);
    assert.notEqual(d2.token, d1.token, 'the new voxd has a new token');
    await waitFor(
      () => new RegExp(` voxd [\\d.]+ is back \\(pid ${d2.pid}, 127\\.0\\.0\\.1:${d2.port}\\)`).test(out),
      20_000,
      'the watch to report voxd back',
    );
    await seenThrough(d2);

    // A crash: voxd.json is left behind, naming the dead pid and port.
    d2.proc.kill('SIGKILL');
    await waitFor(() => count(/ voxd stopped \(/g) === 2, 20_000, 'the watch to report the crash');
    const d3 = await startDaemon({ audio: 'null', home: d1.home });
    daemons.push(d3);
    await waitFor(() => out.includes(` is back (pid ${d3.pid}, `), 20_000, 'the watch to report the third voxd');
    await seenThrough(d3);

    assert.doesNotMatch(out + err, /unexpected error|aborted/);
    assert.equal(count(/ voxd \S+ is back /g), 2, out);
    watch.kill('SIGINT');
    assert.equal(await exited, 0, `Ctrl-C ends the watch with exit 0 (stderr: ${err})`);
    assert.equal(err, '');
  } finally {
    if (watch.exitCode === null) watch.kill('SIGKILL');
    for (const d of daemons) await d.stop();
    removeDir(d1.home);
  }
});
