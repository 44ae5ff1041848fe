/**
 * The link file on host B, VOX_HOME/remote.json (mode 0600): where the
 * forwarded voxd of host A is (a unix socket ssh listens on), A's token, and
 * the name that prefixes this host's session labels. `vox remote connect`
 * writes it; every client call on B reads it (client/endpoint.ts, and the
 * remote link layer: remote-call.ts).
 */
import { chmodSync, lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, pidAlive, readRegularFile, voxHome } from '@vox/protocol';
import type { Endpoint } from '../daemon/http.js';

export const LINK_FILE = 'remote.json';
export const SPOOL_FILE = 'remote-spool.jsonl';
export const SOCKET_FILE = 'remote.sock';

export interface RemoteLink {
  /** The ssh destination that runs voxd (host A). */
  host: string;
  /** The unix socket on this host that ssh forwards to A's voxd. */
  socket: string;
  token: string;
  /** A's vox version, checked equal to this one when the link was made. */
  version: string;
  /** This host's name in session labels ("B/api"). */
  as: string;
  /** The keeper's pid (`vox remote connect`): status and doctor say whether it runs; it ends when the file goes. */
  pid?: number;
  /** The ssh that holds the forward: a keeper killed outright leaves it running, and the next connect ends it (keeper.ts). */
  sshPid?: number;
}

export function linkPath(env: NodeJS.ProcessEnv): string {
  return join(voxHome(env), LINK_FILE);
}

/** The link, or undefined when there is none (or it is not one vox wrote). Capped read: it is on the hook path. */
export function readLink(env: NodeJS.ProcessEnv): RemoteLink | undefined {
  const read = readRegularFile(linkPath(env), { maxBytes: 4096 });
  if (!read.ok) return undefined;
  try {
    const l = JSON.parse(read.text) as Partial<RemoteLink>;
    if (typeof l.socket !== 'string' || typeof l.token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(l.token))
      return undefined;
    return {
      host: String(l.host ?? ''),
      socket: l.socket,
      token: l.token,
      version: String(l.version ?? ''),
      as: String(l.as ?? ''),
      ...(Number.isInteger(l.pid) ? { pid: l.pid! } : {}),
      ...(Number.isInteger(l.sshPid) ? { sshPid: l.sshPid! } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The link's endpoint, or undefined when this host has none. */
export function linkEndpoint(env: NodeJS.ProcessEnv): Endpoint | undefined {
  const link = readLink(env);
  if (!link) return undefined;
  return {
    host: '127.0.0.1',
    port: 1,
    token: link.token,
    socketPath: link.socket,
    remote: { host: link.host, as: link.as, version: link.version },
    source: 'remote.json',
  };
}

/** Written 0600 and renamed into place: the token is never in a world-readable file, even for a moment. */
export function writeLink(env: NodeJS.ProcessEnv, link: RemoteLink): void {
  const home = voxHome(env);
  makeDirs(home, 0o700);
  const tmp = join(home, `${LINK_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(link)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, linkPath(env));
}

export function removeLink(env: NodeJS.ProcessEnv): void {
  rmSync(linkPath(env), { force: true });
}

/**
 * The link is kept by a `vox remote connect` that runs, not this process. A
 * pid reused by another program (a restarted container numbers its processes
 * again) is not one: where /proc says, its command line must be a connect.
 */
export function otherKeeper(env: NodeJS.ProcessEnv): boolean {
  const pid = readLink(env)?.pid;
  if (pid === undefined || pid === process.pid || !pidAlive(pid)) return false;
  const cmd = readRegularFile(`/proc/${pid}/cmdline`, { maxBytes: 16 * 1024 });
  return !cmd.ok || `\0${cmd.text}`.includes('\0remote\0connect\0');
}

export function alreadyLinked(link: RemoteLink): string {
  return `this VOX_HOME is already linked to ${link.host} by "vox remote connect" (pid ${link.pid}); run "vox remote disconnect" first, or give this connect another VOX_HOME`;
}

/** The forward's socket, once the link is gone: ssh leaves it behind. */
export function removeSocket(socket: string): void {
  try {
    if (lstatSync(socket).isSocket()) rmSync(socket, { force: true });
  } catch {
    // not there
  }
}
