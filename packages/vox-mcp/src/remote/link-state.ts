/**
 * What `vox status` and `vox doctor` say about this host's remote link: the
 * host, whether the tunnel answers, whether its keeper runs, and how much
 * speech waits in the spool. Off the hot path: only they read it.
 */
import { pidAlive, printable } from '@vox/protocol';
import { healthAt } from '../daemon/http.js';
import { linkEndpoint, readLink } from './link.js';
import { spoolDepth } from './spool.js';

export interface LinkState {
  host: string;
  as: string;
  socket: string;
  /** The tunnel answered voxd's health within the probe's time. */
  connected: boolean;
  /** The keeper's pid and whether it runs; undefined when the link file names none. */
  keeper?: { pid: number; running: boolean };
  spool: { entries: number; bytes: number };
}

/** The link's state, or undefined when this host has no link. */
export async function linkState(env: NodeJS.ProcessEnv, probeMs = 1000): Promise<LinkState | undefined> {
  const link = readLink(env);
  const endpoint = linkEndpoint(env);
  if (!link || !endpoint) return undefined;
  const connected = (await healthAt(endpoint, probeMs)) !== undefined;
  return {
    host: link.host,
    as: link.as,
    socket: link.socket,
    connected,
    ...(link.pid !== undefined ? { keeper: { pid: link.pid, running: pidAlive(link.pid) } } : {}),
    spool: spoolDepth(env),
  };
}

/** One line: `remote: linked to A as devbox, connected (keeper pid 123), spool 0`. */
export function formatLink(s: LinkState): string {
  const keeper = s.keeper
    ? s.keeper.running
      ? `keeper pid ${s.keeper.pid}`
      : `keeper pid ${s.keeper.pid} NOT RUNNING: run "vox remote connect ${s.host}"`
    : 'keeper unknown';
  const spool = s.spool.entries ? `spool ${s.spool.entries} waiting (${s.spool.bytes} bytes)` : 'spool empty';
  return `remote: linked to ${printable(s.host)} as ${printable(s.as)}, ${s.connected ? 'connected' : 'DOWN'} (${keeper}), ${spool}`;
}
