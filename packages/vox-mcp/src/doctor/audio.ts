/**
 * The audio checks. When voxd is running and its device sink reports ok, the
 * device is not probed again (a probe could collide with playback); when voxd
 * writes to a file or discards audio, a missing device is only a warning.
 */
import { PLAYERS, type Check, type DaemonView, type DoctorOptions, type PlayerName } from './check.js';

/** Sinks that need a sound device (or sound server). */
function usesDevice(sink: string): boolean {
  return sink === 'speaker' || sink === 'audioio' || sink.startsWith('auto') || sink.startsWith('command');
}

export async function audioChecks(opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'probeSpeaker' | 'probePlayer'>>, view: DaemonView): Promise<Check[]> {
  const { env } = opts;
  const checks: Check[] = [];
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
        fix: 'see "audio device" below; to force a player set VOXD_AUDIO=command:paplay (or aplay, pw-play) for voxd, then "vox daemon restart"',
      });
    } else {
      checks.push({ name: 'audio (voxd)', level: 'ok', detail: `${sink.name}${sink.detail ? `: ${sink.detail}` : ''}` });
      // voxd plays through the device and says it works: probing it again could collide with playback.
      if (needsDevice) return checks;
    }
  } else {
    const spec = env.VOXD_AUDIO || 'auto';
    needsDevice = usesDevice(spec);
    why = env.VOXD_AUDIO ? `VOXD_AUDIO=${spec}` : 'voxd will use audio-io, then speaker, then a player (VOXD_AUDIO unset)';
  }

  const found = PLAYERS.filter((p) => p !== 'afplay' || opts.platform === 'darwin')
    .map((p) => ({ player: p, path: opts.which(p, env) }))
    .filter((p): p is { player: PlayerName; path: string } => p.path !== undefined);
  const [speaker, ...players] = await Promise.all([opts.probeSpeaker(env), ...found.map((p) => opts.probePlayer(p.player, p.path, env))]);
  const working = found.filter((_, i) => players[i]!.ok).map((p) => p.player);
  const playerText = found.length
    ? found.map((p, i) => (players[i]!.ok ? `${p.player} works` : players[i]!.detail)).join('; ')
    : `no player command on PATH (looked for ${PLAYERS.filter((p) => p !== 'afplay' || opts.platform === 'darwin').join(', ')})`;
  if (speaker!.ok) {
    checks.push({ name: 'audio device', level: 'ok', detail: `${speaker!.detail}; ${playerText}` });
  } else if (working.length) {
    checks.push({ name: 'audio device', level: 'ok', detail: `speaker: ${speaker!.detail}; voxd falls back to ${working[0]}; ${playerText}` });
  } else {
    checks.push({
      name: 'audio device',
      level: needsDevice ? 'fail' : 'warn',
      detail: `no audio output works here: speaker: ${speaker!.detail}; ${playerText}${needsDevice ? '' : ` (not needed now: ${why})`}`,
      fix:
        opts.platform === 'darwin'
          ? 'check the output device in System Settings > Sound'
          : 'connect a sound card or start a sound server (PipeWire/PulseAudio) and install its player (pulseaudio-utils for paplay, or alsa-utils for aplay); on a headless machine use VOXD_AUDIO=file:DIR or VOXD_AUDIO=null',
    });
  }
  return checks;
}
