/**
 * The links `vox setup` puts in a bin directory (~/.local/bin): `vox` and
 * `voxd`, symlinks to this install's bin files, so that the commands the docs
 * show work outside npx (npm links them only into the clone's
 * node_modules/.bin, which no shell has on PATH).
 *
 * Design notes:
 * - Symlinks, not copies or wrapper scripts: the bin files find their bundles
 *   relative to their real path, and a rebuild needs no new setup.
 * - Every link is planned before any is touched: a conflict leaves the
 *   directory as it was, never half set up.
 * - "Its own link" is a symlink to some vox's `vox-mcp/bin/vox.cjs` or
 *   `voxd/bin/voxd.js` (this checkout or an older one that moved): it is
 *   re-pointed without asking. Anything else is the user's and needs `--force`;
 *   a directory is never replaced.
 * - A link is replaced by renaming a new one over it, so `vox` on PATH never
 *   goes missing in between.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable } from '@vox/protocol';
import { ClientError } from '../errors.js';
import { packageUrl } from '../package-dir.js';

export interface BinTarget {
  name: 'vox' | 'voxd';
  /** The real path of the bin file the link points at. */
  target: string;
}

export type LinkAction = 'create' | 'keep' | 'repoint' | 'replace' | 'remove' | 'absent';

export interface LinkPlan {
  name: string;
  /** The link's path in the bin directory. */
  path: string;
  target: string;
  action: LinkAction;
  /** What is at `path` now, in words, when something is. */
  was?: string;
}

const OWN = { vox: /[\\/]vox-mcp[\\/]bin[\\/]vox\.cjs$/, voxd: /[\\/]voxd[\\/]bin[\\/]voxd\.js$/ } as const;

/** This install's `vox` and `voxd` bin files (voxd's package sits beside vox's, in the workspace and in node_modules). */
export function voxBins(): BinTarget[] {
  const files = {
    vox: fileURLToPath(packageUrl('bin/vox.cjs')),
    voxd: fileURLToPath(packageUrl('../voxd/bin/voxd.js')),
  };
  return (['vox', 'voxd'] as const).map((name) => {
    if (!existsSync(files[name])) {
      throw new ClientError(
        'VOX_ERR_CLIENT_SETUP_CONFLICT',
        `cannot find ${name}'s bin file at ${files[name]}; run "npm install" in the vox checkout first.`,
      );
    }
    return { name, target: realpathSync(files[name]) };
  });
}

/** The default bin directory: ~/.local/bin (XDG's place for a user's executables). */
export function defaultBinDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.HOME || home, '.local', 'bin');
}

/** A directory that cannot hold the links (a file in its path, no permission), as setup's own error. */
function unusable(dir: string, err: unknown): ClientError {
  return new ClientError(
    'VOX_ERR_CLIENT_SETUP_CONFLICT',
    `cannot put links in ${dir}: ${(err as Error).message}. Choose a directory you can write with --bin DIR, or fix the one in the way.`,
  );
}

/** What is at `path`, for the plan; `own` tells a link of some vox's bin. */
function inspect(
  path: string,
  name: BinTarget['name'],
): { kind: 'none' } | { kind: 'link'; to: string; own: boolean } | { kind: 'dir' | 'file' } {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw unusable(dirname(path), err);
  }
  if (st.isSymbolicLink()) {
    const to = resolve(dirname(path), readlinkSync(path));
    return { kind: 'link', to, own: OWN[name].test(to) };
  }
  return { kind: st.isDirectory() ? 'dir' : 'file' };
}

/**
 * What setting up (or, with `remove`, taking down) the links would do.
 * Throws VOX_ERR_CLIENT_SETUP_CONFLICT, naming every path in the way, when
 * something not vox's is there (without `force`, or a directory at all).
 */
export function planLinks(
  dir: string,
  bins: readonly BinTarget[],
  opts: { force?: boolean; remove?: boolean } = {},
): LinkPlan[] {
  const conflicts: string[] = [];
  const plans = bins.map((b): LinkPlan => {
    const path = join(dir, b.name);
    const now = inspect(path, b.name);
    const base = { name: b.name, path, target: b.target };
    if (now.kind === 'none') return { ...base, action: opts.remove ? 'absent' : 'create' };
    const was = now.kind === 'link' ? `a link to ${now.to}` : now.kind === 'dir' ? 'a directory' : 'a file';
    if (now.kind === 'link' && now.own) {
      if (opts.remove) return { ...base, action: 'remove', was };
      return { ...base, action: now.to === b.target ? 'keep' : 'repoint', was };
    }
    // Not vox's: removing leaves it alone; installing needs --force.
    if (opts.remove) return { ...base, action: 'absent', was };
    if (now.kind === 'dir' || !opts.force) conflicts.push(`${path} is ${was}`);
    return { ...base, action: 'replace', was };
  });
  if (conflicts.length) {
    const dirs = plans.some((p) => p.was === 'a directory');
    throw new ClientError(
      'VOX_ERR_CLIENT_SETUP_CONFLICT',
      `${conflicts.join('; ')}, not a link vox made; nothing was changed. Move ${conflicts.length > 1 ? 'them' : 'it'} away` +
        `${dirs ? '' : ', or run "vox setup --force" to replace it'}, or choose another directory with --bin DIR.`,
    );
  }
  return plans;
}

/** Carry out a plan from `planLinks`. */
export function applyLinks(dir: string, plans: readonly LinkPlan[]): void {
  try {
    applyEach(dir, plans);
  } catch (err) {
    throw unusable(dir, err);
  }
}

function applyEach(dir: string, plans: readonly LinkPlan[]): void {
  if (plans.some((p) => p.action === 'create' || p.action === 'repoint' || p.action === 'replace'))
    mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const p of plans) {
    if (p.action === 'remove') unlinkSync(p.path);
    if (p.action !== 'create' && p.action !== 'repoint' && p.action !== 'replace') continue;
    const tmp = `${p.path}.vox-setup-${process.pid}`;
    rmSync(tmp, { force: true });
    symlinkSync(p.target, tmp);
    try {
      renameSync(tmp, p.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }
}

/** Whether `dir` is one of env.PATH's directories (compared resolved, and by real path when both exist). */
export function onPath(dir: string, env: NodeJS.ProcessEnv): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const want = real(dir);
  return (env.PATH ?? '').split(delimiter).some((d) => d !== '' && (resolve(d) === resolve(dir) || real(d) === want));
}

/** The `vox` a shell would run, when it is not the link in `dir` (another one comes first on PATH). */
export function shadowingVox(dir: string, env: NodeJS.ProcessEnv): string | undefined {
  const found = findExecutable('vox', env);
  if (!found || resolve(dirname(found)) === resolve(dir)) return undefined;
  return found;
}

/** The line that puts `dir` on PATH, written with $HOME when it is under the home directory. */
export function pathLine(dir: string, home: string): string {
  const abs = resolve(dir);
  // Inside double quotes, these four keep their meaning in sh: escaped, the line adds exactly `dir`.
  const quote = (s: string) => s.replace(/["\\$`]/g, '\\$&');
  const under = home !== '' && abs.startsWith(`${resolve(home)}/`);
  const shown = under ? `$HOME/${quote(abs.slice(resolve(home).length + 1))}` : quote(abs);
  return `export PATH="${shown}:$PATH"`;
}
