/**
 * `vox voices | head`: a reader that stops early closes the pipe, and every
 * command that prints ends quietly, exit 0, no stack trace (docs/cli.md, "A
 * closed stdout"). The reader is a child that reads one line and closes its
 * end before vox starts, so vox's first write meets the closed pipe: no race
 * with how fast `head` reads.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cleanEnv, removeDir, startDaemon, tempDir, VOX, type Daemon } from '../helpers/daemon.js';

/** Reads one line from stdin (no stream: libuv never closes fd 0 itself), closes fd 0, says so, and waits to be killed. */
const READER = `
const fs = require('node:fs');
const byte = Buffer.alloc(1);
let line = '';
while (!line.endsWith('\\n') && fs.readSync(0, byte) === 1) line += byte;
fs.closeSync(0);
process.stdout.write('closed\\n');
setInterval(() => {}, 60_000);
`;

/** `vox ARGS` whose stdout is a pipe its reader has closed already: its exit code and stderr. */
async function intoClosedPipe(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  const reader = spawn(process.execPath, ['-e', READER], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    reader.stdin.write('the one line\n');
    const [said] = (await once(reader.stdout, 'data')) as [Buffer];
    assert.equal(said.toString(), 'closed\n');
    const child = spawn(process.execPath, [VOX, ...args], { env, stdio: ['ignore', reader.stdin, 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stderr };
  } finally {
    reader.kill();
    if (reader.exitCode === null && reader.signalCode === null) await once(reader, 'exit');
  }
}

let d: Daemon;
const home = tempDir('vox-epipe-');
before(async () => {
  d = await startDaemon({ audio: 'null' });
});
after(async () => {
  await d.stop();
  removeDir(home);
});

test('every command that prints ends quietly, exit 0, when its reader has closed the pipe', async () => {
  // Nothing but d may answer: a command that needs voxd reaches d alone, and the others touch only `home`.
  const own = cleanEnv(home, { VOX_NO_AUTOSTART: '1', VOXD_PORT: '9' });
  const runs: Array<[string[], NodeJS.ProcessEnv]> = [
    [['--help'], own],
    [['--version'], own],
    [['say', '--help'], own], // the hot bundle of vox say
    [['hook', '--help'], own], // and of vox hook
    [['daemon', 'config'], own],
    [['voices'], d.env],
    [['status'], d.env],
  ];
  for (const [args, env] of runs) {
    const r = await intoClosedPipe(args, env);
    assert.equal(r.stderr, '', `vox ${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.code, 0, `vox ${args.join(' ')}`);
  }
});
