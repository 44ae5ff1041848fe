/**
 * The audio checks, in voxd's order: audio-io (which needs libasound.so.2 on
 * Linux), then the speaker module, then the player commands. When voxd is
 * running and its device sink reports ok, the device is not probed again (a
 * probe could collide with playback); when voxd writes to a file or discards
 * audio, a missing device is only a warning.
 *
 * The fixes name "vox daemon config set audio ...": a voxd that a client
 * starts takes `audio` from its settings file and ignores VOXD_AUDIO.
 */
import { AUDIO_LIBRARY_FIX } from '@vox/protocol';
import {
  PLAYERS,
  type AudioIoProbe,
  type Check,
  type DaemonView,
  type DoctorOptions,
  type PlayerName,
} from './check.js';

/** Sinks that need a sound device (or sound server). */
function usesDevice(sink: string): boolean {
  return sink === 'speaker' || sink === 'audioio' || sink.startsWith('auto') || sink.startsWith('command');
}

/** What voxd takes its audio setting from: its settings file, else the default. */
export interface AudioSetting {
  value: string;
  fromFile: boolean;
}

const LIBASOUND_FIX = `${AUDIO_LIBRARY_FIX}; voxd tries audio-io again at the next speech`;
const NO_SOUND_FIX =
  'on a machine without sound, write WAV files with "vox daemon config set audio file:/ABSOLUTE/DIR" or discard audio with "vox daemon config set audio null", then "vox daemon restart" if voxd runs';
/** Advice names only the commands this machine has, else the package that brings them. */
function deviceFix(has: (name: string) => boolean): string {
  const list = has('aplay') ? '"aplay -l" lists none' : '"aplay -l", from alsa-utils, lists the cards';
  return `connect a sound card (${list}), or start a sound server (PipeWire or PulseAudio) with its player (apt-get install pulseaudio-utils); ${NO_SOUND_FIX}`;
}

/** The fix for a failing sink: one player that is on PATH, or the packages that bring one. */
function onePlayerFix(found: readonly PlayerName[]): string {
  if (!found.length)
    return 'see "audio-io" and "audio device" below; no player command is on PATH (pulseaudio-utils brings paplay, alsa-utils aplay)';
  return `see "audio-io" and "audio device" below; to use one player, "vox daemon config set audio command:${found[0]}"${found.length > 1 ? ` (or ${found.slice(1).join(', ')})` : ''}, then "vox daemon restart"`;
}
const PLAYER_FIX = `install a player for the sound server (pulseaudio-utils for paplay, alsa-utils for aplay); ${NO_SOUND_FIX}`;

function audioIoCheck(probe: AudioIoProbe, platform: NodeJS.Platform, fixForDevice: string): Check {
  if (probe.ok)
    return {
      name: 'audio-io',
      level: 'ok',
      detail: `${probe.detail}${platform === 'linux' ? ' (libasound.so.2 loads)' : ''}`,
    };
  const fix =
    probe.cause === 'library'
      ? LIBASOUND_FIX
      : probe.cause === 'device'
        ? fixForDevice
        : probe.cause === 'module'
          ? 'run "npm install" in the vox checkout: audio-io comes with it (prebuilt, nothing to compile)'
          : 'see "vox logs" once voxd has tried it';
  return {
    name: 'audio-io',
    level: 'warn',
    detail: `${probe.detail}; voxd goes on to the speaker module and the players`,
    fix,
  };
}

