/**
 * `vox remote connect A` on host B: keeps an ssh forward from a unix socket in
 * B's VOX_HOME to A's voxd on A's loopback, restarts it with backoff when it
 * drops, and sends what was spooled meanwhile. The token comes over ssh's
 * stdout (`vox remote credentials` on A), never a command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { makeDirs, pidAlive, readRegularFile, VERSION, voxHome } from '@vox/protocol';
import { ClientError } from '../errors.js';
import { healthAt, readDaemonState, request, type Endpoint } from '../daemon/http.js';
import { alreadyLinked, otherKeeper, readLink, removeSocket, SOCKET_FILE, writeLink, type RemoteLink } from './link.js';
import { returnToSpool, spoolWaiting, takeSpool } from './spool.js';

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
  /** A's process.platform: how its sshd runs a command (forwardArgs). */
  platform?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sshBase(o: Pick<KeeperOptions, 'sshConfig'>): string[] {
  return ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...(o.sshConfig ? ['-F', o.sshConfig] : [])];
}

/** A's version, voxd port and token, over ssh's stdout; checked before anything is forwarded. */
export function fetchCredentials(o: KeeperOptions): Promise<Credentials> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', [...sshBase(o), o.host, `${o.vox} remote credentials`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    // Capped: what answers there may not be vox.
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(0, 4096)));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2048)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', (e) =>
      reject(new ClientError('VOX_ERR_CLIENT_REMOTE_SSH', `ssh could not be run: ${e.message}`)),
    );
    child.on('close', (code) => {
      clearTimeout(timer);
      let c: Partial<Credentials> | undefined;
      try {
        c = JSON.parse(out) as Partial<Credentials>;
      } catch {
        c = undefined;
      }
      if (code !== 0 || !c || typeof c.version !== 'string') {
        return reject(
          new ClientError(
            'VOX_ERR_CLIENT_REMOTE_SSH',
            `"ssh ${o.host} ${o.vox} remote credentials" failed (exit ${code}): ${err.trim() || out.trim().slice(0, 200) || 'no output'}`,
          ),
        );
      }
      if (c.version !== VERSION) {
        return reject(
          new ClientError(
            'VOX_ERR_CLIENT_REMOTE_VERSION',
            `${o.host} runs vox ${c.version} and this host vox ${VERSION}; install the same version on both (docs/remote.md)`,
          ),
        );
      }
      if (typeof c.token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(c.token) || !Number.isInteger(c.port)) {
        return reject(
          new ClientError('VOX_ERR_CLIENT_REMOTE_TOKEN', `${o.host} gave no usable token or port for its voxd`),
        );
      }
      resolve(c as Credentials);
    });
  });
}

/**
 * The ssh that holds the forward. Not a bare `-N` where it can be helped:
 * sshd sets TCP_NODELAY on its socket only for a session with a pty, and
 * without it an answer that follows another within a round trip waits for
 * B's delayed ACK (40 ms on Linux, up to 200 ms elsewhere; the tail
 * bench/remote-hook.mjs counts). So the session runs `cat` on A under a pty,
 * which ends with the session (SIGHUP) and leaves nothing on A. `-N` where
 * A's sshd refuses a pty (PermitTTY no: ssh then exits at once) and on
 * Windows, whose sshd runs cmd.exe, which has no `cat`.
 */
function forwardArgs(
  o: Pick<KeeperOptions, 'host' | 'sshConfig'>,
  socket: string,
  port: number,
  pty: boolean,
): string[] {
  const forward = [
    ...sshBase(o),
    '-o',
    'ExitOnForwardFailure=yes',
    '-o',
    'StreamLocalBindUnlink=yes',
    '-o',
    'ServerAliveInterval=2',
    '-o',
    'ServerAliveCountMax=2',
    '-L',
    `${socket}:127.0.0.1:${port}`,
  ];
  return pty ? [...forward, '-tt', '-e', 'none', o.host, 'exec cat >/dev/null'] : [...forward, '-N', o.host];
}

/** ssh's words when sshd refuses the pty that forwardArgs asks for. */
const PTY_REFUSED = /PTY allocation request failed/;

/** Send what was spooled while the link was down, oldest first; what the link drops again goes back. */
export async function drainSpool(o: KeeperOptions, endpoint: Endpoint): Promise<void> {
  let entries: ReturnType<typeof takeSpool>;
  try {
    entries = takeSpool(o.env);
  } catch (err) {
    o.log((err as Error).message);
    return;
  }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    let body = e.body;
    // Its age counts from when it was said on this host, not from when the link came back.
    if (typeof body.maxAgeMs === 'number') {
      const left = body.maxAgeMs - (Date.now() - e.at);
      if (left <= 0) {
        o.log(
          `spooled speech ${body.requestId} expired in the spool (older than its maxAgeMs ${body.maxAgeMs}): not sent`,
        );
        continue;
      }
      body = { ...body, maxAgeMs: left };
    }
    try {
      const reply = await request<{ status?: string; code?: string; message?: string }>(
        endpoint,
        'POST',
        '/v1/speak',
        body,
        5000,
      );
      if (reply.status >= 400)
        o.log(
          `spooled speech ${body.requestId} failed: ${reply.body?.code ?? reply.status}: ${reply.body?.message ?? ''}`,
        );
      else o.log(`spooled speech ${body.requestId} sent: ${reply.body?.status}`);
    } catch {
      returnToSpool(o.env, entries.slice(i));
      return;
    }
  }
}

