/**
 * The processes of a child voxd runs (a player, a recorder): its group, and on
 * Linux its whole tree. Such a child runs detached, as the leader of its own
 * session and group, so that a stop, a timeout or its end can end it together
 * with whatever it started: a player script whose child inherits its pipes
 * would otherwise keep them open, and the utterance "playing", for as long as
 * that child lives.
 *
 * A descendant can leave the group (setsid, setpgid, a `detached` spawn).
 * On Linux the tree is therefore also tracked, two ways:
 * - while the child runs, the children of every process known to be its
 *   (from /proc/PID/task/TID/children, cheap: only the tree's own files) are
 *   recorded, a little often at first, when players start their helpers;
 * - the child runs with a mark in its environment (`env()`), which its
 *   descendants inherit, so one whose parent died before the first look
 *   (orphaned to init) is still found.
 * At the end a sweep of /proc adds every process whose parent, session or
 * group is one of the tree, or that carries the mark, and all of them get
 * SIGKILL, again until none is left. Each pid is kept with its start time, so
 * a reused pid is never killed. At voxd's exit, trees still alive are killed.
 *
 * What it cannot see: a process that left the session, cleared its
 * environment and lost its parent before the first look, or anything once
 * voxd itself is SIGKILLed. A cgroup (a systemd user scope) would cover both;
 * `systemd-run --user` needs a user bus, which voxd often lacks, so it is not
 * used (docs/operations.md says which platform gets what).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/** While the player runs: how often its tree is looked at (fast at first, then slower). */
const WATCH_MS = [20, 20, 40, 80, 160, 250] as const;

interface Stat {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  state: string;
  start: string;
}

function readStat(pid: number | string): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp session … starttime (field 22); comm may hold spaces and parentheses.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(pid), state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]), sid: Number(f[3]), start: f[19]! };
  } catch {
    return undefined;
  }
}

const running = (s: Stat | undefined): s is Stat => s !== undefined && s.state !== 'Z' && s.state !== 'X';

/** The variable the mark rides in. */
export const TREE_MARK = 'VOX_TREE';

/** Trees not yet reaped, killed at voxd's exit. */
const live = new Set<ProcessTree>();
let exitHook = false;

export class ProcessTree {
  #pid: number | undefined;
  /** Known members: pid -> start time. */
  readonly #known = new Map<number, string>();
  readonly #id = randomUUID();
  /** The mark as it appears in /proc/PID/environ. */
  readonly #mark = Buffer.from(`${TREE_MARK}=${this.#id}\0`);
  #timer: NodeJS.Timeout | undefined;
  #step = 0;
  readonly #linux = process.platform === 'linux';

  /** The environment to spawn the child with: `base` and the tree's mark. */
  env(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    return { ...base, [TREE_MARK]: this.#id };
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  /** Start tracking `child` (spawned detached, with `env()`). */
  track(child: ChildProcess): this {
    this.#pid = child.pid;
    if (this.pid === undefined) return this;
    const self = this.#linux ? readStat(this.pid) : undefined;
    this.#known.set(this.pid, self?.start ?? '');
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const t of live) t.killNow();
      });
    }
    if (this.#linux) this.#watch();
    return this;
  }

  /** Pids of the tree known now (for tests and logs). */
  get known(): number[] {
    return [...this.#known.keys()];
  }

  /** SIGKILL everything of the tree that can be found, at once (synchronous: usable at exit). */
  killNow(): void {
    this.#stopWatching();
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // No group (or gone): the members below still are.
    }
    if (!this.#linux) {
      this.#signal(this.pid);
      return;
    }
    this.#sweep();
    for (const pid of this.#known.keys()) this.#signal(pid);
  }

  /**
   * Kill the tree and resolve true once nothing of it runs (zombies waiting
   * for init count as gone), false after `timeoutMs`. Processes forked while
   * it is being killed are found by the next sweep.
   */
  async end(timeoutMs = 1000): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      this.killNow();
      if (!this.#alive()) {
        live.delete(this);
        return true;
      }
      if (performance.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  #watch(): void {
    const ms = WATCH_MS[Math.min(this.#step++, WATCH_MS.length - 1)]!;
    this.#timer = setTimeout(() => {
      this.#children();
      this.#watch();
    }, ms);
    this.#timer.unref();
  }

  #stopWatching(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Record the children of every known member (their parent link survives a setsid). */
  #children(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const pid of [...this.#known.keys()]) {
        let tasks: string[];
        try {
          tasks = readdirSync(`/proc/${pid}/task`);
        } catch {
          continue;
        }
        for (const tid of tasks) {
          let kids: string;
          try {
            kids = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
          } catch {
            continue;
          }
          for (const k of kids.split(' ')) {
            const kid = Number(k);
            if (!kid || this.#known.has(kid)) continue;
            const st = readStat(kid);
            if (st) {
              this.#known.set(kid, st.start);
              changed = true;
            }
          }
        }
      }
    }
  }

  /** Every process whose parent, session or group is a member joins the tree; a reused pid leaves it. */
  #sweep(): void {
    this.#children();
    const all: Stat[] = [];
    try {
      for (const name of readdirSync('/proc'))
        if (/^\d+$/.test(name)) {
          const st = readStat(name);
          if (st) all.push(st);
        }
    } catch {
      return;
    }
    for (const st of all) {
      const start = this.#known.get(st.pid);
      if (start !== undefined && start !== '' && start !== st.start) this.#known.delete(st.pid);
    }
    // Only a process started since the child can be of its tree: the rest are skipped before the costly
    // reads (each environ is a page or more, and a busy machine runs hundreds of processes; bench/barge-in.mjs).
    const since = Number(this.#known.get(this.pid!) || 0);
    const young = all.filter((st) => Number(st.start) >= since && st.pid !== process.pid);
    for (const st of young) {
      if (!this.#known.has(st.pid) && this.#carries(st.pid)) this.#known.set(st.pid, st.start);
    }
    for (let changed = true; changed;) {
      changed = false;
      for (const st of young) {
        if (this.#known.has(st.pid)) continue;
        if (this.#known.has(st.ppid) || this.#known.has(st.sid) || this.#known.has(st.pgrp)) {
          this.#known.set(st.pid, st.start);
          changed = true;
        }
      }
    }
  }

  /** Whether `pid` carries this tree's mark (only our own processes' environments are readable). */
  #carries(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(this.#mark);
    } catch {
      return false;
    }
  }

  #signal(pid: number): void {
    const start = this.#known.get(pid);
    if (this.#linux && start) {
      const st = readStat(pid);
      if (!st || st.start !== start) return; // gone, or the pid is another process's now
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  #alive(): boolean {
    if (this.pid === undefined) return false;
    if (!this.#linux) {
      try {
        process.kill(-this.pid, 0);
        return true;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    for (const [pid, start] of this.#known) {
      const st = readStat(pid);
      if (running(st) && (!start || st.start === start)) return true;
    }
    return false;
  }
}

/** SIGKILL the whole group led by `child` (the child alone where groups are not available). For children that track no tree. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Resolves true once no live process is left in the group `pgid` (zombies count as gone), false after `timeoutMs`. */
export async function groupGone(pgid: number, timeoutMs = 1000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  // kill(-pgid, 0) also succeeds for zombies; on Linux, look for a member that still runs.
  try {
    return readdirSync('/proc').some((n) => {
      if (!/^\d+$/.test(n)) return false;
      const st = readStat(n);
      return running(st) && st.pgrp === pgid;
    });
  } catch {
    return true;
  }
}
