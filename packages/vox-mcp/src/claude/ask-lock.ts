/**
 * One voice ask at a time across every session of the user: a lock file
 * under VOX_HOME, held from the announcement to the end of its listen, so an
 * answer always follows its own question (voice-decision.ts).
 *
 * The file holds the holder's pid and request id. A holder that died, or one
 * older than STALE_MS (longer than any voice turn), is taken over. Waiters
 * poll every POLL_MS until their own deadline.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, voxHome } from '@vox/protocol';

const POLL_MS = 50;
/** Longer than a whole voice turn: such a lock was left behind. */
const STALE_MS = 40_000;

export interface AskLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function stale(file: string): boolean {
  try {
    const pid = Number(readFileSync(file, 'utf8').split(' ')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return true;
    return Date.now() - statSync(file).mtimeMs > STALE_MS;
  } catch {
    return false; // gone already, or being written: try again
  }
}

/** Takes the lock, waiting until `deadline` (epoch ms); undefined when the time ran out. */
export async function acquireAskLock(env: NodeJS.ProcessEnv, requestId: string, deadline: number): Promise<AskLock | undefined> {
  const home = voxHome(env);
  makeDirs(home, 0o700);
  const file = join(home, 'voice-ask.lock');
  for (;;) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid} ${requestId}\n`);
      closeSync(fd);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          try {
            if (readFileSync(file, 'utf8').startsWith(`${process.pid} ${requestId}\n`)) rmSync(file, { force: true });
          } catch {
            // Taken over as stale, or removed: not ours any more.
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
      if (stale(file)) {
        rmSync(file, { force: true });
        continue;
      }
    }
    if (Date.now() + POLL_MS >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
