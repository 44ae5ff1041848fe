/**
 * Everything a recorder started, found again at its end. Its process group
 * (sinks/player-group.ts) misses a child that called setsid (a daemonizing
 * helper, `setsid`, Node's `detached`): that child leads a group and session of
 * its own, and once the recorder has exited it is init's child, so the parent
 * links are gone too. So the recorder runs with a mark in its environment,
 * which its descendants inherit; at the end, on Linux, every process of ours
 * that carries the mark, or descends from the recorder, is killed.
 *
 * A child that both clears its environment and leaves the tree escapes this;
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

/** /proc/PID/stat's parent, or undefined (gone, or not Linux). */
async function parentOf(pid: string): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid …; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : Number(fields[1]);
  } catch {
    return undefined;
  }
}

async function carries(pid: string, needle: string): Promise<boolean> {
  try {
    // Only our own processes are readable; a bounded read, environments are small.
    return (await readFile(`/proc/${pid}/environ`)).includes(needle);
  } catch {
    return false;
  }
}

/**
 * Live processes (not this one) that carry `mark`, or descend from `root`;
 * [] where /proc is not there. Pass `root` only while that process is alive
 * and unreaped: a reaped pid may be reused by a stranger.
 */
export async function recorderTree(root: number | undefined, mark: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = (await readdir('/proc')).filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return [];
  }
  const needle = `${RECORDER_MARK}=${mark}\0`;
  const parents = new Map<number, number>();
  const found = new Set<number>();
  await Promise.all(
    names.map(async (n) => {
      const ppid = await parentOf(n);
      if (ppid === undefined) return;
      parents.set(Number(n), ppid);
      if (await carries(n, needle)) found.add(Number(n));
    }),
  );
  if (root !== undefined) {
    // Descendants that cleared the mark but still hang from the tree.
    const children = new Map<number, number[]>();
    for (const [pid, ppid] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    const seen = new Set([root]);
    const todo = [root];
    while (todo.length > 0) {
      for (const c of children.get(todo.pop()!) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        found.add(c);
        todo.push(c);
      }
    }
  }
  found.delete(process.pid);
  return [...found];
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
