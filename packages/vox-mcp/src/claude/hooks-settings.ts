/**
 * vox's entries in Claude Code's `settings.json` (and the plugin's
 * `hooks/hooks.json`, which holds the same entries): adding, replacing,
 * removing and inspecting them. What an entry is: hook-entries.ts.
 *
 * - The file belongs to the user: other keys, other hooks and key order stay as
 *   they were; nothing is written when nothing changes; a malformed file is
 *   an error and is never overwritten; the write is atomic (temp file and
 *   rename, through a symlink to its target).
 */
import { lstatSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRootFor } from '../project/config.js';
import {
  isObject,
  readSettings,
  SettingsError,
  writeSettings,
  type LoadedSettings,
  type Settings,
} from '../hooks/settings-file.js';
import {
  ALL_HOOK_EVENTS,
  HOOK_EVENTS,
  isVoxHookCommand,
  isVoxMcpToolHook,
  voxHookEntries,
  type HookEntryOptions,
  type HookEvent,
  type HookGroup,
} from './hook-entries.js';

export type SettingsScope = 'user' | 'project' | 'local';

/**
 * Where Claude Code keeps settings for a scope: `user` is
 * `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`), `project`
 * is `<root>/.claude/settings.json`, `local` is `<root>/.claude/settings.local.json`,
 * where root is the project's (projectRootFor: the directory holding
 * `.vox/config.md`, else `.git`, else cwd), so a subdirectory finds the same file.
 */
export function settingsPath(scope: SettingsScope, where: { env: NodeJS.ProcessEnv; cwd: string }): string {
  if (scope === 'user') {
    const dir = where.env.CLAUDE_CONFIG_DIR || join(where.env.HOME || homedir(), '.claude');
    return join(dir, 'settings.json');
  }
  return join(projectRootFor(where.cwd), '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

function isVoxHook(h: unknown): boolean {
  return isObject(h) && (isVoxHookCommand(h.command) || isVoxMcpToolHook(h));
}

/** The `hooks` object, checked; undefined when absent. */
function hooksOf(settings: Settings, path: string): Record<string, unknown> | undefined {
  const hooks = settings.hooks;
  if (hooks === undefined) return undefined;
  if (!isObject(hooks))
    throw new SettingsError(
      `"hooks" in ${path} is not an object; vox left the file unchanged. Fix it, then run the command again.`,
    );
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      throw new SettingsError(
        `"hooks.${event}" in ${path} is not an array; vox left the file unchanged. Fix it, then run the command again.`,
      );
    }
  }
  return hooks;
}

/** vox's hook objects under one event. */
function voxHooksIn(groups: unknown[]): unknown[] {
  const found: unknown[] = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks)) found.push(...g.hooks.filter(isVoxHook));
  }
  return found;
}

/** Drop vox's hooks from one event's groups, and the groups that this leaves empty. */
function withoutVox(groups: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isVoxHook)) {
      const rest = g.hooks.filter((h) => !isVoxHook(h));
      if (rest.length > 0) out.push({ ...g, hooks: rest });
    } else {
      out.push(g);
    }
  }
  return out;
}

/** vox's hooks under one event with their groups' matchers, as one string to compare. */
function voxShape(groups: unknown[]): string {
  const pairs: Array<[string, unknown]> = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks))
      for (const h of g.hooks.filter(isVoxHook)) pairs.push([String(g.matcher ?? ''), h]);
  }
  return JSON.stringify(pairs);
}

/**
 * Settings with vox's entries in place. Pure: returns a new object and whether
 * anything changed. An event whose vox entry is already exactly right is left
 * where it is; stale vox entries are replaced at the end of the event's list.
 */
export function addVoxHooks(
  settings: Settings,
  entries: Partial<Record<HookEvent, HookGroup[]>>,
  path = 'settings.json',
): { settings: Settings; changed: boolean } {
  const hooks = { ...(hooksOf(settings, path) ?? {}) };
  let changed = false;
  for (const event of ALL_HOOK_EVENTS) {
    const groups = (hooks[event] as unknown[] | undefined) ?? [];
    const want = entries[event] ?? [];
    // In place: vox's hooks, under the same matchers, in the same order (others' groups may sit between).
    if (voxShape(groups) === voxShape(want)) continue;
    const kept = [...withoutVox(groups), ...want];
    if (kept.length) hooks[event] = kept;
    else delete hooks[event];
    changed = true;
  }
  if (!changed) return { settings, changed };
  return { settings: { ...settings, hooks }, changed };
}

