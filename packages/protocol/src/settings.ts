/**
 * voxd's own settings: one YAML file in the user's config directory
 * (`voxd.yaml`), read at every voxd start, edited by `vox daemon config`.
 *
 * Design notes:
 * - The file decides, not the environment of whichever client happened to
 *   start voxd. `VOXD_*` variables still override it for a voxd run by hand
 *   or by a test harness; clients leave them out when they auto-start voxd.
 * - YAML (the format of `.vox/config.md`), read with the core schema: no tag
 *   can run code, and an unknown tag is a problem, not a string. JSON would
 *   lose the comments a person writes beside a setting.
 * - One strict SCHEMA and one DEFAULTS object; every problem of a file is
 *   collected with its file, line, key, value, the allowed values and the
 *   closest known key. Nothing is silently replaced by its default.
 * - Keys are dotted paths, so a section (`transcriber: {model: ...}`, read as
 *   `transcriber.model`) is one more SCHEMA entry.
 * - This module imports `yaml` (through settings/file.ts), so it is its own
 *   entry (`@vox/protocol/settings`), never loaded on a client's hot path.
 *
 * The parts: settings/schema.ts (the keys, defaults and value checks),
 * settings/problems.ts (what is wrong, and SettingsError), settings/file.ts
 * (where the file lives, reading and parsing it); this module resolves the
 * settings in effect and is the one entry the other packages import.
 */
import { checkSetting, settingFromText, type SettingsProblem } from './settings/problems.js';
import {
  SETTING_KEYS,
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMA,
  type DaemonSettings,
  type SettingKey,
} from './settings/schema.js';
import type { SettingsFile } from './settings/file.js';

export {
  AUDIO_PLAYERS,
  AUDIO_SINK_KINDS,
  audioSpecProblem,
  isSettingKey,
  LOG_LEVELS,
  MAX_IDLE_UNLOAD_MS,
  MIN_DIGEST_MS,
  parseQuietHours,
  QUIET_MICROPHONE_MODES,
  RECORDERS,
  VAD_MODES,
  TRANSCRIBER_KINDS,
  recorderProblem,
  SETTING_KEYS,
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMA,
  transcriberUrlProblem,
  type DaemonSettings,
  type QuietWindow,
  type SettingKey,
  type SettingRule,
} from './settings/schema.js';
export {
  checkSetting,
  formatProblem,
  settingFromText,
  SettingsError,
  unknownSettingProblem,
  type SettingsProblem,
} from './settings/problems.js';
export {
  DUPLICATE_KEY,
  parseSettings,
  readSettingsFile,
  settingsDir,
  settingsPath,
  SETTINGS_FILE_MAX_BYTES,
  SETTINGS_FILE_NAME,
  type ParsedSettings,
  type SettingsFile,
} from './settings/file.js';

/** Where a value in effect came from. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface ResolvedSettings {
  values: DaemonSettings;
  sources: Record<SettingKey, SettingSource>;
  problems: SettingsProblem[];
}

/**
 * The settings in effect: voxd's flags, else the environment, else the file,
 * else the default. Every problem (the file's, the environment's, the flags')
 * is collected.
 */
export function resolveSettings(input: {
  env: NodeJS.ProcessEnv;
  file: Pick<SettingsFile, 'values' | 'problems'>;
  flags?: Partial<Record<SettingKey, string>>;
}): ResolvedSettings {
  const values = { ...SETTINGS_DEFAULTS } as Record<SettingKey, unknown>;
  const sources = Object.fromEntries(SETTING_KEYS.map((k) => [k, 'default'])) as Record<SettingKey, SettingSource>;
  const problems = [...input.file.problems];
  for (const key of SETTING_KEYS) {
    const rule = SETTINGS_SCHEMA[key];
    const flag = input.flags?.[key];
    const fromEnv = input.env[rule.env];
    let chosen: { value: unknown; source: SettingSource; origin: string } | undefined;
    if (flag !== undefined) chosen = { value: settingFromText(key, flag), source: 'flag', origin: rule.flag ?? key };
    else if (fromEnv !== undefined && fromEnv !== '')
      chosen = { value: settingFromText(key, fromEnv), source: 'env', origin: rule.env };
    else if (input.file.values[key] !== undefined)
      chosen = { value: input.file.values[key], source: 'file', origin: 'file' };
    if (!chosen) continue;
    if (chosen.source !== 'file') {
      const problem = checkSetting(key, chosen.value, chosen.origin);
      if (problem) {
        problems.push(problem);
        continue;
      }
    }
    values[key] = chosen.value;
    sources[key] = chosen.source;
  }
  return { values: values as unknown as DaemonSettings, sources, problems };
}
