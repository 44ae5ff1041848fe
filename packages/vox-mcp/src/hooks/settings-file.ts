/**
 * An agent's settings file, for every agent's adapter: reading it (a missing
 * or empty file is `{}`, anything not a JSON object an error and never
 * overwritten), writing it atomically (a temp file and a rename, through a
 * symlink to its target, keeping the file's mode), and for the agents other
 * than Claude Code a backup first: the previous bytes go to
 * `<file>.vox-backup` (one backup: the file as it was before vox's last
 * change).
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

export type Settings = Record<string, unknown>;

/** A settings file that vox will not touch; the message says why and what to do. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface LoadedSettings {
  settings: Settings;
  exists: boolean;
  indent: string;
}

/** Read and parse a settings file. A missing or empty file is `{}`; anything not a JSON object is a SettingsError. */
export function readSettings(path: string): LoadedSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {}, exists: false, indent: '  ' };
    throw new SettingsError(`Cannot read ${path}: ${(err as Error).message}`);
  }
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  if (text.trim() === '') return { settings: {}, exists: true, indent };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(
      `${path} is not valid JSON (${(err as Error).message}); vox left it unchanged. Fix it (or move it aside), then run the command again.`,
    );
  }
  if (!isObject(parsed)) {
    throw new SettingsError(
      `${path} does not hold a JSON object; vox left it unchanged. Fix it (or move it aside), then run the command again.`,
    );
  }
  return { settings: parsed, exists: true, indent };
}

export function writeSettings(path: string, settings: Settings, indent: string): void {
  // Write through a symlink (dotfile managers link settings.json) to its target.
  const target = existsSync(path) ? realpathSync(path) : path;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existsSync(target) ? statSync(target).mode & 0o777 : 0o644;
  const tmp = `${target}.vox-${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(settings, null, indent)}\n`, { mode });
  renameSync(tmp, target);
}

export const BACKUP_SUFFIX = '.vox-backup';

/** Copy the file to `<file>.vox-backup`; the backup's path, or undefined when there was no file. */
export function backupFile(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const backup = `${path}${BACKUP_SUFFIX}`;
  copyFileSync(realpathSync(path), backup);
  return backup;
}

/** Back the file up, then write `text` in its place. Returns the backup's path. */
export function replaceFile(path: string, text: string): string | undefined {
  const backup = backupFile(path);
  const target = existsSync(path) ? realpathSync(path) : path;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existsSync(target) ? statSync(target).mode & 0o777 : 0o644;
  const tmp = `${target}.vox-${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode });
    renameSync(tmp, target);
  } finally {
    rmSync(tmp, { force: true });
  }
  return backup;
}

/**
 * Back the file up, then delete it (a file vox created and that now holds
 * nothing). A symlink (a dotfile manager's) is never deleted: its target gets
 * `empty` instead.
 */
export function removeFile(path: string, empty = ''): string | undefined {
  if (lstatSync(path).isSymbolicLink()) return replaceFile(path, empty);
  const backup = backupFile(path);
  rmSync(path);
  return backup;
}
