/** The bearer token in VOX_HOME/token: created once with mode 0600, kept across restarts. */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export function ensureToken(path: string, warn: (msg: string) => void = () => {}): string {
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 16) {
      const mode = statSync(path).mode & 0o777;
      if (mode !== 0o600) {
        chmodSync(path, 0o600);
        warn(`token file had mode ${mode.toString(8)}; set it to 600`);
      }
      return token;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  try {
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    // Another voxd starting at the same instant wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8').trim();
    throw err;
  }
}
