/**
 * A player's process group. A player runs detached, as the leader of its own
 * group, so that a stop or a timeout can end it together with whatever it
 * started: a player script whose child inherits its pipes would otherwise keep
 * them open, and the utterance "playing", for as long as that child lives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/** SIGKILL the whole group led by `child` (the child alone where groups are not available). */
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

/**
 * Resolves true once no live process is left in the group `pgid` (zombies
 * waiting to be reaped by init count as gone), false after `timeoutMs`.
 */
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
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return true;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}
