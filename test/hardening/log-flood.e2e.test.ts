/**
 * A flood of requests while voxd's log file cannot be written (a blocked
 * disk): every request is answered, voxd keeps serving, and once the file
 * takes lines again the log says how many lines it dropped.
 *
 * The blocked disk is real: a python3 helper holds a read lease on
 * voxd.log (fcntl F_SETLEASE), so voxd's open of the file for writing blocks
 * in the kernel until the lease is released (or /proc/sys/fs/lease-break-time
 * passes, 45 s by default).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { startDaemon, tempDir, vox, waitFor } from '../helpers/daemon.js';
import { needTool } from '../helpers/tools.js';

const LEASE = `
import fcntl, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
signal.signal(signal.SIGIO, lambda *a: None)  # a writer's open: keep the lease until told
print("held", flush=True)
sys.stdin.read()
`;

/** Lines of voxd.log, parsed. */
function logLines(home: string): any[] {
  return readFileSync(join(home, 'logs', 'voxd.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

test(
  'a flood while the log file is blocked: every request answered, voxd serving, and the log says how many lines it dropped',
  { skip: needTool('python3') },
  async () => {
    const home = tempDir();
    mkdirSync(join(home, 'logs'), { recursive: true, mode: 0o700 });
    const file = join(home, 'logs', 'voxd.log');
    writeFileSync(file, '', { mode: 0o600 });
    const holder = spawn('python3', ['-c', LEASE, file], { stdio: ['pipe', 'pipe', 'inherit'] });
    const released = new Promise((r) => holder.once('exit', r));
    let releasedYet = false;
    const release = () => {
      if (!releasedYet) holder.stdin!.end();
      releasedYet = true;
      return released;
    };
    test.after(release);
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the lease helper exited with ${code}`)));
    });

    const d = await startDaemon({ home, audio: 'null' });
    test.after(() => d.stop());
    // 200 characters of session make each "speak" line about 350 bytes: a few thousand exceed the 1 MiB that may wait.
    const body = { text: 'The flood is here.', once: 3600, session: 's'.repeat(200) };
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    test.after(() => agent.destroy());
    const speak = () =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: d.port,
            method: 'POST',
            path: '/v1/speak',
            agent,
            headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });

    const total = 6000;
    const codes = new Map<number, number>();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < total) {
          sent += 1;
          const code = await speak();
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }
      }),
    );
    assert.deepEqual(
      [...codes.keys()].filter((c) => c !== 200 && c !== 202),
      [],
      `every request answered: ${JSON.stringify([...codes])}`,
    );
    assert.equal(
      [...codes.values()].reduce((a, b) => a + b, 0),
      total,
    );
    assert.equal(logLines(home).length, 0, 'nothing reached the blocked file');
    assert.equal((await d.api('GET', '/v1/status')).status, 200, 'voxd serves while its log is blocked');

    await release();
    const dropped = await waitFor(
      () => logLines(home).find((l) => l.dropped !== undefined),
      20_000,
      'the "dropped" line',
    );
    assert.equal(dropped.level, 40);
    assert.match(dropped.msg, /^\d+ log lines dropped/);
    assert.ok(dropped.dropped > 0);
    const speakLines = logLines(home).filter((l) => l.msg === 'speak').length;
    assert.ok(speakLines < total, `some lines were dropped (${speakLines} of ${total} written)`);
    assert.ok(speakLines + dropped.dropped >= total, 'every request line is written or counted as dropped');

    // The log works again: a new request's line reaches the file, after the "dropped" line.
    const after = await d.api('POST', '/v1/speak', { text: 'After the flood.', session: 'after' });
    assert.equal(after.status, 202);
    await waitFor(
      () => logLines(home).find((l) => l.session === 'after'),
      20_000,
      'the line of a request after the flood',
    );
    const lines = logLines(home);
    assert.ok(lines.findIndex((l) => l.session === 'after') > lines.findIndex((l) => l.dropped !== undefined));
    const shown = await vox(['logs', '-n', '500'], { env: d.env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`WARN +${dropped.dropped} log lines dropped`));
  },
);