/** A local voxd for this VOX_HOME: its clients would speak here, not through the link (daemon/http.ts reads voxd.json first). */
async function refuseLocalVoxd(o: KeeperOptions): Promise<void> {
  const state = readDaemonState(o.env);
  if (!state) return;
  const local: Endpoint = { host: state.host || '127.0.0.1', port: state.port, token: undefined, source: 'voxd.json' };
  if (await healthAt(local, 1000)) {
    throw new ClientError(
      'VOX_ERR_CLIENT_USAGE',
      `a voxd runs on this host for this VOX_HOME (pid ${state.pid}), and its clients would speak here, not on ${o.host}; stop it ("vox daemon stop", "vox daemon uninstall" for a service) or give connect another VOX_HOME`,
    );
  }
}

/**
 * A keeper killed outright (SIGKILL, a crash) leaves its ssh running: ssh
 * does not end a session with a terminal when its stdin closes. Its forward
 * is replaced by ours (StreamLocalBindUnlink), but it would hold a login on
 * A for good. The next connect, or disconnect, ends it once its keeper is
 * gone and its command line is the forward of the link's socket (a pid
 * reused by another program is left alone; where /proc does not say,
 * nothing is done).
 */
export function endOrphanedSsh(env: NodeJS.ProcessEnv, log: (line: string) => void): void {
  const old = readLink(env);
  if (!old?.sshPid || old.pid === process.pid || (old.pid !== undefined && pidAlive(old.pid))) return;
  const cmd = readRegularFile(`/proc/${old.sshPid}/cmdline`, { maxBytes: 16 * 1024 });
  if (!cmd.ok || !cmd.text.split('\0').some((arg) => arg.startsWith(`${old.socket}:127.0.0.1:`))) return;
  try {
    process.kill(old.sshPid, 'SIGTERM');
    log(`ended the ssh (pid ${old.sshPid}) that a keeper no longer running (pid ${old.pid}) left`);
  } catch {
    // gone meanwhile
  }
}

/**
 * Runs until the signal aborts or the link is removed (`vox remote disconnect`): connect, watch the tunnel,
 * reconnect with backoff (at once after a drop, then at most RETRY_MAX_MS apart).
 */
export async function keepLink(o: KeeperOptions, onUp?: (link: RemoteLink) => void): Promise<void> {
  makeDirs(voxHome(o.env), 0o700);
  refuseSecondKeeper(o);
  await refuseLocalVoxd(o);
  const socket = join(voxHome(o.env), SOCKET_FILE);
  endOrphanedSsh(o.env, o.log);
  let backoff = 0;
  let first = true;
  let ptyRefused = false;
  // The last link's credentials: a reconnect forwards with them at once, and asks A again only when they fail
  // (one ssh login and one vox run on A fewer: most of a reconnect's time on a loaded machine).
  let known: Credentials | undefined;
  const retry = async () => {
    await sleep(backoff);
    backoff = Math.min(RETRY_MAX_MS, Math.max(100, backoff * 2));
  };
  while (!o.signal.aborted) {
    let creds: Credentials;
    try {
      creds = known ?? (await fetchCredentials(o));
    } catch (err) {
      // A wrong version or no vox there is not a dropped link: said once, and the keeper ends.
      if (first || (err as ClientError).code === 'VOX_ERR_CLIENT_REMOTE_VERSION') throw err;
      o.log(`reconnect failed: ${(err as Error).message}`);
      await retry();
      if (disconnected(o)) break;
      continue;
    }
    const pty = creds.platform !== 'win32' && !ptyRefused;
    const ssh = spawn('ssh', forwardArgs(o, socket, creds.port, pty), { stdio: ['ignore', 'ignore', 'pipe'] });
    const link: RemoteLink = {
      host: o.host,
      socket,
      token: creds.token,
      version: creds.version,
      as: o.as,
      pid: process.pid,
      ...(ssh.pid ? { sshPid: ssh.pid } : {}),
    };
    let said = '';
    ssh.stderr!.on('data', (d: Buffer) => (said = (said + d.toString()).slice(-1024)));
    const ended = new Promise<void>((r) => ssh.on('close', () => r()));
    const endpoint: Endpoint = {
      host: '127.0.0.1',
      port: 1,
      token: creds.token,
      socketPath: socket,
      source: 'remote.json',
    };
    const up = await waitUp(endpoint, ssh, known ? KNOWN_UP_MS : UP_MS);
    const stop = () => ssh.kill('SIGTERM');
    o.signal.addEventListener('abort', stop, { once: true });
    if (up) {
      if (first ? otherKeeper(o.env) : disconnected(o)) {
        ssh.kill('SIGTERM');
      } else {
        writeLink(o.env, link);
        o.log(`linked to voxd on ${o.host} (pid ${ssh.pid})`);
        first = false;
        backoff = 0;
        known = creds;
        onUp?.(link);
        await watchTunnel(o, endpoint, ssh, ended);
      }
    } else {
      // ssh that ran and got no answer from voxd there: A's port or token changed, or vox there did; ask again.
      const sshFailed = ssh.exitCode !== null;
      if (!sshFailed) known = undefined;
      ssh.kill('SIGTERM');
      // What ssh said is whole once its stderr has closed.
      await ended;
      if (pty && PTY_REFUSED.test(said) && !o.signal.aborted) {
        ptyRefused = true;
        o.log(
          `${o.host}'s sshd refuses a pty (PermitTTY no?): the forward runs without one, and an answer close behind another may wait for a delayed ACK (docs/remote.md)`,
        );
        o.signal.removeEventListener('abort', stop);
        continue;
      }
      o.log(`the forward to ${o.host} did not answer: ${said.trim() || 'ssh said nothing'}`);
    }
    await ended;
    o.signal.removeEventListener('abort', stop);
    if (o.signal.aborted) break;
    const now = readLink(o.env);
    if (first) {
      // Never linked: another connect came first, or the forward does not work.
      if (otherKeeper(o.env)) throw new ClientError('VOX_ERR_CLIENT_REMOTE_LINKED', alreadyLinked(now!));
      throw new ClientError('VOX_ERR_CLIENT_REMOTE_SSH', `the forward to ${o.host} did not answer`);
    }
    if (!now) {
      o.log(`disconnected from ${o.host} ("vox remote disconnect")`);
      removeSocket(socket);
      break;
    }
    if (now.pid !== process.pid) {
      o.log(`replaced: another "vox remote connect" (pid ${now.pid}) holds the link to ${now.host} now; this one ends`);
      break;
    }
    if (up) o.log(`the link to ${o.host} dropped; reconnecting`);
    await retry();
  }
}

