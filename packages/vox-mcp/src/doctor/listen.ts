/**
 * The voice-input checks: the recorder voxd would run, the transcriber it
 * would send the recording to, the local recognizer and Silero VAD model in
 * VOX_HOME (and whether the settings use them), and who holds the microphone.
 *
 * Voice input is optional, so nothing here fails: a missing recorder or an
 * unreachable transcriber warns (vox listen would fail), an unset transcriber
 * is ok (listen keeps the recording). The settings are those of voxd's
 * settings file, which every voxd reads (an auto-started one ignores the
 * VOXD_* variables); the recorder is looked for on this shell's PATH.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { homePaths, parseKeysFile, voxHome } from '@vox/protocol';
import { ASR_FILES, ASR_MANIFEST, asrModelsDir, isAsrType } from '@vox/protocol/models';
import type { Check, DaemonView, DoctorOptions, TranscriberProbe } from './check.js';
import { floorState, isVoiceBargeIn } from '../client/listening.js';

export interface ListenSettings {
  recorder: string;
  transcriberUrl: string;
  /** transcriber.kind and listen.vad; default auto. */
  transcriberKind?: string;
  vad?: string;
}

const RECORDER_FIX =
  '"apt-get install alsa-utils" (arecord) or "apt-get install sox" (rec; "brew install sox" on macOS), or "vox daemon config set listen.recorder /ABSOLUTE/PATH/arecord"';

export async function recorderCheck(
  opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'captureDevices'>>,
  settings: ListenSettings,
): Promise<Check> {
  const setting = settings.recorder;
  const names =
    setting === 'auto' ? (opts.platform === 'linux' ? ['arecord', 'rec', 'sox'] : ['rec', 'sox']) : [setting];
  for (const name of names) {
    const path = opts.which(name, opts.env);
    if (!path) continue;
    const what = `${path}${setting === 'auto' ? '' : ' (listen.recorder)'}, as this shell's PATH has it`;
    // A recorder with nothing to record from fails at "vox listen" (VOX_ERR_MIC_UNAVAILABLE).
    const capture = await opts.captureDevices(opts.env, opts.platform);
    if (capture.unknown || capture.devices.length)
      return {
        name: 'recorder',
        level: 'ok',
        detail: capture.unknown ? what : `${what}; capture: ${capture.devices.join(', ')}`,
      };
    return {
      name: 'recorder',
      level: 'warn',
      detail: `no capture device: ${what}, but there is no microphone to record from (looked in ${capture.looked}), so "vox listen" cannot record`,
      fix: captureFix(opts),
    };
  }
  return {
    name: 'recorder',
    level: 'warn',
    detail:
      setting === 'auto'
        ? `none of ${names.join(', ')} is on PATH: "vox listen" cannot record`
        : `listen.recorder ${setting} is not an executable file: "vox listen" cannot record`,
    fix: RECORDER_FIX,
  };
}

