/**
 * `vox remote connect A` on host B: keeps an ssh forward from a unix socket in
 * B's VOX_HOME to A's voxd on A's loopback, restarts it with backoff when it
 * drops, and sends what was spooled meanwhile. The token comes over ssh's
 * stdout (`vox remote credentials` on A), never a command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { makeDirs, VERSION, voxHome } from '@vox/protocol';
import { ClientError } from '../errors.js';
import { healthAt, request, type Endpoint } from '../daemon/http.js';
import { SOCKET_FILE, writeLink, type RemoteLink } from './link.js';
import { returnToSpool, takeSpool } from './spool.js';

export interface KeeperOptions {
  host: string;
  /** This host's name in session labels. */
  as: string;
  /** The command that runs vox on A. */
  vox: string;
  sshConfig?: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  signal: AbortSignal;
}

export interface Credentials {
  version: string;
  port: number;
  token: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sshBase(o: KeeperOptions): string[] {
  return ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...(o.sshConfig ? ['-F', o.sshConfig] : [])];
}

/** A's version, voxd port and token, over ssh's stdout; checked before anything is forwarded. */
export function fetchCredentials(o: KeeperOptions): Promise<Credentials> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', [...sshBase(o), o.host, `${o.vox} remote credentials`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    // Capped: what answers there may not be vox.
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(0, 4096)));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2048)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', (e) => reject(new ClientError('VOX_ERR_CLIENT_REMOTE_SSH', `ssh could not be run: ${e.message}`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      let c: Partial<Credentials> | undefined;
      try {
        c = JSON.parse(out) as Partial<Credentials>;
      } catch {
        c = undefined;
      }
      if (code !== 0 || !c || typeof c.version !== 'string') {
        return reject(new ClientError('VOX_ERR_CLIENT_REMOTE_SSH', `"ssh ${o.host} ${o.vox} remote credentials" failed (exit ${code}): ${err.trim() || out.trim().slice(0, 200) || 'no output'}`));
      }
      if (c.version !== VERSION) {
        return reject(new ClientError('VOX_ERR_CLIENT_REMOTE_VERSION', `${o.host} runs vox ${c.version} and this host vox ${VERSION}; install the same version on both (docs/remote.md)`));
      }
      if (typeof c.token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(c.token) || !Number.isInteger(c.port)) {
        return reject(new ClientError('VOX_ERR_CLIENT_REMOTE_TOKEN', `${o.host} gave no usable token or port for its voxd`));
      }
      resolve(c as Credentials);
    });
  });
}

/** Send what was spooled while the link was down, oldest first; what the link drops again goes back. */
export async function drainSpool(o: KeeperOptions, endpoint: Endpoint): Promise<void> {
  const entries = takeSpool(o.env);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    try {
      const reply = await request<{ status?: string; code?: string; message?: string }>(endpoint, 'POST', '/v1/speak', e.body, 5000);
      if (reply.status >= 400) o.log(`spooled speech ${e.body.requestId} failed: ${reply.body?.code ?? reply.status}: ${reply.body?.message ?? ''}`);
      else o.log(`spooled speech ${e.body.requestId} sent: ${reply.body?.status}`);
    } catch {
      returnToSpool(o.env, entries.slice(i));
      return;
    }
  }
}

/** Runs until the signal aborts: connect, wait for the tunnel to drop, reconnect with backoff (at most 1 s apart). */
export async function keepLink(o: KeeperOptions, onUp?: (link: RemoteLink) => void): Promise<void> {
  makeDirs(voxHome(o.env), 0o700);
  const socket = join(voxHome(o.env), SOCKET_FILE);
  let backoff = 100;
  let first = true;
  while (!o.signal.aborted) {
    let creds: Credentials;
    try {
      creds = await fetchCredentials(o);
    } catch (err) {
      // A wrong version or no vox there is not a dropped link: said once, and the keeper ends.
      if (first || (err as ClientError).code === 'VOX_ERR_CLIENT_REMOTE_VERSION') throw err;
      o.log(`reconnect failed: ${(err as Error).message}`);
      await sleep(backoff);
      backoff = Math.min(1000, backoff * 2);
      continue;
    }
    const link: RemoteLink = { host: o.host, socket, token: creds.token, version: creds.version, as: o.as };
    const ssh = spawn('ssh', [...sshBase(o), '-N', '-o', 'ExitOnForwardFailure=yes', '-o', 'StreamLocalBindUnlink=yes', '-o', 'ServerAliveInterval=2', '-o', 'ServerAliveCountMax=2', '-L', `${socket}:127.0.0.1:${creds.port}`, o.host], { stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    ssh.stderr!.on('data', (d: Buffer) => (said = (said + d.toString()).slice(-1024)));
    const ended = new Promise<void>((r) => ssh.on('close', () => r()));
    const endpoint: Endpoint = { host: 'localhost', port: 1, token: creds.token, socketPath: socket, source: 'remote.json' };
    const up = await waitUp(endpoint, ssh);
    if (up) {
      writeLink(o.env, link);
      o.log(`linked to voxd on ${o.host} (pid ${ssh.pid})`);
      first = false;
      backoff = 100;
      onUp?.(link);
      await drainSpool(o, endpoint);
    } else {
      o.log(`the forward to ${o.host} did not answer: ${said.trim() || 'ssh said nothing'}`);
      ssh.kill('SIGTERM');
    }
    const stop = () => ssh.kill('SIGTERM');
    o.signal.addEventListener('abort', stop, { once: true });
    await ended;
    o.signal.removeEventListener('abort', stop);
    if (o.signal.aborted) break;
    o.log(`the link to ${o.host} dropped; reconnecting`);
    await sleep(backoff);
    backoff = Math.min(1000, backoff * 2);
  }
}

async function waitUp(endpoint: Endpoint, ssh: ChildProcess): Promise<boolean> {
  for (const end = Date.now() + 10_000; Date.now() < end && ssh.exitCode === null; ) {
    if (await healthAt(endpoint, 500)) return true;
    await sleep(20);
  }
  return false;
}