export async function audioChecks(
  opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'probeSpeaker' | 'probePlayer' | 'probeAudioIo'>>,
  view: DaemonView,
  setting: AudioSetting,
): Promise<Check[]> {
  const { env } = opts;
  const checks: Check[] = [];
  const players = PLAYERS.filter((p) => p !== 'afplay' || opts.platform === 'darwin');
  const found = players
    .map((p) => ({ player: p, path: opts.which(p, env) }))
    .filter((p): p is { player: PlayerName; path: string } => p.path !== undefined);
  const fixForDevice = deviceFix((name) => opts.which(name, env) !== undefined);
  const sink = view.status?.sink;
  let needsDevice: boolean;
  let why: string;
  if (sink) {
    needsDevice = usesDevice(sink.name);
    why = `voxd plays to ${sink.name}`;
    if (!sink.ok) {
      checks.push({
        name: 'audio (voxd)',
        level: 'fail',
        detail: `${sink.name} is failing: ${[sink.detail, sink.lastError].filter(Boolean).join('; ')}`,
        fix: onePlayerFix(found.map((p) => p.player)),
      });
    } else {
      checks.push({
        name: 'audio (voxd)',
        level: 'ok',
        detail: `${sink.name}${sink.detail ? `: ${sink.detail}` : ''}`,
      });
      // voxd plays through the device and says it works: probing it again could collide with playback.
      if (needsDevice) return checks;
    }
  } else {
    needsDevice = usesDevice(setting.value);
    why = setting.fromFile
      ? `voxd's settings file sets audio ${setting.value}`
      : 'voxd will use audio-io, then speaker, then a player (audio not set)';
    // An auto-started voxd ignores VOXD_AUDIO: say so rather than let it seem to count.
    if (env.VOXD_AUDIO && env.VOXD_AUDIO !== setting.value)
      why += `; VOXD_AUDIO=${env.VOXD_AUDIO} here reaches only a voxd started from this shell ("vox daemon config set audio ${env.VOXD_AUDIO}" sets it for every voxd)`;
  }

  // audio-io first and alone: on a real card a second opener at the same moment could find it busy.
  const audioIo = await opts.probeAudioIo(env);
  const [speaker, ...tried] = await Promise.all([
    opts.probeSpeaker(env),
    ...found.map((p) => opts.probePlayer(p.player, p.path, env)),
  ]);
  const working = found.filter((_, i) => tried[i]!.ok).map((p) => p.player);
  const playerText = found.length
    ? found.map((p, i) => (tried[i]!.ok ? `${p.player} works` : tried[i]!.detail)).join('; ')
    : `no player command on PATH (looked for ${players.join(', ')})`;
  const io = audioIoCheck(audioIo, opts.platform, fixForDevice);
  checks.push(io);
  if (audioIo.ok || speaker!.ok) {
    checks.push({
      name: 'audio device',
      level: 'ok',
      detail: `${audioIo.ok ? 'audio-io works' : `speaker: ${speaker!.detail}`}; ${playerText}`,
    });
  } else if (working.length) {
    checks.push({
      name: 'audio device',
      level: 'ok',
      detail: `audio-io and speaker fail; voxd falls back to ${working[0]}; ${playerText}`,
    });
  } else {
    // The fix for the first cause: without libasound2 nothing else can work; with it, the device is what is missing.
    const fix =
      opts.platform === 'darwin'
        ? `check the output device in System Settings > Sound; ${NO_SOUND_FIX}`
        : audioIo.cause === 'library'
          ? `${LIBASOUND_FIX}; ${NO_SOUND_FIX}`
          : audioIo.cause === 'device'
            ? fixForDevice
            : PLAYER_FIX;
    // One fix, under the verdict: audio-io's own line points there.
    if (io.fix && fix.startsWith(io.fix)) io.fix = 'the fix under "audio device" below';
    checks.push({
      name: 'audio device',
      level: needsDevice ? 'fail' : 'warn',
      detail: `no audio output works here: audio-io: ${audioIo.detail}; speaker: ${speaker!.detail}; ${playerText}${needsDevice ? '' : ` (not needed now: ${why})`}`,
      fix,
    });
  }
  if (needsDevice && !sink && env.VOXD_AUDIO && env.VOXD_AUDIO !== setting.value) checks.at(-1)!.detail += ` (${why})`;
  return checks;
}
