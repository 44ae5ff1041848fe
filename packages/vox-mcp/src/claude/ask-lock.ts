/**
 * One voice ask at a time across every session of the user: a lock file
 * under VOX_HOME, held from the announcement to the end of its listen, so an
 * answer always follows its own question (voice-decision.ts).
 *
 * The file holds the holder's pid and request id. A holder that died, or one
 * older than STALE_MS (longer than any voice turn), is taken over; a file not
 * written yet is its taker's (taking it over then let two sessions ask at
 * once). Waiters poll every POLL_MS until their own deadline.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, voxHome } from '@vox/protocol';

const POLL_MS = 50;
/** Longer than a whole voice turn: such a lock was left behind. */
const STALE_MS = 40_000;
/** A lock file still empty after this was left by a taker that died between making and writing it. */
const UNWRITTEN_MS = 2000;

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
    const text = readFileSync(file, 'utf8');
    const age = Date.now() - statSync(file).mtimeMs;
    // Made but not yet written (the taker's open and write are two calls): its taker's, unless it stays so.
    if (!text.endsWith('\n')) return age > UNWRITTEN_MS;
    const pid = Number(text.split(' ')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return true;
    return age > STALE_MS;
  } catch {
    return false; // gone already: try again
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
