/**
 * The `vox` entry of this installation, which every agent's hook commands
 * run by absolute path (an agent may run hooks from a GUI launcher without
 * PATH, and no `npx` resolution is paid on every hook).
 */
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageUrl } from '../package-dir.js';

/**
 * The bin `bin/vox.cjs` once the bundles it loads are built (it loads the
 * command's bundle directly: one file fewer per hook than `dist/vox.cjs`,
 * which loads it), else `dist/cli.js`. From `src/` (tests run through tsx)
 * it is the same files.
 */
export function defaultCliPath(): string {
  const pkg = (rel: string) => fileURLToPath(packageUrl(rel));
  if (existsSync(pkg('dist/vox-cli.cjs')) && existsSync(pkg('bin/vox.cjs'))) return realpathSync(pkg('bin/vox.cjs'));
  if (existsSync(pkg('dist/cli.js'))) return realpathSync(pkg('dist/cli.js'));
  return pkg('dist/cli.js');
}
