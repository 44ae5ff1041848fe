/**
 * voxd as a process, for the `vox daemon` actions: whether the one voxd.json
 * names still runs (and is voxd), stopping it by its pid, and waiting for it
 * to answer or for its port to be free.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { compareVersions, DEFAULT_HOST, DEFAULT_PORT, VERSION, pidAlive, type DaemonState } from '@vox/protocol';
import { readDaemonState } from '../../../daemon/http.js';
import { health } from '../../../client/endpoint.js';
import { EXIT } from '../../context.js';
import { Failure, type Io } from './io.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** Best effort: true unless the process's command line shows it is not voxd. */
function looksLikeVoxd(pid: number): boolean {
  let cmdline: string | undefined;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    try {
      cmdline = execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8', timeout: 2000 });
    } catch {
      return true;
    }
  }
  return !cmdline.trim() || /voxd/.test(cmdline);
}

/** True when nothing listens on host:port any more. */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** After voxd exits, wait until the kernel lets go of its port. */
export async function waitPortFree(io: Io, state: DaemonState): Promise<void> {
  const host = state.host || DEFAULT_HOST;
  const port = state.port || DEFAULT_PORT;
  if (!(await waitFor(() => portFree(host, port), io.timeoutMs, 200))) {
    throw new Failure(
      `port ${port} on ${host} is still in use after voxd exited; another program holds it ("ss -ltnp" shows which).`,
      EXIT.UNREACHABLE,
    );
  }
}

export type Running =
  { state: DaemonState; alive: true } | { state: DaemonState; alive: false; reason: string } | undefined;

/** What voxd.json says, checked against the process table. */
export function running(env: NodeJS.ProcessEnv): Running {
  const state = readDaemonState(env);
  if (!state) return undefined;
  if (!pidAlive(state.pid)) return { state, alive: false, reason: `pid ${state.pid} in voxd.json has exited` };
  if (!looksLikeVoxd(state.pid))
    return { state, alive: false, reason: `pid ${state.pid} in voxd.json is another program now` };
  return { state, alive: true };
}

/** SIGTERM the unmanaged voxd and wait until it has exited. */
export async function stopByPid(io: Io, r: Running): Promise<void> {
  if (!r) {
    io.say('voxd is not running.');
    return;
  }
  if (!r.alive) {
    io.say(`voxd is not running (${r.reason}; the file is stale and safe to delete).`);
    return;
  }
  const { pid } = r.state;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    throw new Failure(
      `cannot signal voxd (pid ${pid}): ${(err as Error).message}. Is it running as another user?`,
      EXIT.INTERNAL,
    );
  }
  if (!(await waitFor(() => !pidAlive(pid), io.timeoutMs))) {
    throw new Failure(
      `voxd (pid ${pid}) did not exit within ${io.timeoutMs / 1000} s of SIGTERM. Force it with: kill -9 ${pid}`,
      EXIT.INTERNAL,
    );
  }
  io.say(`Stopped voxd (pid ${pid}).`);
}

/** Wait until voxd answers its health check; returns its version. */
export async function waitHealthy(io: Io, extra: () => boolean = () => true): Promise<string | undefined> {
  let version: string | undefined;
  const ok = await waitFor(
    async () => {
      const h = await health(io.ctx.env, 1000);
      if (h?.ok && extra()) version = h.version;
      return version !== undefined;
    },
    io.timeoutMs,
    200,
  );
  return ok ? version : undefined;
}

export function reportRunning(io: Io, how: string, version: string | undefined): void {
  const state = readDaemonState(io.ctx.env);
  io.result.daemon = { running: true, version, pid: state?.pid, host: state?.host, port: state?.port };
  const where = state ? ` (pid ${state.pid}, ${state.host}:${state.port})` : '';
  io.say(`voxd ${version ?? '?'} is running${where}${how}.`);
  if (version && compareVersions(version, VERSION) < 0) {
    io.warn(`voxd ${version} is older than this vox (${VERSION}); run "vox daemon restart".`);
  }
}
