/**
 * The probes `vox doctor` runs by default (each is injectable: DoctorOptions).
 * The audio device is probed the way voxd does it: `speaker` in a child
 * process (it aborts its process when there is no sound card), then each
 * player command with a few milliseconds of silence.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findExecutable } from '@vox/protocol';
import type { AudioIoProbe, CaptureProbe, PlayerName, ProbeResult, TranscriberProbe } from './check.js';

const PROBE_TIMEOUT_MS = 5000;

/** The full path of an executable on env.PATH, looking at the file system only (the default probe). */
export function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(name, env);
}

/** Resolves a voxd file the way client.ts does: createRequire works in the ESM build and in the bundled CJS bin. */
function resolveVoxd(specifier: string): string {
  return createRequire(import.meta.url).resolve(specifier);
}

function voxdEntry(env: NodeJS.ProcessEnv): string {
  return env.VOXD_BIN || resolveVoxd('voxd/main');
}

/** Runs a child with a time limit; resolves with its exit and the tail of its stderr. Never rejects. */
function runChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: Buffer,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    } catch (err) {
      resolve({ code: null, signal: null, stderr: '', error: (err as Error).message });
      return;
    }
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stderr, error: err.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
    if (input && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
  });
}

/** The last meaningful stderr line, shortened. */
function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** voxd's speaker child with --probe, as voxd runs it at start. */
export async function probeSpeaker(env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  let child: string;
  try {
    child = resolveVoxd('voxd/sinks/speaker-child');
  } catch (err) {
    return { ok: false, detail: `voxd's speaker probe was not found (${(err as Error).message})` };
  }
  const r = await runChild(process.execPath, [child, '--probe'], env);
  if (r.code === 0) return { ok: true, detail: 'the speaker module opened the default device' };
  if (r.error) return { ok: false, detail: r.error };
  if (r.signal === 'SIGABRT') return { ok: false, detail: 'speaker could not open the audio device (no sound card?)' };
  if (r.signal === 'SIGKILL')
    return { ok: false, detail: `speaker did not finish within ${PROBE_TIMEOUT_MS / 1000} s` };
  if (r.code === 3)
    return {
      ok: false,
      detail: 'the optional speaker module is not installed (it needs libasound2-dev to build on Linux)',
    };
  return { ok: false, detail: lastLine(r.stderr) || `speaker probe exited with ${r.code ?? r.signal}` };
}

/** The probe run in the child: open the default output as voxd's audioio sink does, close it, say why not. */
const AUDIO_IO_PROBE = `
try {
  const { createAudioOutput } = await import(process.argv[1]);
  const out = await createAudioOutput({ sampleRate: 22050, channelCount: 1, bufferDuration: 20 }, () => {});
  await out.dispose();
  process.exit(0);
} catch (err) {
  process.stderr.write('\\nvox-probe: ' + String((err && err.message) || err).split('\\n')[0] + '\\n');
  process.exit(4);
}`;

/**
 * voxd's first output, @echogarden/audio-io, opening the default device in a
 * child (a native addon: a crash there must not be doctor's). ALSA writes its
 * own reason on stderr ("Unknown PCM default"), which the detail keeps.
 */
export async function probeAudioIo(env: NodeJS.ProcessEnv): Promise<AudioIoProbe> {
  let mod: string;
  try {
    mod = createRequire(voxdEntry(env)).resolve('@echogarden/audio-io');
  } catch {
    return {
      ok: false,
      cause: 'module',
      detail: '@echogarden/audio-io (an optional dependency of voxd) is not installed beside voxd',
    };
  }
  const r = await runChild(
    process.execPath,
    ['--input-type=module', '-e', AUDIO_IO_PROBE, pathToFileURL(mod).href],
    env,
  );
  if (r.code === 0) return { ok: true, detail: 'audio-io opened the default device' };
  if (r.error) return { ok: false, detail: `audio-io probe: ${r.error}` };
  if (r.signal === 'SIGKILL')
    return {
      ok: false,
      detail: `audio-io did not open the device within ${PROBE_TIMEOUT_MS / 1000} s (a hung driver or sound server?)`,
    };
  const lines = r.stderr.split('\n');
  const why =
    lines
      .filter((l) => l.startsWith('vox-probe: '))
      .pop()
      ?.slice(11) ?? lastLine(r.stderr);
  const lib = /(lib[\w.-]+\.so[\d.]*): cannot open shared object file/.exec(why);
  if (lib) return { ok: false, cause: 'library', detail: `${lib[1]} is missing, so audio-io cannot load` };
  if (why === 'Failed to open audio device') {
    // ALSA's own last word, e.g. "Unknown PCM default" or "cannot find card '0'".
    const alsa = lines
      .filter((l) => l.startsWith('ALSA lib '))
      .map((l) => l.replace(/^ALSA lib [^)]*\)\s*/, ''))
      .pop();
    const what =
      process.platform === 'linux' ? "ALSA could not open 'default'" : 'the system could not open its default output';
    return {
      ok: false,
      cause: 'device',
      detail: `no sound device: ${what}${alsa ? ` (${alsa.length > 120 ? `${alsa.slice(0, 117)}...` : alsa})` : ''}`,
    };
  }
  return { ok: false, detail: `audio-io: ${why || `exit ${r.code ?? r.signal}`}` };
}

