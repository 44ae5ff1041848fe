/**
 * The session id a Claude Code process is on now, for a `vox mcp` that no
 * hook tool reaches: a set-up of command hooks only (`vox hooks install
 * --type command`, an older Claude Code). `/clear` gives the session a new id
 * while `vox mcp` runs on with the first one in its environment
 * (project/session.ts), and only the hooks see the new one.
 *
 * So each `vox hook` notes the id its payload carries in
 * VOX_HOME/sessions/claude-<CLAUDE_PID> (Claude Code 2.1.332 gives its hook
 * commands CLAUDE_PID, its own pid), and `vox mcp`, a child of that Claude
 * Code, adopts it. Only a note written after the adoption before it counts:
 * an older one is of this session's past, or of another process that had the
 * same pid (a pid is not reused while its process lives, and ours is our
 * parent). Notes of processes that ended are swept once there are many.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, pidAlive, readRegularFile, voxHome } from '@vox/protocol';

/** Past this many notes, those of processes that ended are removed. */
const SWEEP_AT = 64;
const MAX_ID = 200;

function notesDir(env: NodeJS.ProcessEnv): string {
  return join(voxHome(env), 'sessions');
}

function pidOf(value: string | undefined): number | undefined {
  return value && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : undefined;
}

/** `vox hook`: the session `id` is the one its Claude Code (env CLAUDE_PID) is on now. Never throws. */
export function noteSession(env: NodeJS.ProcessEnv, id: string): void {
  const pid = pidOf(env.CLAUDE_PID);
  if (!pid || !id || id.length > MAX_ID || /[\r\n]/.test(id)) return;
  try {
    const dir = notesDir(env);
    const file = join(dir, `claude-${pid}`);
    const line = `${id}\n`;
    const now = readRegularFile(file, { maxBytes: 256 });
    if (now.ok && now.text === line) return; // the usual case: nothing changed
    makeDirs(dir, 0o700);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, line, { mode: 0o600 });
    renameSync(tmp, file);
    if (!now.ok) sweep(dir);
  } catch {
    // A hook never fails for its note: the model's stop then covers less.
  }
}

function sweep(dir: string): void {
  const names = readdirSync(dir);
  if (names.length <= SWEEP_AT) return;
  for (const name of names) {
    const pid = pidOf(/^claude-(\d+)$/.exec(name)?.[1]);
    if (pid === undefined ? name.endsWith('.tmp') : !pidAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}

/**
 * `vox mcp`: the id its Claude Code noted after `sinceMs` (epoch ms), if any.
 * `parents` are the pids that may be that Claude Code: the parent, and on
 * Linux the parent's own ancestors (a launcher such as npx in between).
 */
export function notedSession(
  env: NodeJS.ProcessEnv,
  parents: readonly number[],
  sinceMs: number,
): { id: string; atMs: number } | undefined {
  for (const pid of parents) {
    const read = readRegularFile(join(notesDir(env), `claude-${pid}`), { maxBytes: 256 });
    if (!read.ok || !read.text.endsWith('\n') || read.mtimeMs <= sinceMs) continue;
    const id = read.text.slice(0, -1);
    if (id && !id.includes('\n')) return { id, atMs: read.mtimeMs };
  }
  return undefined;
}

/** The parent and, where /proc tells, up to three of its ancestors: where a Claude Code may be. */
export function parentPids(): number[] {
  const out = [process.ppid];
  if (process.platform !== 'linux') return out;
  for (let pid = process.ppid; out.length < 4;) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      break;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(ppid) || ppid <= 1) break;
    out.push(ppid);
    pid = ppid;
  }
  return out;
}
