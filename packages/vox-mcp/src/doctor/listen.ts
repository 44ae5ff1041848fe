/**
 * The voice-input checks: the recorder voxd would run, the transcriber it
 * would send the recording to, and who holds the microphone now.
 *
 * Voice input is optional, so nothing here fails: a missing recorder or an
 * unreachable transcriber warns (vox listen would fail), an unset transcriber
 * is ok (listen keeps the recording). The settings are those of voxd's
 * settings file, which every voxd reads (an auto-started one ignores the
 * VOXD_* variables); the recorder is looked for on this shell's PATH.
 */
import { readFileSync } from 'node:fs';
import { homePaths, parseKeysFile, voxHome } from '@vox/protocol';
import type { Check, DaemonView, DoctorOptions, TranscriberProbe } from './check.js';
import { floorState } from '../daemon/listening.js';

export interface ListenSettings {
  recorder: string;
  transcriberUrl: string;
}

const RECORDER_FIX = '"apt-get install alsa-utils" (arecord) or "apt-get install sox" (rec; "brew install sox" on macOS), or "vox daemon config set listen.recorder /ABSOLUTE/PATH/arecord"';

export function recorderCheck(opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which'>>, settings: ListenSettings): Check {
  const setting = settings.recorder;
  const names = setting === 'auto' ? (opts.platform === 'linux' ? ['arecord', 'rec', 'sox'] : ['rec', 'sox']) : [setting];
  for (const name of names) {
    const path = opts.which(name, opts.env);
    if (path) return { name: 'recorder', level: 'ok', detail: `${path}${setting === 'auto' ? '' : ' (listen.recorder)'}, as this shell's PATH has it` };
  }
  return {
    name: 'recorder',
    level: 'warn',
    detail: setting === 'auto' ? `none of ${names.join(', ')} is on PATH: "vox listen" cannot record` : `listen.recorder ${setting} is not an executable file: "vox listen" cannot record`,
    fix: RECORDER_FIX,
  };
}

/** Whether a key for the transcriber is set (its value is never read out). */
function hasKey(env: NodeJS.ProcessEnv, url: string): boolean {
  const names = ['TRANSCRIBER_API_KEY', ...(/^https:\/\/api\.openai\.com(?:\/|$)/.test(url) ? ['OPENAI_API_KEY'] : [])];
  if (names.some((n) => env[n]?.trim())) return true;
  try {
    const { values } = parseKeysFile(readFileSync(homePaths(voxHome(env)).keys, 'utf8'));
    return names.some((n) => values.get(n)?.trim());
  } catch {
    return false;
  }
}

const LOOPBACK = /^https?:\/\/(?:127\.[\d.]+|localhost|\[::1\])(?::\d+)?(?:\/|$)/i;

export async function transcriberCheck(env: NodeJS.ProcessEnv, settings: ListenSettings, probe: (url: string) => Promise<TranscriberProbe>): Promise<Check> {
  const url = settings.transcriberUrl;
  if (!url) {
    return {
      name: 'transcriber',
      level: 'ok',
      detail: 'not set (optional): "vox listen" records and keeps the WAV without a transcript; "vox daemon config set transcriber.url http://127.0.0.1:8080/v1" sets one',
    };
  }
  const answer = await probe(url);
  if ('error' in answer) {
    return {
      name: 'transcriber',
      level: 'warn',
      detail: `nothing answers at ${url} (${answer.error}): "vox listen" records but cannot transcribe`,
      fix: `start the server, or point voxd at another: "vox daemon config set transcriber.url URL", then "vox daemon restart"`,
    };
  }
  if (!LOOPBACK.test(url) && !hasKey(env, url)) {
    return {
      name: 'transcriber',
      level: 'warn',
      detail: `${url} answers (HTTP ${answer.status}), but no TRANSCRIBER_API_KEY is set (environment or VOX_HOME/keys.env)`,
      fix: `add "TRANSCRIBER_API_KEY=..." to ${homePaths(voxHome(env)).keys} (chmod 600)`,
    };
  }
  return { name: 'transcriber', level: 'ok', detail: `${url} answers (HTTP ${answer.status} to GET /models)` };
}

/** Who holds voxd's microphone, as voxd's status says. */
export function microphoneCheck(view: DaemonView): Check {
  const s = view.status;
  if (!s) return { name: 'microphone', level: 'ok', detail: view.health ? 'voxd did not say (no status)' : 'voxd is not running, so it holds no microphone' };
  if (s.listening === undefined) return { name: 'microphone', level: 'ok', detail: `voxd ${s.version} does not report who holds the microphone` };
  if (s.listening === null) return { name: 'microphone', level: 'ok', detail: 'free: voxd is not listening' };
  const who = s.listening.session ? `session ${s.listening.session}` : 'a listen without a session';
  const state = floorState(s.listening);
  return { name: 'microphone', level: 'ok', detail: `held by ${who} (${s.listening.id})${state ? `, ${state}` : ''}: another "vox listen" waits its turn (--wait); "vox stop" ends it` };
}
