/**
 * Writing another agent's settings file: the previous bytes go to
 * `<file>.vox-backup` first (one backup: the file as it was before vox's
 * last change), then the new text is written atomically (a temp file and a
 * rename, through a symlink to its target, keeping the file's mode).
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

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
