/**
 * systemd socket activation: voxd serves the socket it is handed as fd 3
 * (LISTEN_FDS/LISTEN_PID). systemd-socket-activate plays systemd's part.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VOXD, cleanEnv, http, removeDir, tempDir, waitFor } from '../helpers/daemon.js';
import { needTool, toolPath } from '../helpers/tools.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as import('node:net').AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

test(
  'voxd accepts the socket passed by the service manager',
  { skip: needTool('systemd-socket-activate') },
  async () => {
    const activator = toolPath('systemd-socket-activate');
    const home = tempDir();
    const port = await freePort();
    const env = cleanEnv(home, { VOXD_AUDIO: 'null', VOXD_ENGINE: 'espeak' });
    // The activator listens first and starts voxd on the first connection.
    // The activator passes only the variables named with -E.
    const pass = ['VOX_HOME', 'VOXD_AUDIO', 'VOXD_ENGINE', 'PATH'].flatMap((k) => ['-E', `${k}=${env[k]}`]);
    const proc = spawn(activator, ['-l', `127.0.0.1:${port}`, ...pass, process.execPath, VOXD], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    try {
      const health = await waitFor(
        async () => {
          try {
            const r = await http(port, 'GET', '/v1/health');
            return r.status === 200 ? r : undefined;
          } catch {
            return undefined;
          }
        },
        20_000,
        `voxd behind the activated socket (${stderr})`,
      );
      assert.equal(health.body.ok, true);
      const state = await waitFor(() =>
        existsSync(join(home, 'voxd.json')) ? JSON.parse(readFileSync(join(home, 'voxd.json'), 'utf8')) : undefined,
      );
      assert.equal(state.port, port, 'voxd.json names the activated port');
      const token = readFileSync(join(home, 'token'), 'utf8').trim();
      const r = await http(port, 'POST', '/v1/speak', { body: { text: 'Activated.', wait: true }, token });
      assert.equal(r.body.status, 'played');
    } finally {
      // The activator execs voxd in its own process: this stops voxd.
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      removeDir(home);
    }
  },
);
