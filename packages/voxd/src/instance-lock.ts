/**
 * One voxd per VOX_HOME. A daemon that answers makes a second one exit at
 * once. A voxd.json left by a killed daemon proves nothing (its pid may be
 * reused, or a zombie), so otherwise the lock decides: a killed daemon's lock
 * goes stale within seconds, and a new one retries briefly before giving up.
 * The outcome is returned (with the exit code of docs/cli.md); daemon.ts says
 * it and exits.
 */
import { createRequire } from 'node:module';
import lockfile from 'proper-lockfile';
import { DEFAULT_HOST, pidAlive, type DaemonState, type HomePaths } from '@vox/protocol';
import { readState } from './access/state-file.js';

// Required, not imported: an ES import of node:http builds its module namespace, which reads
// every export, lazy ones too, and so loads undici with TLS and HTTP/2 (13 MB of RSS idle voxd never uses).
const { get: httpGet } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** Exit codes (docs/cli.md): 1 cannot start, 2 bad flags or settings, 3 another voxd runs for this VOX_HOME. */
export const EXIT_ALREADY_RUNNING = 3;

export type Locked = { release: () => Promise<void> } | { problem: string; exitCode: number };

/** Take the single-instance lock of `paths.home`, or say why not. */
export async function takeInstanceLock(
  paths: Pick<HomePaths, 'home' | 'lock' | 'state'>,
  log: { error(obj: object, msg?: string): void },
): Promise<Locked> {
  const running = readState(paths.state);
  const alreadyRunning = (s: DaemonState | undefined) => ({
    problem: `already running for VOX_HOME=${paths.home} (pid ${s?.pid ?? '?'}, port ${s?.port ?? '?'}); stop it with "vox daemon stop", or use another VOX_HOME`,
    exitCode: EXIT_ALREADY_RUNNING,
  });
  if (running && running.pid !== process.pid && pidAlive(running.pid) && (await answers(running)))
    return alreadyRunning(running);
  try {
    const release = await lockfile.lock(paths.home, {
      lockfilePath: paths.lock,
      stale: 5000,
      update: 1000,
      retries: { retries: 10, minTimeout: 300, maxTimeout: 800 },
      onCompromised: (err) => log.error({ err }, 'single-instance lock compromised'),
    });
    return { release };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return alreadyRunning(readState(paths.state));
    return { problem: `cannot take the lock ${paths.lock}: ${(err as Error).message}`, exitCode: 1 };
  }
}

function answers(state: DaemonState): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet(
      { host: state.host || DEFAULT_HOST, port: state.port, path: '/v1/health', timeout: 1000 },
      (res) => {
        res.resume();
        // Only a voxd counts: a voxd.json naming another server's port must not keep us from starting.
        resolve(res.statusCode === 200 && typeof res.headers['x-voxd-version'] === 'string');
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** The version of a voxd that answers at host:port, or undefined. Waits up to 1 s (a socket-activated voxd may be starting; a client's own start budget is short). */
export function voxdVersionAt(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = httpGet({ host, port, path: '/v1/health', timeout: 1000 }, (res) => {
      res.resume();
      const v = res.headers['x-voxd-version'];
      resolve(res.statusCode === 200 && typeof v === 'string' ? v : undefined);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}
