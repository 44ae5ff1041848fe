/**
 * Speech accepted on host B while the link to A is down: one JSON line per
 * speak request, with its requestId, in VOX_HOME/remote-spool.jsonl (0600).
 * Bounded; the keeper (`vox remote connect`) sends it once the link is back,
 * and voxd's requestId join drops any request that had in fact arrived.
 */
import { appendFileSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { voxHome } from '@vox/protocol';
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
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // absent: empty
  }
  if (size + Buffer.byteLength(line) > SPOOL_MAX_BYTES) {
    throw new ClientError('VOX_ERR_CLIENT_REMOTE_SPOOL_FULL', `the link to the remote voxd is down and its spool (${path}) is full (${SPOOL_MAX_BYTES} bytes); this speech is not kept. Run "vox remote connect" to restore the link`);
  }
  // One write of one line with O_APPEND: concurrent clients never interleave.
  appendFileSync(path, line, { mode: 0o600 });
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
  let text = '';
  try {
    text = readFileSync(taken, 'utf8');
  } catch {
    return [];
  }
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
  appendFileSync(spoolPath(env), entries.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
}
