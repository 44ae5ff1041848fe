/**
 * A session bus of the test's own: a real `dbus-daemon --session` on a socket
 * in `dir`, and `playerctl` against it. Close it in after().
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './daemon.js';

export interface SessionBus {
  address: string;
  /** `playerctl -p vox ARGS` on this bus; its trimmed stdout, or throws with its stderr. */
  playerctl(...args: string[]): string;
  close(): Promise<void>;
}

export async function startSessionBus(dir: string): Promise<SessionBus> {
  const address = `unix:path=${join(dir, 'bus')}`;
  const proc = spawn('dbus-daemon', ['--session', '--nofork', `--address=${address}`, '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  await waitFor(() => out.includes('unix:') || undefined, 20_000, 'dbus-daemon to print its address');
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address };
  return {
    address,
    playerctl(...args) {
      const r = spawnSync('playerctl', ['-p', 'vox', ...args], { env, encoding: 'utf8', timeout: 20_000 });
      if (r.status !== 0) throw new Error(`playerctl ${args.join(' ')}: ${r.stderr.trim() || r.status}`);
      return r.stdout.trim();
    },
    async close() {
      proc.kill();
      await exited;
    },
  };
}
