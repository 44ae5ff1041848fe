/**
 * The quiet checks: whether voxd serves the media keys (MPRIS on the session
 * bus) and whether it can tell that another program records from the
 * microphone (pactl, else /proc/asound). Both are optional, so nothing here
 * fails. voxd's own answer (GET /v1/status `quiet`) wins: its environment is
 * the one that counts; without it, this shell's is the best guess.
 */
import { existsSync } from 'node:fs';
import type { QuietStatus } from '@vox/protocol';
import type { Check, DaemonView } from './check.js';

export function quietChecks(
  view: DaemonView,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  which: (name: string, env: NodeJS.ProcessEnv) => string | undefined,
): Check[] {
  const quiet = (view.status as { quiet?: QuietStatus } | undefined)?.quiet;
  return [mediaKeys(quiet, env, platform), micWatch(quiet, env, platform, which)];
}

function mediaKeys(quiet: QuietStatus | undefined, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Check {
  const name = 'media keys';
  if (quiet)
    return quiet.mpris.available
      ? { name, level: 'ok', detail: `MPRIS (org.mpris.MediaPlayer2.vox): ${quiet.mpris.detail}` }
      : { name, level: 'ok', detail: `not served: ${quiet.mpris.detail}`, fix: keysFix(platform) };
  if (platform !== 'linux') return { name, level: 'ok', detail: 'no MPRIS off Linux', fix: keysFix(platform) };
  return env.DBUS_SESSION_BUS_ADDRESS
    ? { name, level: 'ok', detail: 'a session bus exists: voxd serves MPRIS while it speaks (voxd not asked)' }
    : {
        name,
        level: 'ok',
        detail: 'no session bus (DBUS_SESSION_BUS_ADDRESS is not set): voxd does not serve MPRIS',
        fix: keysFix(platform),
      };
}

function micWatch(
  quiet: QuietStatus | undefined,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  which: (name: string, env: NodeJS.ProcessEnv) => string | undefined,
): Check {
  const name = 'mic watch';
  if (quiet) {
    const { watch, detail } = quiet.microphone;
    const held = quiet.held ? `; holding speech: ${quiet.reasons.map((r) => r.detail).join('; ')}` : '';
    return watch === 'none' && platform === 'linux' && !detail.startsWith('off')
      ? { name, level: 'warn', detail: `${detail}${held}`, fix: 'install pactl ("apt-get install pulseaudio-utils")' }
      : { name, level: 'ok', detail: `${watch}: ${detail}${held}` };
  }
  if (platform !== 'linux') return { name, level: 'ok', detail: 'no microphone watch off Linux' };
  if (which('pactl', env)) return { name, level: 'ok', detail: 'pactl: capture streams of PulseAudio or PipeWire' };
  if (existsSync('/proc/asound')) return { name, level: 'ok', detail: 'alsa: capture devices in /proc/asound' };
  return {
    name,
    level: 'warn',
    detail: 'no pactl and no /proc/asound: vox cannot tell that another program records',
    fix: 'install pactl ("apt-get install pulseaudio-utils")',
  };
}

const keysFix = (platform: NodeJS.Platform) =>
  `bind keys to "vox stop", "vox replay", "vox recap" and "vox talk" (docs/keys.md${platform === 'darwin' ? ', macOS' : ''})`;
