/**
 * VOX_HOME/voxd.stopped: "vox daemon stop|restart" writes it before it
 * signals voxd, and the next voxd removes it once it listens. A client whose
 * waiting request was cut by that voxd going away reads it before it starts a
 * voxd of its own: after a stop it tells its caller instead (a deliberate stop
 * is not undone by a waiter), after a restart it waits for the new voxd
 * instead of racing the restart for the port.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStoppedMarker, readRegularFile, STOPPED_FILE, voxHome, type StoppedMarker } from '@vox/protocol';

/** A marker older than this is left over (the command that wrote it died): ignored. */
const MARKER_TTL_MS = 60_000;

export function readStopMarker(env: NodeJS.ProcessEnv, now = Date.now()): StoppedMarker | undefined {
  const read = readRegularFile(join(voxHome(env), STOPPED_FILE), { maxBytes: 4096 });
  if (!read.ok) return undefined;
  const marker = parseStoppedMarker(read.text);
  return marker && now - marker.at < MARKER_TTL_MS && marker.at <= now + 1000 ? marker : undefined;
}

/** Best effort: without it (an unwritable VOX_HOME) a waiter may start a voxd again, as before. */
export function writeStopMarker(env: NodeJS.ProcessEnv, reason: StoppedMarker['reason'], pid?: number): void {
  const path = join(voxHome(env), STOPPED_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify({ reason, ...(pid ? { pid } : {}), at: Date.now() })}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    // rename: never writes through a link or into a FIFO someone put there.
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
  }
}

export function clearStopMarker(env: NodeJS.ProcessEnv): void {
  rmSync(join(voxHome(env), STOPPED_FILE), { force: true });
}