/**
 * GET URL/models, no key sent: whether something answers there, not whether
 * it transcribes. node:http(s), not fetch: fetch refuses ports browsers block
 * (6000, 6665...), where a local server may well listen.
 */
export function probeTranscriber(url: string): Promise<TranscriberProbe> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(`${url.replace(/\/+$/, '')}/models`);
    } catch {
      return resolve({ error: 'not a URL' });
    }
    const get = target.protocol === 'https:' ? httpsGet : httpGet;
    const req = get(target, (res) => {
      clearTimeout(timer);
      resolve({ status: res.statusCode ?? 0 });
      req.destroy();
    });
    // The whole exchange, not the socket's idle time: a server that trickles bytes is cut off too.
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error('no answer within 3 s'), { code: 'ETIMEDOUT' })),
      3000,
    );
    req.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ error: err.code === 'ETIMEDOUT' ? err.message : (err.code ?? err.message) });
    });
  });
}

function playerArgs(player: PlayerName): string[] {
  switch (player) {
    case 'paplay':
      return ['--raw', '--format=s16le', '--rate=22050', '--channels=1'];
    case 'pw-play':
      return ['--format=s16', '--rate=22050', '--channels=1', '-'];
    case 'aplay':
      return ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', '22050', '-c', '1', '-'];
    case 'afplay':
      return [];
  }
}

/** Pipes 10 ms of silence into a player. afplay (macOS, files only) is trusted when present. */
export async function probePlayer(player: PlayerName, path: string, env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  if (player === 'afplay') return { ok: true, detail: `${path} (not probed)` };
  const r = await runChild(path, playerArgs(player), env, Buffer.alloc(441));
  if (r.code === 0) return { ok: true, detail: `${player} played a test silence` };
  if (r.error) return { ok: false, detail: `${player} failed: ${r.error}` };
  const why = lastLine(r.stderr).replace(new RegExp(`^${player}:\\s*`), '');
  return { ok: false, detail: `${player} failed: ${why || `exit ${r.code ?? r.signal}`}` };
}

/** Whether voxd's embedded engine (espeak-ng compiled to JS) is installed beside voxd. */
export function embeddedEngine(env: NodeJS.ProcessEnv = process.env): ProbeResult {
  let entry: string;
  try {
    entry = voxdEntry(env);
  } catch (err) {
    return { ok: false, detail: `voxd is not installed beside vox (${(err as Error).message})` };
  }
  try {
    const pkg = createRequire(entry).resolve('@echogarden/espeak-ng-emscripten/package.json');
    statSync(join(dirname(pkg), 'espeak-ng.data'));
    return { ok: true, detail: 'embedded in voxd, always available' };
  } catch {
    return { ok: false, detail: 'the package @echogarden/espeak-ng-emscripten is missing beside voxd' };
  }
}

/** Whether voxd's optional sherpa-onnx-node resolves beside voxd (file lookup only: the addon loads in voxd, never here). */
export function sherpaModule(env: NodeJS.ProcessEnv = process.env): ProbeResult {
  try {
    const main = createRequire(voxdEntry(env)).resolve('sherpa-onnx-node');
    const platform = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    createRequire(main).resolve(`sherpa-onnx-${platform}/package.json`);
    return { ok: true, detail: 'sherpa-onnx-node is installed beside voxd' };
  } catch {
    return {
      ok: false,
      detail:
        'sherpa-onnx-node (an optional dependency of voxd) is not installed, or has no prebuilt package for this platform',
    };
  }
}

/** A command's stdout (64 kB at most), within PROBE_TIMEOUT_MS; undefined when it fails or takes longer. */
function outputOf(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve(undefined);
      return;
    }
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(0, 64 * 1024)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? out : undefined);
    });
  });
}

/** ALSA's capture devices, as `arecord -l` reads them: /proc/asound/cardN/pcmMc. */
function alsaCaptures(root = '/proc/asound'): string[] | undefined {
  let cards: string[];
  try {
    cards = readdirSync(root).filter((n) => /^card\d+$/.test(n));
  } catch {
    return undefined;
  }
  return cards.flatMap((card) => {
    try {
      return readdirSync(join(root, card))
        .filter((n) => /^pcm\d+c$/.test(n))
        .map((pcm) => `${card.replace('card', 'card ')} device ${pcm.slice(3, -1)}`);
    } catch {
      return [];
    }
  });
}

/**
 * The capture devices a recorder could open: on Linux, ALSA's (/proc/asound)
 * and the sound server's sources (`pactl list short sources`, when pactl is
 * there), monitors of outputs left out. Elsewhere doctor cannot tell.
 */
export async function captureDevices(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Promise<CaptureProbe> {
  if (platform !== 'linux') return { devices: [], looked: 'nothing (only Linux is checked)', unknown: true };
  const alsa = alsaCaptures() ?? [];
  const looked = ['/proc/asound'];
  const pactl = which('pactl', env);
  let sources: string[] = [];
  if (pactl) {
    looked.push('"pactl list short sources"');
    const out = await outputOf(pactl, ['list', 'short', 'sources'], env);
    sources = (out ?? '')
      .split('\n')
      .map((line) => line.split('\t')[1] ?? '')
      .filter((name) => name && !name.endsWith('.monitor'))
      .map((name) => `source ${name}`);
  }
  return { devices: [...alsa, ...sources], looked: looked.join(' and ') };
}