/** What to do without a capture device, naming only the commands this machine has. */
function captureFix(opts: Required<Pick<DoctorOptions, 'env' | 'which'>>): string {
  const list = opts.which('arecord', opts.env)
    ? '"arecord -l" lists the cards that can record'
    : '"arecord -l" (alsa-utils) lists the cards that can record';
  const server = opts.which('pactl', opts.env) ? ', "pactl list short sources" the sound server\'s' : '';
  return `connect a microphone or a headset (${list}${server}); in a container or VM, pass the host's sound device or sound server through`;
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

export async function transcriberCheck(
  env: NodeJS.ProcessEnv,
  settings: ListenSettings,
  probe: (url: string) => Promise<TranscriberProbe>,
): Promise<Check> {
  const url = settings.transcriberUrl;
  if (!url && settings.transcriberKind !== 'server' && hasRecognizer(env)) {
    return {
      name: 'transcriber',
      level: 'ok',
      detail: 'not set (optional): the local recognizer transcribes (the "recognizer" check)',
    };
  }
  if (!url) {
    return {
      name: 'transcriber',
      level: 'ok',
      detail:
        'not set (optional): "vox listen" records and keeps the WAV without a transcript; "vox daemon config set transcriber.url http://127.0.0.1:8080/v1" sets one',
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
  if (!s)
    return {
      name: 'microphone',
      level: 'ok',
      detail: view.health ? 'voxd did not say (no status)' : 'voxd is not running, so it holds no microphone',
    };
  if (s.listening === undefined)
    return { name: 'microphone', level: 'ok', detail: `voxd ${s.version} does not report who holds the microphone` };
  if (s.listening === null) return { name: 'microphone', level: 'ok', detail: 'free: voxd is not listening' };
  if (isVoiceBargeIn(s.listening)) {
    return {
      name: 'microphone',
      level: 'ok',
      detail:
        'open while vox speaks: listen.bargeIn is voice, so voxd listens for your voice to cut the utterance (use a headset: on loudspeakers vox hears itself); a "vox listen" gets the microphone once the speech ends; "vox daemon config set listen.bargeIn off" and "vox daemon restart" stop it',
    };
  }
  const who = s.listening.session ? `session ${s.listening.session}` : 'a listen without a session';
  const state = floorState(s.listening);
  return {
    name: 'microphone',
    level: 'ok',
    detail: `held by ${who} (${s.listening.id})${state ? `, ${state}` : ''}: another "vox listen" waits its turn (--wait); "vox stop" ends it`,
  };
}

/** Whether any directory of VOX_HOME/asr holds a recognizer manifest. */
function hasRecognizer(env: NodeJS.ProcessEnv): boolean {
  try {
    const root = asrModelsDir(voxHome(env));
    return readdirSync(root).some((n) => !n.startsWith('.') && existsSync(join(root, n, ASR_MANIFEST)));
  } catch {
    return false;
  }
}

/** Whether sherpa-onnx-node (which runs the recognizer and Silero VAD in voxd) resolves from here; the problem, or undefined. */
function sherpaProblem(env: NodeJS.ProcessEnv): string | undefined {
  try {
    createRequire(import.meta.url).resolve(env.VOXD_SHERPA_MODULE ?? 'sherpa-onnx-node');
    return undefined;
  } catch {
    return 'sherpa-onnx-node is not installed beside vox, so voxd cannot run it';
  }
}

/**
 * The local recognizer in VOX_HOME/asr (the first by name, as voxd picks it):
 * its manifest and the files its type needs are there, and sherpa-onnx-node
 * resolves. Doctor does not load the model (a Whisper one is 100 MB); voxd
 * does at the first listen. Which transcriber is in use follows transcriber.kind.
 */
export function recognizerCheck(env: NodeJS.ProcessEnv, settings: ListenSettings): Check {
  const kind = settings.transcriberKind ?? 'auto';
  const root = asrModelsDir(voxHome(env));
  let names: string[] = [];
  try {
    names = readdirSync(root)
      .filter((n) => !n.startsWith('.'))
      .sort();
  } catch {
    // No asr directory: no model.
  }
  for (const name of names) {
    const dir = join(root, name);
    let m: { type?: unknown; files?: Record<string, unknown> };
    try {
      if (statSync(join(dir, ASR_MANIFEST)).size > 64 * 1024) throw new Error('too large');
      m = JSON.parse(readFileSync(join(dir, ASR_MANIFEST), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return {
        name: 'recognizer',
        level: 'warn',
        detail: `${join(dir, ASR_MANIFEST)} is not a readable manifest: "vox listen" fails with it`,
        fix: `"vox voices install ${name} --force", or remove ${dir}`,
      };
    }
    if (!isAsrType(m.type))
      return {
        name: 'recognizer',
        level: 'warn',
        detail: `${name}: type ${String(JSON.stringify(m.type)).slice(0, 40)} is not one voxd runs`,
        fix: `remove ${dir}`,
      };
    const missing = ASR_FILES[m.type].filter((k) => {
      const rel = m.files?.[k];
      try {
        return typeof rel !== 'string' || !statSync(join(dir, rel)).isFile();
      } catch {
        return true;
      }
    });
    if (missing.length)
      return {
        name: 'recognizer',
        level: 'warn',
        detail: `${name} (${m.type}) lacks its ${missing.join(', ')} file: "vox listen" fails with it`,
        fix: `"vox voices install ${name} --force"`,
      };
    const sherpa = sherpaProblem(env);
    if (sherpa) return { name: 'recognizer', level: 'warn', detail: `${name} (${m.type}) is installed, but ${sherpa}` };
    const use =
      kind === 'server'
        ? 'not in use: transcriber.kind is server'
        : `in use (transcriber.kind ${kind}): "vox listen" transcribes in voxd, nothing leaves the machine`;
    return { name: 'recognizer', level: 'ok', detail: `${name} (${m.type}) in ${dir}, its files present; ${use}` };
  }
  if (kind === 'local')
    return {
      name: 'recognizer',
      level: 'warn',
      detail: `transcriber.kind is local, but no model is installed in ${root}: "vox listen" fails`,
      fix: '"vox voices install whisper-tiny.en-int8"',
    };
  return {
    name: 'recognizer',
    level: 'ok',
    detail: `none installed (optional): "vox voices install whisper-tiny.en-int8" transcribes offline, in voxd`,
  };
}

/** Silero VAD's model (VOX_HOME/vad/silero_vad.onnx) and whether listen.vad uses it. */
export function vadCheck(env: NodeJS.ProcessEnv, settings: ListenSettings): Check {
  const mode = settings.vad ?? 'auto';
  const file = join(voxHome(env), 'vad', 'silero_vad.onnx');
  let size: number | undefined;
  try {
    size = statSync(file).size;
  } catch {
    // Not installed.
  }
  if (size === undefined) {
    if (mode === 'silero')
      return {
        name: 'vad',
        level: 'warn',
        detail: `listen.vad is silero, but ${file} is missing: "vox listen" fails`,
        fix: 'install the model (docs/talk-back.md, "Offline speech-to-text"), or "vox daemon config set listen.vad auto"',
      };
    return {
      name: 'vad',
      level: 'ok',
      detail: `energy (listen.vad ${mode}; Silero VAD's model is not installed in ${file})`,
    };
  }
  const sherpa = sherpaProblem(env);
  if (sherpa && mode !== 'energy')
    return { name: 'vad', level: 'warn', detail: `Silero VAD's model is in ${file}, but ${sherpa}` };
  return {
    name: 'vad',
    level: 'ok',
    detail:
      mode === 'energy'
        ? `energy (listen.vad energy; Silero VAD's model is present in ${file}, unused)`
        : `Silero VAD (listen.vad ${mode}), ${file} (${size} bytes)`,
  };
}
