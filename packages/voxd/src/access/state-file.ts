/** VOX_HOME/voxd.json: how clients find the running daemon. Written after bind, removed on exit. */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { DaemonState } from '@vox/protocol';

export function writeState(path: string, state: DaemonState): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

export function readState(path: string): DaemonState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DaemonState;
  } catch {
    return undefined;
  }
}

/** Remove the file only if it still describes this process. */
export function removeState(path: string, pid = process.pid): void {
  if (readState(path)?.pid === pid) rmSync(path, { force: true });
}