/**
 * Settings without vox's entries, and without the groups, event lists and
 * `hooks` object that removing them left empty. Pure.
 */
export function removeVoxHooks(
  settings: Settings,
  path = 'settings.json',
): { settings: Settings; changed: boolean; removed: number } {
  const current = hooksOf(settings, path);
  if (!current) return { settings, changed: false, removed: 0 };
  const hooks: Record<string, unknown> = {};
  let removed = 0;
  for (const [event, groups] of Object.entries(current) as Array<[string, unknown[]]>) {
    const n = voxHooksIn(groups).length;
    if (n === 0) {
      hooks[event] = groups;
      continue;
    }
    removed += n;
    const rest = withoutVox(groups);
    if (rest.length > 0) hooks[event] = rest;
  }
  if (removed === 0) return { settings, changed: false, removed };
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return { settings: next, changed: true, removed };
}

export interface HooksChange {
  path: string;
  /** False when the file already said exactly this (nothing was written). */
  changed: boolean;
}

/** Merge vox's entries into a settings file. Idempotent. */
export function installHooks(path: string, opts: HookEntryOptions = {}): HooksChange {
  const loaded = readSettings(path);
  const { settings, changed } = addVoxHooks(loaded.settings, voxHookEntries(opts), path);
  if (changed) writeSettings(path, settings, loaded.indent);
  return { path, changed };
}

export interface UninstallOptions {
  /**
   * Also remove the file's directory when that leaves it empty (the project's
   * `.claude/`, which `install` created). Never for `~/.claude`. Default false.
   */
  removeEmptyDir?: boolean;
}

/**
 * Remove vox's entries (and only those) from a settings file. Harmless when absent.
 *
 * The file itself is deleted when removing them leaves exactly `{}`: no other
 * key, no other hook. That is the file vox created (install writes one when
 * there is none), and a missing file means the same to Claude Code as `{}`.
 * A file that keeps anything else, or that is a symlink (a dotfile manager's),
 * is rewritten, never deleted.
 */
export function uninstallHooks(
  path: string,
  opts: UninstallOptions = {},
): HooksChange & { removed: number; deleted: boolean } {
  const loaded = readSettings(path);
  if (!loaded.exists) return { path, changed: false, removed: 0, deleted: false };
  const { settings, changed, removed } = removeVoxHooks(loaded.settings, path);
  if (!changed) return { path, changed, removed, deleted: false };
  if (Object.keys(settings).length === 0 && !lstatSync(path).isSymbolicLink()) {
    rmSync(path);
    const dir = dirname(path);
    if (opts.removeEmptyDir && readdirSync(dir).length === 0) rmdirSync(dir);
    return { path, changed, removed, deleted: true };
  }
  writeSettings(path, settings, loaded.indent);
  return { path, changed, removed, deleted: false };
}

export interface HooksState {
  path: string;
  exists: boolean;
  /** Events that have a vox entry. */
  installed: HookEvent[];
  missing: HookEvent[];
  /** Why the file could not be read, when it could not. */
  error?: string;
}

/** Which of vox's events a settings file covers. Never throws. */
export function inspectHooks(path: string): HooksState {
  let loaded: LoadedSettings;
  let hooks: Record<string, unknown> | undefined;
  try {
    loaded = readSettings(path);
    hooks = hooksOf(loaded.settings, path);
  } catch (err) {
    return { path, exists: true, installed: [], missing: [...HOOK_EVENTS], error: (err as Error).message };
  }
  const installed = HOOK_EVENTS.filter((e) => voxHooksIn((hooks?.[e] as unknown[] | undefined) ?? []).length > 0);
  return { path, exists: loaded.exists, installed, missing: HOOK_EVENTS.filter((e) => !installed.includes(e)) };
}

/** True when every vox event has its entry in the file (used by `vox doctor`). */
export function hooksInstalled(settingsPath: string): boolean {
  const state = inspectHooks(settingsPath);
  return !state.error && state.missing.length === 0;
}
