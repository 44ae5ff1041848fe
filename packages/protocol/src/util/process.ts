/** Process helpers that voxd and vox both need. */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** True while process `pid` exists (EPERM means it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The full path of an executable: `name` itself when it is a path, else the
 * first match on env.PATH (with PATHEXT on Windows). File system only, never a shell.
 */
export function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const candidates =
    isAbsolute(name) || name.includes('/')
      ? [name]
      : (env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((d) => join(d, name));
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const c of candidates) {
    for (const ext of exts) {
      try {
        if (!statSync(c + ext).isFile()) continue;
        accessSync(c + ext, constants.X_OK);
        return c + ext;
      } catch {
        // Not here.
      }
    }
  }
  return undefined;
}