/** The longest wait between two tries to reconnect, in ms: the link is back within this of A answering again. */
const RETRY_MAX_MS = 500;
/** How long a new forward has to answer, in ms; with the last link's credentials less, and then A is asked again. */
const UP_MS = 10_000;
const KNOWN_UP_MS = 4000;

/** A second connect would silently take the link over from the first: refused, naming the one that runs. */
function refuseSecondKeeper(o: KeeperOptions): void {
  const link = readLink(o.env);
  if (link && otherKeeper(o.env)) throw new ClientError('VOX_ERR_CLIENT_REMOTE_LINKED', alreadyLinked(link));
}

/** `vox remote disconnect` removed the link file (or another keeper took it over). */
function disconnected(o: KeeperOptions): boolean {
  return readLink(o.env)?.pid !== process.pid;
}

/**
 * While ssh runs: every WATCH_MS, ask voxd's health through the tunnel and
 * send what clients spooled meanwhile (a call that timed out on a stalled
 * tunnel). A tunnel that does not answer twice in a row is stalled (ssh
 * stopped, A's network gone silent, which ssh's keepalive notices only after
 * seconds): ssh is killed, and the loop reconnects. Ends when ssh does.
 */
async function watchTunnel(
  o: KeeperOptions,
  endpoint: Endpoint,
  ssh: ChildProcess,
  ended: Promise<void>,
): Promise<void> {
  let gone = false;
  void ended.then(() => (gone = true));
  let misses = 0;
  await drainSpool(o, endpoint);
  while (!gone && !o.signal.aborted) {
    await Promise.race([sleep(WATCH_MS), ended]);
    if (gone || o.signal.aborted) return;
    if (disconnected(o)) {
      ssh.kill('SIGTERM');
      return;
    }
    if (await healthAt(endpoint, WATCH_MS)) {
      misses = 0;
      if (spoolWaiting(o.env)) await drainSpool(o, endpoint);
    } else if (++misses >= 2 && !gone) {
      o.log(`the tunnel to ${o.host} does not answer (ssh pid ${ssh.pid}); restarting it`);
      // SIGKILL: a stopped ssh does not act on SIGTERM.
      ssh.kill('SIGKILL');
      return;
    }
  }
}

/** How often the keeper checks the tunnel, in ms; a stalled one is restarted within about three of these. */
const WATCH_MS = 1000;

/** voxd answers through the new forward, and takes the token (the last link's may be stale). */
async function waitUp(endpoint: Endpoint, ssh: ChildProcess, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end && ssh.exitCode === null;) {
    if (await healthAt(endpoint, 500)) {
      const status = await request(endpoint, 'GET', '/v1/status?limit=0', undefined, 1000).catch(() => undefined);
      return status?.status === 200;
    }
    await sleep(20);
  }
  return false;
}
