/**
 * Speech accepted on host B while the link to A is down: one JSON line per
 * speak request, with its requestId, in VOX_HOME/remote-spool.jsonl (0600).
 * Bounded; the keeper (`vox remote connect`) sends it once the link is back,
 * and voxd's requestId join drops any request that had in fact arrived.
 */
import { closeSync, constants, fstatSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile, voxHome } from '@vox/protocol';
import { ClientError } from '../errors.js';
import { SPOOL_FILE } from './link.js';

/** Far more than a session says while a link is down; a flood stops here, not in memory. */
export const SPOOL_MAX_BYTES = 1024 * 1024;

export interface SpooledSpeech {
  body: Record<string, unknown> & { requestId: string };
  at: number;
}

export function spoolPath(env: NodeJS.ProcessEnv): string {
  return join(voxHome(env), SPOOL_FILE);
}

export function spool(env: NodeJS.ProcessEnv, body: SpooledSpeech['body']): void {
  const path = spoolPath(env);
  const line = `${JSON.stringify({ body, at: Date.now() } satisfies SpooledSpeech)}\n`;
  const fd = openSpool(path);
  try {
    const st = fstatSync(fd);
    if (st.size + Buffer.byteLength(line) > SPOOL_MAX_BYTES) {
      throw new ClientError(
        'VOX_ERR_CLIENT_REMOTE_SPOOL_FULL',
        `the link to the remote voxd is down and its spool (${path}) is full (${SPOOL_MAX_BYTES} bytes); this speech is not kept. Run "vox remote connect" to restore the link`,
      );
    }
    // One write of one line with O_APPEND: concurrent clients never interleave.
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/** The spool opened to append: non-blocking and without following a link (a FIFO or a link planted there never hangs a hook), a regular file. */
function openSpool(path: string): number {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (err) {
    throw new ClientError(
      'VOX_ERR_CLIENT_REMOTE_DOWN',
      `the link to the remote voxd is down and its spool (${path}) cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); this speech is not kept`,
    );
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new ClientError(
      'VOX_ERR_CLIENT_REMOTE_DOWN',
      `the link to the remote voxd is down and its spool (${path}) is not a regular file; this speech is not kept. Remove it`,
    );
  }
  return fd;
}

/** Whether anything waits in the spool (a cheap stat: the keeper asks every second). */
export function spoolWaiting(env: NodeJS.ProcessEnv): boolean {
  for (const p of [spoolPath(env), `${spoolPath(env)}.sending`]) {
    try {
      const st = statSync(p);
      if (st.isFile() && st.size > 0) return true;
    } catch {
      // absent
    }
  }
  return false;
}

/** How many requests wait in the spool, and their bytes (status and doctor; read capped at the spool's own cap). */
export function spoolDepth(env: NodeJS.ProcessEnv): { entries: number; bytes: number } {
  let entries = 0;
  let bytes = 0;
  for (const p of [spoolPath(env), `${spoolPath(env)}.sending`]) {
    const read = readRegularFile(p, { maxBytes: 2 * SPOOL_MAX_BYTES });
    if (!read.ok) continue;
    bytes += Buffer.byteLength(read.text);
    entries += read.text.split('\n').filter((l) => l.trim()).length;
  }
  return { entries, bytes };
}

/** Take the spool's entries (renamed away first, so entries spooled meanwhile wait for the next drain). */
export function takeSpool(env: NodeJS.ProcessEnv): SpooledSpeech[] {
  const path = spoolPath(env);
  const taken = `${path}.sending`;
  try {
    renameSync(path, taken);
  } catch {
    // nothing new; a .sending left by a keeper that died is still taken below
  }
  // Capped and non-blocking like the other files in VOX_HOME; what is not a spool vox wrote is dropped, and said.
  const read = readRegularFile(taken, { maxBytes: 2 * SPOOL_MAX_BYTES });
  if (!read.ok) {
    if (read.problem !== 'missing') {
      try {
        rmSync(taken, { force: true });
      } catch {
        // a directory: spoolWaiting() passes over it from now on
      }
      throw new Error(`the spool ${taken} ${read.why}: removed, unsent`);
    }
    return [];
  }
  const text = read.text;
  rmSync(taken, { force: true });
  const out: SpooledSpeech[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as SpooledSpeech;
      if (e && typeof e.body?.requestId === 'string') out.push(e);
    } catch {
      // a torn last line (a client killed mid-write): skipped
    }
  }
  return out;
}

/** Put back what could not be sent (the link dropped again), ahead of nothing: order within a session holds by time. */
export function returnToSpool(env: NodeJS.ProcessEnv, entries: SpooledSpeech[]): void {
  if (entries.length === 0) return;
  const fd = openSpool(spoolPath(env));
  try {
    writeSync(fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  } finally {
    closeSync(fd);
  }
}
