import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * `mkdir -p`, one level at a time, with mkdirSync's errors (EEXIST when `dir`
 * is a file, ENOTDIR when a part of it is, EACCES, ENOENT). Not
 * `mkdirSync(dir, { recursive: true })`: on Node 20 that never returns (and
 * spins) when mkdir answers ENOENT under a parent that exists, as it does
 * under /proc, and VOX_HOME is whatever the user set. A directory that
 * another process creates meanwhile is fine.
 */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, mode === undefined ? undefined : { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err;
    }
  }
  // `dir` exists and is not a directory: mkdir itself fails, with the system's own
  // EEXIST (errno, syscall, path), which callers tell apart by `code`.
  if (missing.length === 0 && !statSync(dir).isDirectory()) mkdirSync(dir, mode === undefined ? undefined : { mode });
}

/**
 * The state directory shared by voxd and its clients. `VOX_HOME` wins; otherwise
 * the XDG state directory on Linux and Application Support on macOS.
 */
export function voxHome(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home?: string,
): string {
  if (env.VOX_HOME) return env.VOX_HOME;
  home ??= homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'vox');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'vox');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'vox');
}

/** The names of two files in VOX_HOME that every client call reads (homePaths() joins them). */
export const TOKEN_FILE = 'token';
export const STATE_FILE = 'voxd.json';
export const STOPPED_FILE = 'voxd.stopped';

/** Most bytes of voxd.json that anyone reads: voxd writes a few hundred. */
export const STATE_FILE_MAX_BYTES = 64 * 1024;

export interface HomePaths {
  home: string;
  /** Bearer token, mode 0600, kept across restarts. */
  token: string;
  /** `{pid, port, host, version}` of the running daemon; removed on exit. */
  state: string;
  /** Held by the one running voxd. */
  lock: string;
  /** Taken briefly by a client that is starting voxd, so eight clients start one. */
  spawnLock: string;
  logs: string;
  cache: string;
  keys: string;
  /** Installed voice models, one directory each (`vox voices install`). */
  models: string;
  /** Accepted requests not yet settled (voxd's journal), replayed by the next voxd; mode 0600. */
  journal: string;
  /** What was said and missed, and the last recap's mark (voxd's recall, `vox recap`, `vox history`); mode 0600. */
  recall: string;
  /** Written by "vox daemon stop|restart" before voxd is signalled, removed by the next voxd: a waiter's re-send honours it. */
  stopped: string;
}

export function homePaths(home: string): HomePaths {
  return {
    home,
    token: join(home, TOKEN_FILE),
    state: join(home, STATE_FILE),
    lock: join(home, 'voxd.lock'),
    spawnLock: join(home, 'spawn.lock'),
    logs: join(home, 'logs'),
    cache: join(home, 'cache'),
    keys: join(home, 'keys.env'),
    models: join(home, 'models'),
    journal: join(home, 'journal.jsonl'),
    recall: join(home, 'recall.jsonl'),
    stopped: join(home, STOPPED_FILE),
  };
}

/** Contents of `VOX_HOME/voxd.json`. */
export interface DaemonState {
  pid: number;
  host: string;
  port: number;
  version: string;
  startedAt: string;
  /** The audio sink spec in effect (so a client can tell when its VOXD_AUDIO differs). */
  audio?: string;
  /** The default engine in effect. */
  engine?: string;
  /** Where each setting came from: `flag`, `env`, `file` or `default`. */
  sources?: Record<string, string>;
}

/**
 * The text of voxd.json as a DaemonState, or undefined when it is not one that
 * voxd wrote: a pid and a port that a client or a starting voxd can use as
 * they are (an integer port from 1 to 65535, not -5, 70000 or 1.5).
 */
export function parseDaemonState(text: string): DaemonState | undefined {
  let state: Partial<DaemonState>;
  try {
    state = JSON.parse(text) as Partial<DaemonState>;
  } catch {
    return undefined;
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return undefined;
  if (!Number.isInteger(state.port) || state.port! < 1 || state.port! > 65535) return undefined;
  if (state.host !== undefined && typeof state.host !== 'string') return undefined;
  if (state.pid !== undefined && (!Number.isInteger(state.pid) || state.pid < 1)) return undefined;
  if (state.version !== undefined && typeof state.version !== 'string') return undefined;
  return state as DaemonState;
}

/** Contents of `VOX_HOME/voxd.stopped`: who stopped voxd, and whether a new one is coming. */
export interface StoppedMarker {
  /** `stop`: waiters are told their speech was stopped; `restart`: they wait for the new voxd. */
  reason: 'stop' | 'restart';
  /** The voxd that was stopped. */
  pid?: number;
  /** ms since the epoch. */
  at: number;
}

export function parseStoppedMarker(text: string): StoppedMarker | undefined {
  try {
    const m = JSON.parse(text) as Partial<StoppedMarker>;
    if ((m?.reason !== 'stop' && m?.reason !== 'restart') || typeof m.at !== 'number') return undefined;
    return m as StoppedMarker;
  } catch {
    return undefined;
  }
}
