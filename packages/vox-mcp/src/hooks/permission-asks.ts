/**
 * The permission asks a session has announced, so that one ask is heard once
 * whichever events, and whichever processes, carry it.
 *
 * Claude Code 2.1.332 fires PermissionRequest the moment a tool asks ("api
 * needs your permission to use Bash"), then, if the dialog is still open
 * about 6 s later, a `permission_prompt` Notification whose message names no
 * tool ("Claude needs your permission"). The two carry nothing in common but
 * the session, so a duplicate key at voxd cannot tie them without also
 * merging two different asks. So the request is remembered here and the
 * Notification that follows within the window is silent.
 *
 * The hook tool of `vox mcp` sees both events of its session in one process,
 * but `vox hook` runs one process per event (the command hooks of every
 * agent), so what is remembered is also kept in VOX_HOME/permission-asks.json:
 * `{"version":1,"asks":{"<session label>":<epoch ms>}}`, at most MAX_SESSIONS
 * entries, 0600, written atomically (a temp file and a rename, which replaces
 * a symlink or a FIFO there rather than following it). It is read with
 * `readRegularFile`'s bounds: a file too big, not regular (a FIFO opens
 * without blocking and is refused), a symlink or not JSON counts as nothing
 * remembered, so the Notification is heard: a bad file can only cost a second
 * announcement, never silence an ask or hold a hook. Two hooks writing at
 * once: the last rename wins, and the lost entry costs the same.
 *
 * Rejected: one key per session ("permission" without the tool), which would
 * drop a second ask for another tool that comes within the window; a round
 * trip to voxd, which a command hook pays on every event when voxd is down.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, readRegularFile, voxHome } from '@vox/protocol';
import { PERMISSION_DEDUP_SECONDS } from './policy.js';

/** Sessions remembered at once; a process serves one session (a few after /clear). */
const MAX_SESSIONS = 64;
/** A session label longer than this is not remembered (labels are a project name and six characters). */
const MAX_LABEL_CHARS = 200;
/** The state file's cap: MAX_SESSIONS labels at their longest, with room. */
export const ASKS_FILE_MAX_BYTES = 32 * 1024;
/** The state file under VOX_HOME. */
export const ASKS_FILE = 'permission-asks.json';

export function asksFile(env: NodeJS.ProcessEnv): string {
  return join(voxHome(env), ASKS_FILE);
}

type Asks = Map<string, number>;

/** The asks kept in `path`; empty when it is missing, hostile or not ours. Never throws. */
export function readAsks(path: string): Asks {
  const out: Asks = new Map();
  const read = readRegularFile(path, { maxBytes: ASKS_FILE_MAX_BYTES });
  if (!read.ok) return out;
  let doc: unknown;
  try {
    doc = JSON.parse(read.text);
  } catch {
    return out;
  }
  if (typeof doc !== 'object' || doc === null || (doc as { version?: unknown }).version !== 1) return out;
  const asks = (doc as { asks?: unknown }).asks;
  if (typeof asks !== 'object' || asks === null || Array.isArray(asks)) return out;
  for (const [label, at] of Object.entries(asks)) {
    if (out.size >= MAX_SESSIONS) break;
    if (typeof at === 'number' && Number.isFinite(at) && label.length <= MAX_LABEL_CHARS) out.set(label, at);
  }
  return out;
}

/** Temp files written by this process; with the pid and the time, a name no other writer uses ('wx' refuses one that exists). */
let written = 0;

/**
 * Writes the asks atomically (0600); a failure is ignored: the next Notification is heard instead.
 * No node:crypto for the temp name: loading it costs `vox hook` about 5 ms (bench/hook.mjs).
 */
function writeAsks(path: string, asks: Asks): void {
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}.${(written++).toString(36)}.tmp`;
  try {
    makeDirs(join(path, '..'), 0o700);
    writeFileSync(tmp, `${JSON.stringify({ version: 1, asks: Object.fromEntries(asks) })}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
  }
}

export class PermissionAsks {
  /** Session label → when its last PermissionRequest was announced (ms). */
  private readonly asked: Asks = new Map();

  /** `file`: where other processes' asks are shared (asksFile); none keeps them in this process alone. */
  constructor(
    private readonly windowMs = PERMISSION_DEDUP_SECONDS * 1000,
    private readonly file?: string,
  ) {}

  /** A PermissionRequest of `session` was announced at `now`. Never throws. */
  requested(session: string, now: number): void {
    remember(this.asked, session, now);
    if (!this.file || session.length > MAX_LABEL_CHARS) return;
    const kept = readAsks(this.file);
    // Only the asks still within their window are worth a byte of the file.
    for (const [label, at] of kept) if (!(now - at >= 0 && now - at <= this.windowMs)) kept.delete(label);
    remember(kept, session, now);
    writeAsks(this.file, kept);
  }

  /** True when `session` announced a PermissionRequest within the window before `now`, here or in another process. */
  announced(session: string, now: number): boolean {
    const within = (at: number | undefined) => at !== undefined && now - at >= 0 && now - at <= this.windowMs;
    if (within(this.asked.get(session))) return true;
    return this.file !== undefined && within(readAsks(this.file).get(session));
  }
}

function remember(asks: Asks, session: string, now: number): void {
  asks.delete(session);
  asks.set(session, now);
  if (asks.size > MAX_SESSIONS) asks.delete(asks.keys().next().value!);
}
