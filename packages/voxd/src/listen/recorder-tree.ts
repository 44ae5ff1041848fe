/**
 * Everything a recorder started, found again at its end. Its process group
 * (sinks/player-group.ts) misses a child that called setsid (a daemonizing
 * helper, `setsid`, Node's `detached`): that child leads a group and session of
 * its own, and once the recorder has exited it is init's child, so the parent
 * links are gone too. So the recorder runs with a mark in its environment,
 * which its descendants inherit; once it has exited, on Linux, every process
 * of ours that carries the mark is killed.
 *
 * A child that both clears its environment and leaves the group escapes this;
 * nothing short of a cgroup (systemd's scope) holds that one.
 *
 * The player's sweep (sinks/player-group.ts) is another engineer's; this is
 * the recorder's local equivalent, to be unified with it.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** The variable the mark rides in. */
export const RECORDER_MARK = 'VOX_RECORDER_RUN';

/** A fresh mark for one recorder run. */
export function recorderMark(): string {
  return randomUUID();
}

async function carries(pid: string, needle: string): Promise<boolean> {
  try {
    // Only our own processes are readable; environments are small.
    return (await readFile(`/proc/${pid}/environ`)).includes(needle);
  } catch {
    return false;
  }
}

/** Live processes (not this one) that carry `mark`; [] where /proc is not there. One read per process (~20 ms for 100). */
export async function recorderTree(mark: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = (await readdir('/proc')).filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return [];
  }
  const needle = `${RECORDER_MARK}=${mark}\0`;
  const found = await Promise.all(names.map(async (n) => ((await carries(n, needle)) ? Number(n) : 0)));
  return found.filter((pid) => pid > 0);
}

/** SIGKILL each of `pids`; those already gone are skipped. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}
