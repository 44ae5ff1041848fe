/**
 * VOX_HOME/voxd.json: how clients find the running daemon. Written after bind,
 * removed on exit, and kept true while voxd runs (keeper.ts).
 */
import { lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { stopKeeping, type KeptFile } from './keeper.js';
import {
  fileKind,
  parseDaemonState,
  pidAlive,
  readRegularFile,
  STATE_FILE_MAX_BYTES,
  type DaemonState,
} from '@vox/protocol';

/**
 * What is at `path` when it is something voxd must not write over or read (a
 * directory, a FIFO, a link, a device) is renamed to `path.bad-<time>`, and the
 * new name is returned for the log; undefined when nothing needed moving.
 */
export function moveAside(path: string): string | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isFile()) return undefined;
  const aside = `${path}.bad-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  return `${basename(path)} was ${fileKind(st)}; voxd moved it to ${aside}`;
}

export function writeState(path: string, state: DaemonState): void {
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The state in `path` when it is one voxd wrote; never blocks, never reads more than a few KB. */
export function readState(path: string): DaemonState | undefined {
  const read = readRegularFile(path, { maxBytes: STATE_FILE_MAX_BYTES });
  return read.ok ? parseDaemonState(read.text) : undefined;
}

/** Remove the file only if it still describes this process (and stop keeping it true). */
export function removeState(path: string, pid = process.pid): void {
  stopKeeping();
  if (readState(path)?.pid === pid) rmSync(path, { force: true });
}

/** voxd.json for keepFiles(): rewritten whenever it does not describe this voxd. */
export function keptState(path: string, state: DaemonState): KeptFile {
  return {
    name: basename(path),
    problem() {
      const now = readState(path);
      if (now?.pid === state.pid && now.port === state.port) return undefined;
      // A voxd started after this one holds VOX_HOME now (this one's lock went stale): no tug of war over the file.
      if (now && typeof now.startedAt === 'string' && now.startedAt > state.startedAt && pidAlive(now.pid))
        return undefined;
      return now ? `named another voxd (pid ${now.pid}, port ${now.port})` : 'was missing or spoiled';
    },
    restore() {
      const moved = moveAside(path);
      writeState(path, state);
      return moved;
    },
  };
}
