/**
 * Claude Code's layout of hooks, which Codex's hooks.json and Gemini's
 * settings.json share: `{"hooks": {"<Event>": [{matcher?, hooks: [{type:
 * "command", command, ...}]}]}}`. Adding vox's group per event and taking
 * out exactly vox's hooks (and the groups and lists that leaves empty); other
 * keys under `hooks` (Gemini's enabled/disabled) pass through. Pure.
 */
import { isObject, SettingsError, type Settings } from '../hooks/settings-file.js';
import { isAgentHook } from './agent-command.js';

function hooksOf(settings: Settings, events: readonly string[], path: string): Record<string, unknown> {
  const hooks = settings.hooks ?? {};
  if (!isObject(hooks)) throw new SettingsError(`"hooks" in ${path} is not an object; vox left the file unchanged.`);
  for (const [k, v] of Object.entries(hooks)) {
    if (events.includes(k) && !Array.isArray(v))
      throw new SettingsError(`"hooks.${k}" in ${path} is not an array; vox left the file unchanged.`);
  }
  return hooks;
}

function without(agent: string, groups: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isAgentHook(agent, h))) {
      const rest = g.hooks.filter((h) => !isAgentHook(agent, h));
      if (rest.length) out.push({ ...g, hooks: rest });
    } else out.push(g);
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Settings with `group(event)` as vox's one group for each event; an event already exactly so stays in place. */
export function withAgentHooks(
  settings: Settings,
  agent: string,
  events: readonly string[],
  group: (event: string) => Record<string, unknown>,
  path: string,
): { settings: Settings; changed: boolean } {
  const hooks: Record<string, unknown> = { ...hooksOf(settings, events, path) };
  for (const event of events) {
    const groups = (hooks[event] as unknown[] | undefined) ?? [];
    const mine = groups.filter(
      (g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isAgentHook(agent, h)),
    );
    if (mine.length === 1 && same(mine[0], group(event))) continue;
    hooks[event] = [...without(agent, groups), group(event)];
  }
  const next = { ...settings, hooks };
  return same(next, settings) ? { settings, changed: false } : { settings: next, changed: true };
}

/** Settings without vox's hooks for this agent, nor the lists and `hooks` object that leaves empty. */
export function withoutAgentHooks(
  settings: Settings,
  agent: string,
  events: readonly string[],
  path: string,
): { settings: Settings; changed: boolean } {
  if (settings.hooks === undefined) return { settings, changed: false };
  const hooks: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(hooksOf(settings, events, path))) {
    if (!Array.isArray(v)) hooks[k] = v;
    else {
      const rest = without(agent, v);
      if (rest.length || v.length === 0) hooks[k] = rest;
    }
  }
  const next: Settings = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return same(next, settings) ? { settings, changed: false } : { settings: next, changed: true };
}
