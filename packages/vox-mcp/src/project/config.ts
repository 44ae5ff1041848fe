/**
 * Per-project configuration: `.vox/config.md`, YAML front matter plus a
 * markdown body (docs/config.md). Found by walking up from the working
 * directory; the nearest file wins; no file means DEFAULTS. The schema is
 * config-schema.ts, the checks config-validation.ts, the reading of the
 * text config-parser.ts.
 *
 * Design note, hot path: `vox say` and `vox hook` resolve the config on every
 * run and must start about as fast as `node -e 0`. The walk up is done here with
 * `fs.statSync` (a few microseconds per directory) and the config modules import
 * only `node:fs`, `node:path`, the protocol constants and the pronunciations
 * module (`yaml` only when a file needs it, config-parser.ts). Nothing is
 * cached: each call reads the file again, so an edit applies on the next call.
 *
 * Validation (CONTRIBUTING.md): one strict SCHEMA and one frozen DEFAULTS beside
 * it. Every problem in a file (unknown key, wrong value, YAML syntax, malformed
 * pronunciation row) is collected into one ConfigError with file and line.
 * Nothing is silently replaced by its default.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseConfig } from './config-parser.js';
import {
  CONFIG_FILE,
  CONFIG_KEYS,
  DEFAULTS,
  type ConfigKey,
  type ConfigSource,
  type ResolvedConfig,
} from './config-schema.js';
import { ConfigError } from './config-validation.js';

/** The largest `.vox/config.md` read; a config is a few hundred bytes (docs/config.md). */
export const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * The nearest `.vox/config.md` at or above `cwd`, or undefined. Cheap: one
 * `statSync` per directory and no import.
 */
export function findConfigFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE);
    try {
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    } catch {
      // An unreadable directory on the way up hides nothing we could read.
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The project directory of a config file: the directory that holds `.vox/`. */
export function projectDirOf(file: string): string {
  return dirname(dirname(file));
}

/** The nearest directory at or above `start` that holds `.git`, if any. */
export function repositoryRoot(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    try {
      if (statSync(join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    } catch {
      // unreadable: keep walking
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The project's name for a working directory, as resolveConfig gives it: the
 * directory holding `.vox/`, else the repository root (Claude Code may have
 * `cd`-ed into `src/routes`), else the working directory.
 */
export function projectNameFor(cwd: string): string {
  return nameOf(projectRootFor(cwd));
}

/**
 * The project's root for a working directory: the directory holding
 * `.vox/config.md` at or above it, else the repository root (`.git`), else the
 * working directory. Where project files (`.claude/settings.json`) belong.
 */
export function projectRootFor(cwd: string): string {
  const file = findConfigFile(resolve(cwd));
  return file ? projectDirOf(file) : (repositoryRoot(cwd) ?? resolve(cwd));
}

function nameOf(dir: string): string {
  return basename(dir) || dir;
}

function freezeResolved(r: ResolvedConfig): ResolvedConfig {
  Object.freeze(r.pronunciations);
  return Object.freeze(r);
}

const ALL_DEFAULT = Object.freeze(Object.fromEntries(CONFIG_KEYS.map((k) => [k, 'default']))) as Readonly<
  Record<ConfigKey, ConfigSource>
>;

/**
 * Resolves the configuration in effect for a working directory: the nearest
 * `.vox/config.md` at or above it, validated, over DEFAULTS. Reads the file on
 * every call (no cache), so edits apply at once.
 *
 * @throws ConfigError when the file is invalid (every problem, with lines)
 */
export async function resolveConfig(cwd: string): Promise<ResolvedConfig> {
  const start = resolve(cwd);
  const file = findConfigFile(start);
  if (!file) {
    return freezeResolved({
      projectDir: start,
      projectName: nameOf(repositoryRoot(start) ?? start),
      values: DEFAULTS,
      sources: ALL_DEFAULT,
      pronunciations: [],
    });
  }
  let text: string;
  let size = 0;
  try {
    // A bounded read: at most one byte past the cap, whatever the file's size.
    const fd = openSync(file, 'r');
    try {
      size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, MAX_CONFIG_BYTES) + 1);
      const got = readSync(fd, buf, 0, buf.length, 0);
      if (got > MAX_CONFIG_BYTES) size = Math.max(size, got);
      text = buf.subarray(0, got).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new ConfigError(file, [{ key: '(file)', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  if (size > MAX_CONFIG_BYTES || Buffer.byteLength(text) > MAX_CONFIG_BYTES) {
    throw new ConfigError(file, [
      {
        key: '(file)',
        message: `the file is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte (64 KiB) cap for .vox/config.md; shorten it`,
      },
    ]);
  }
  const parsed = await parseConfig(text, file);
  const sources: Record<string, ConfigSource> = { ...ALL_DEFAULT };
  for (const key of Object.keys(parsed.values)) sources[key] = file;
  const projectDir = projectDirOf(file);
  return freezeResolved({
    file,
    projectDir,
    projectName: nameOf(projectDir),
    values: Object.freeze({ ...DEFAULTS, ...parsed.values }),
    sources: Object.freeze(sources) as Record<ConfigKey, ConfigSource>,
    pronunciations: parsed.pronunciations,
  });
}

/** The resolved config as JSON (`vox config --json`, the MCP `status` tool): null, not a missing key, for an unset optional key. */
export function configView(config: ResolvedConfig) {
  return {
    file: config.file ?? null,
    projectDir: config.projectDir,
    projectName: config.projectName,
    values: Object.fromEntries(CONFIG_KEYS.map((k) => [k, config.values[k] ?? null])),
    sources: config.sources,
    pronunciations: config.pronunciations,
  };
}

/**
 * The spoken prefix `announce` asks for: the project name for `true`, the label
 * for a string, undefined for `false`.
 */
export function announceLabel(config: Pick<ResolvedConfig, 'values' | 'projectName'>): string | undefined {
  const a = config.values.announce;
  if (a === true) return config.projectName;
  return typeof a === 'string' ? a : undefined;
}
