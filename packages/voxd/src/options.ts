/**
 * voxd's options: its flags, the settings they resolve to (flags, else the
 * environment, else the settings file, else the defaults: @vox/protocol's
 * settings) and whether VOX_HOME can hold its state. Each check returns what
 * is wrong, in words a user can act on; daemon.ts says it and exits, so this
 * module never touches the process.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_HOST, DEFAULT_PORT, makeDirs } from '@vox/protocol';
import {
  SETTINGS_SCHEMA,
  formatProblem,
  settingsPath,
  type ResolvedSettings,
  type SettingKey,
  type SettingsFile,
} from '@vox/protocol/settings';
import { SINK_SPECS } from './sinks/create.js';

export const USAGE = `voxd — the vox speech daemon

Usage: voxd [options]

Settings come from these flags, else the environment, else the settings file
(${settingsPath()}; "vox daemon config" edits it), else the defaults.

Options:
  --port N        TCP port on 127.0.0.1 (env VOXD_PORT; default ${DEFAULT_PORT}; 0 = any free port)
  --host ADDR     loopback address to bind (env VOXD_HOST; default ${DEFAULT_HOST})
  --audio SINK    ${SINK_SPECS} (env VOXD_AUDIO; default auto:
                  audioio, then speaker, then a player command)
  --engine NAME   default engine for requests that name none (env VOXD_ENGINE; default auto)
  --home DIR      state directory (env VOX_HOME)
  -h, --help      show this help
  -v, --version   print the version
`;

/** The flags that are settings: they win over the environment and the file. */
export const SETTING_FLAGS = ['port', 'host', 'audio', 'engine'] as const;

/** voxd's flags; throws (parseArgs's own message) for an unknown or malformed one. */
export function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      audio: { type: 'string' },
      engine: { type: 'string' },
      home: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
  }).values;
}

/** Why VOX_HOME (and its logs/) cannot hold voxd's state, or undefined. */
export function usableHome(home: string, logs: string): string | undefined {
  for (const dir of [home, logs]) {
    try {
      makeDirs(dir, 0o700);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EEXIST') return `${dir} is a file, not a directory`;
      if (e.code === 'ENOTDIR') return `a part of ${dir} is a file, not a directory`;
      if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS')
        return `cannot create ${e.path ?? dir} (${e.code})`;
      return `cannot create ${dir}: ${e.message}`;
    }
    try {
      if (!statSync(dir).isDirectory()) return `${dir} is a file, not a directory`;
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (err) {
      return `${dir} is not writable (${(err as NodeJS.ErrnoException).code})`;
    }
  }
  return undefined;
}

/** Every problem of the resolved settings as one message with its fixes, or undefined when there is none. */
export function settingsFailure(settings: ResolvedSettings, file: SettingsFile): string | undefined {
  if (!settings.problems.length) return undefined;
  const n = settings.problems.length;
  // An unreadable file's one problem says its own fix.
  const inFile = !file.unreadable && settings.problems.some((p) => p.origin === file.path);
  const fixes = [
    ...(inFile
      ? [
          `"vox daemon config set KEY VALUE" or "vox daemon config unset KEY" fixes ${file.path} (docs/operations.md lists every setting)`,
        ]
      : []),
    ...(settings.problems.some((p) => p.origin !== file.path)
      ? ['fix the variable or flag, or leave it out to use the settings file']
      : []),
  ];
  const what =
    file.unreadable && n === 1
      ? 'the settings file cannot be used'
      : n === 1
        ? 'a setting is invalid'
        : `${n} settings are invalid`;
  return `${what}:\n${settings.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}${fixes.length ? `\n${fixes.join('; ')}.` : ''}`;
}

/** Where a setting's value came from, as a user would name it. */
export function settingSource(settings: ResolvedSettings, file: SettingsFile, key: SettingKey): string {
  return { flag: `--${key}`, env: SETTINGS_SCHEMA[key].env, file: file.path, default: 'the default' }[
    settings.sources[key]
  ];
}
