/**
 * `vox doctor`'s line on the vox mod (plugin/hooks/vox-mod.tsx): whether the
 * Claude Code found loads it, or why it is skipped.
 *
 * Design notes:
 * - The mod ships in the vox plugin, so it needs the plugin installed and
 *   enabled, and a Claude Code with mods: 2.1.287 and later. An older one
 *   runs the plugin's hooks and tools and leaves `modules` alone.
 * - What turns mods off that doctor can see, read from Claude Code's files
 *   with the same bounded reader as the plugin's state: an organization's
 *   managed settings (`allowManagedModsOnly` in a policy plugin's options:
 *   only the organization's mods run; `disableAllHooks`), the user's
 *   `disableAllHooks`, and `VOX_CLAUDE_MOD=off`, vox's own switch. What it
 *   cannot see is said in the line: `--safe-mode` is a flag of each run.
 */
import { join } from 'node:path';
import { compareVersions } from '@vox/protocol';
import type { ClaudeCode } from '../claude/claude-code.js';
import { claudeDir, readJson, type PluginState } from '../claude/plugin-state.js';
import { isObject } from '../hooks/settings-file.js';
import type { Check } from './check.js';

export const MODS_SINCE = '2.1.287';

/** Where Claude Code reads an organization's managed settings, by platform. */
export function managedSettingsFiles(platform: NodeJS.Platform = process.platform): string[] {
  const dir =
    platform === 'darwin'
      ? '/Library/Application Support/ClaudeCode'
      : platform === 'win32'
        ? 'C:\\Program Files\\ClaudeCode'
        : '/etc/claude-code';
  return [join(dir, 'managed-settings.json')];
}

/** Whether a policy plugin's options say `allowManagedModsOnly: true`. */
function managedModsOnly(settings: Record<string, unknown>): boolean {
  const configs = isObject(settings.pluginConfigs) ? settings.pluginConfigs : {};
  return Object.values(configs).some(
    (c) => isObject(c) && isObject(c.options) && c.options.allowManagedModsOnly === true,
  );
}

function read(path: string): Record<string, unknown> | undefined {
  try {
    return readJson(path);
  } catch {
    return undefined;
  }
}

export function modCheck(
  found: ClaudeCode | undefined,
  plugin: PluginState,
  env: NodeJS.ProcessEnv,
  managed: string[] = managedSettingsFiles(),
): Check {
  const name = 'claude mod';
  const skip = (detail: string): Check => ({ name, level: 'skip', detail: `the vox mod is skipped: ${detail}` });
  if (!found) return skip('Claude Code is not installed');
  if (!found.version) return skip(`the version of ${found.path} is unknown (mods need ${MODS_SINCE} or later)`);
  if (compareVersions(found.version, MODS_SINCE) < 0)
    return skip(
      `Claude Code ${found.version} has no mods (${MODS_SINCE} and later); the plugin's hooks and tools work without it`,
    );
  if (!plugin.active) return skip('the vox plugin is not installed and enabled, and the mod comes with it');
  if (env.VOX_CLAUDE_MOD === 'off') return skip('VOX_CLAUDE_MOD=off');
  for (const path of managed) {
    const settings = read(path);
    if (!settings) continue;
    if (managedModsOnly(settings))
      return skip(`your organization allows only its own mods (allowManagedModsOnly in ${path})`);
    if (settings.disableAllHooks === true)
      return skip(`your organization turned hooks off (disableAllHooks in ${path})`);
  }
  const user = join(claudeDir(env), 'settings.json');
  if (read(user)?.disableAllHooks === true) return skip(`hooks are off (disableAllHooks in ${user})`);
  return {
    name,
    level: 'ok',
    detail: `Claude Code ${found.version} loads the vox mod in each interactive session (mods: ${MODS_SINCE} and later; not under --safe-mode): a band and a status item from voxd, /vox-stop, /vox-talk`,
  };
}
