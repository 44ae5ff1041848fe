/**
 * The test recorder (test/fixtures/listen/arecord): voxd runs it as its
 * recorder; a test steers it through a control file in the voxd's home
 * (mic.json: what to play, modes) and learns its pid from mic.pid.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, waitFor } from './daemon.js';

export const RECORDER_SHIM = join(FIXTURES, 'listen', 'arecord');

/** A voxd's environment that records with the shim, steered from `home`. */
export function micEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    VOXD_RECORDER: RECORDER_SHIM,
    VOX_TEST_MIC_CONTROL: join(home, 'mic.json'),
    VOX_TEST_MIC_PIDFILE: join(home, 'mic.pid'),
    ...extra,
  };
}

/** What the next recording plays (the shim's modes and timings), and forget the last one's pid. */
export function setMic(home: string, settings: object = {}): void {
  writeFileSync(join(home, 'mic.json'), JSON.stringify(settings));
  rmSync(join(home, 'mic.pid'), { force: true });
}

/** The pid of the recording that started after the last setMic. */
export function micPid(home: string): Promise<number> {
  return waitFor(
    () => {
      const f = join(home, 'mic.pid');
      return existsSync(f) ? Number(readFileSync(f, 'utf8').split(' ')[0]) || undefined : undefined;
    },
    20_000,
    'the recorder to start',
  );
}
