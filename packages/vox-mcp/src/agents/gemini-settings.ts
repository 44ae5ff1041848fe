/**
 * vox's entries in Gemini CLI's `~/.gemini/settings.json`: a command hook per
 * event of GEMINI_EVENTS (`vox hook --agent gemini <Event>`) and the MCP
 * server `mcpServers.vox` (`vox mcp`). The same rules as Claude Code's
 * settings (claude/hooks-settings.ts): other keys stay, nothing is written
 * when nothing changes, a malformed file is never overwritten, the write is
 * atomic; uninstall removes only what vox wrote.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultCliPath, isObject } from '../claude/hook-entries.js';
import { readSettings, SettingsError, writeSettings, type Settings } from '../claude/hooks-settings.js';
import { GEMINI_EVENTS } from './gemini.js';

/** Gemini's hook timeout is in milliseconds. */
const TIMEOUT_MS = 10_000;

export function geminiSettingsPath(env: NodeJS.ProcessEnv): string {
  return join(env.HOME || homedir(), '.gemini', 'settings.json');
}

const quote = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export interface GeminiOptions {
  portable?: boolean;
  node?: string;
  cli?: string;
}

function voxCommand(args: string, opts: GeminiOptions): string {
  if (opts.portable) return `vox ${args}`;
  return `${quote(opts.node ?? process.execPath)} ${quote(opts.cli ?? defaultCliPath())} ${args}`;
}

const VOX_GEMINI_HOOK = /(?:^|[\s/'"])(?:vox|vox\.cjs|cli\.js)['"]?\s+hook\s+--agent\s+gemini\s+[A-Za-z]+\s*$/;
const isVoxHook = (h: unknown): boolean => isObject(h) && typeof h.command === 'string' && VOX_GEMINI_HOOK.test(h.command);

function hooksOf(settings: Settings, path: string): Record<string, unknown[]> {
  const hooks = settings.hooks ?? {};
  if (!isObject(hooks)) throw new SettingsError(`"hooks" in ${path} is not an object; vox left the file unchanged.`);
  for (const [k, v] of Object.entries(hooks)) {
    // Gemini keeps hooks.enabled/disabled next to the event lists.
    if (GEMINI_EVENTS.includes(k as never) && !Array.isArray(v)) throw new SettingsError(`"hooks.${k}" in ${path} is not an array; vox left the file unchanged.`);
  }
  return hooks as Record<string, unknown[]>;
}

function without(groups: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isVoxHook)) {
      const rest = g.hooks.filter((h) => !isVoxHook(h));
      if (rest.length) out.push({ ...g, hooks: rest });
    } else out.push(g);
  }
  return out;
}

/** Settings with vox's hooks and server; pure. */
export function addGemini(settings: Settings, opts: GeminiOptions, path = 'settings.json'): { settings: Settings; changed: boolean } {
  const hooks: Record<string, unknown> = { ...hooksOf(settings, path) };
  for (const event of GEMINI_EVENTS) {
    const group = { matcher: '*', hooks: [{ name: 'vox', type: 'command', command: voxCommand(`hook --agent gemini ${event}`, opts), timeout: TIMEOUT_MS }] };
    hooks[event] = [...without((hooks[event] as unknown[] | undefined) ?? []), group];
  }
  const servers = settings.mcpServers ?? {};
  if (!isObject(servers)) throw new SettingsError(`"mcpServers" in ${path} is not an object; vox left the file unchanged.`);
  const server = opts.portable ? { command: 'vox', args: ['mcp'] } : { command: opts.node ?? process.execPath, args: [opts.cli ?? defaultCliPath(), 'mcp'] };
  const next = { ...settings, hooks, mcpServers: { ...servers, vox: server } };
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** Settings without vox's hooks and server (and the lists this leaves empty); pure. */
export function removeGemini(settings: Settings, path = 'settings.json'): { settings: Settings; changed: boolean } {
  const next: Settings = { ...settings };
  if (settings.hooks !== undefined) {
    const hooks: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(hooksOf(settings, path))) {
      if (!Array.isArray(v)) hooks[k] = v;
      else if (without(v).length || v.length === 0) hooks[k] = without(v);
    }
    if (Object.keys(hooks).length) next.hooks = hooks;
    else delete next.hooks;
  }
  // Only the server vox wrote: `vox mcp`, or node with vox's cli and `mcp`.
  const v = isObject(settings.mcpServers) ? settings.mcpServers.vox : undefined;
  if (isObject(settings.mcpServers) && isObject(v) && Array.isArray(v.args) && v.args.at(-1) === 'mcp') {
    const { vox: _vox, ...rest } = settings.mcpServers;
    if (Object.keys(rest).length) next.mcpServers = rest;
    else delete next.mcpServers;
  }
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

export function installGemini(path: string, opts: GeminiOptions = {}): { path: string; changed: boolean } {
  const loaded = readSettings(path);
  const { settings, changed } = addGemini(loaded.settings, opts, path);
  if (changed) writeSettings(path, settings, loaded.indent);
  return { path, changed };
}

export function uninstallGemini(path: string): { path: string; changed: boolean } {
  const loaded = readSettings(path);
  if (!loaded.exists) return { path, changed: false };
  const { settings, changed } = removeGemini(loaded.settings, path);
  if (changed) writeSettings(path, settings, loaded.indent);
  return { path, changed };
}
