/**
 * One voice ask at a time across every session of the user: a lock file
 * under VOX_HOME, held from the announcement to the end of its listen, so an
 * answer always follows its own question (voice-decision.ts).
 *
 * The file holds the holder's pid and request id. It is written aside and
 * linked into place, so it never exists unwritten. A holder that died, or one
 * older than STALE_MS (longer than any voice turn), is taken over: the stale
 * file is renamed aside, and put back if what was renamed is not the file
 * judged stale (another waiter took over first and this is its new lock).
 * Waiters poll every POLL_MS until their own deadline.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, lstatSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, pidAlive, readRegularFile, voxHome } from '@vox/protocol';

const POLL_MS = 50;
/** Longer than a whole voice turn: such a lock was left behind. */
const STALE_MS = 40_000;
/** An empty lock file (made by open-then-write: older builds, or no hard links) older than this was left by a taker that died between the two. */
const UNWRITTEN_MS = 2000;

export interface AskLock {
  release(): void;
}

/** What identifies the lock file judged stale, so only that file is removed (an inode number alone is reused at once). */
export interface Seen {
  ino: number;
  dev: number;
  mtimeMs: number;
  text?: string;
}

function seenAs(file: string): Seen | undefined {
  const read = readRegularFile(file, { maxBytes: 256 });
  if (read.ok) return read;
  try {
    const st = lstatSync(file);
    return { ino: st.ino, dev: st.dev, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

function same(a: Seen, b: Seen): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.mtimeMs === b.mtimeMs && a.text === b.text;
}

/** The lock file when it is stale, else undefined (also when it is gone). */
function stale(file: string): Seen | undefined {
  const read = readRegularFile(file, { maxBytes: 256 });
  // Not a lock vox wrote (a FIFO, a directory, a link, a big file): nobody holds it.
  if (!read.ok) return read.problem === 'missing' ? undefined : seenAs(file);
  const age = Date.now() - read.mtimeMs;
  // Made but not yet written by open-then-write: its taker's, unless it stays so.
  if (!read.text.endsWith('\n')) return age > UNWRITTEN_MS ? read : undefined;
  const pid = Number(read.text.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return read;
  return age > STALE_MS ? read : undefined;
}

function aside(file: string, what: string): string {
  return `${file}.${what}.${process.pid}.${randomBytes(4).toString('hex')}`;
}

/** Removes the lock judged stale as `seen`, and only that file: a newer lock renamed by mistake goes back. */
export function removeStale(file: string, seen: Seen): void {
  const moved = aside(file, 'stale');
  try {
    renameSync(file, moved);
  } catch {
    return; // gone already
  }
  try {
    const got = seenAs(moved);
    if (got && !same(got, seen)) linkSync(moved, file);
  } catch {
    // Another lock is in place by now: the renamed one stays its holder's to lose.
  } finally {
    rmSync(moved, { recursive: true, force: true });
  }
}

/** Makes the lock file with its line in one step; false when it exists. */
function take(file: string, line: string): boolean {
  const tmp = aside(file, 'new');
  writeFileSync(tmp, line, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  // A file system without hard links: open-then-write, whose empty moment stale() allows for.
  try {
    const fd = openSync(file, 'wx', 0o600);
    writeSync(fd, line);
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Takes the lock, waiting until `deadline` (epoch ms); undefined when the time ran out. */
export async function acquireAskLock(
  env: NodeJS.ProcessEnv,
  requestId: string,
  deadline: number,
): Promise<AskLock | undefined> {
  const home = voxHome(env);
  makeDirs(home, 0o700);
  const file = join(home, 'voice-ask.lock');
  const line = `${process.pid} ${requestId}\n`;
  for (;;) {
    let taken: boolean;
    try {
      taken = take(file, line);
    } catch {
      return undefined;
    }
    if (taken) {
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          // Else taken over as stale, or removed: not ours any more.
          const now = readRegularFile(file, { maxBytes: 256 });
          if (now.ok && now.text.startsWith(line)) rmSync(file, { force: true });
        },
      };
    }
    const seen = stale(file);
    if (seen) {
      removeStale(file, seen);
      continue;
    }
    if (Date.now() + POLL_MS >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
