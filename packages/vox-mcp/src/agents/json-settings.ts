/**
 * vox's entries in a settings.json shaped like Gemini CLI's (Gemini, Qwen
 * Code): a command hook per event (`vox hook --agent NAME <Event>`, matcher
 * `*`) and the MCP server `mcpServers.vox`. Other keys stay, nothing is
 * written when nothing changes, a malformed file is never overwritten, the
 * write is atomic with the previous file kept as settings.json.vox-backup,
 * uninstall removes only what vox wrote, and a file left as {} (the one
 * install created) goes. One piece for every agent whose file has this shape.
 */
import {
  isObject,
  readSettings,
  removeFile,
  replaceFile,
  SettingsError,
  type Settings,
} from '../hooks/settings-file.js';
import { agentHookCommand, voxServer, type AgentCommandOptions } from './agent-command.js';
import type { AgentChange } from './agent-settings.js';
import { withAgentHooks, withoutAgentHooks } from './hook-groups.js';

export interface JsonSettings {
  /** Settings with vox's hooks and server; pure. */
  add(settings: Settings, opts: AgentCommandOptions, path?: string): { settings: Settings; changed: boolean };
  /** Settings without vox's hooks and server (and the lists this leaves empty); pure. */
  remove(settings: Settings, path?: string): { settings: Settings; changed: boolean };
  install(path: string, opts?: AgentCommandOptions): AgentChange;
  uninstall(path: string): AgentChange;
}

const json = (s: Settings, indent: string): string => `${JSON.stringify(s, null, indent)}\n`;

/**
 * The settings of `agent`: its `events`, each hook with `timeout` in the
 * agent's own unit, gated by the vox event its adapter maps it to (`renamed`;
 * the same name when not there; a test holds it to the adapter).
 */
export function jsonSettings(
  agent: string,
  events: readonly string[],
  timeout: number,
  renamed: Readonly<Record<string, string>> = {},
): JsonSettings {
  const group = (opts: AgentCommandOptions) => (event: string) => ({
    matcher: '*',
    hooks: [
      {
        name: 'vox',
        type: 'command',
        command: agentHookCommand(agent, event, renamed[event] ?? event, opts),
        timeout,
      },
    ],
  });
  const add: JsonSettings['add'] = (settings, opts, path = 'settings.json') => {
    const { settings: withHooks } = withAgentHooks(settings, agent, events, group(opts), path);
    const servers = settings.mcpServers ?? {};
    if (!isObject(servers))
      throw new SettingsError(`"mcpServers" in ${path} is not an object; vox left the file unchanged.`);
    const next = { ...withHooks, mcpServers: { ...servers, vox: voxServer(opts) } };
    return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
  };
  const remove: JsonSettings['remove'] = (settings, path = 'settings.json') => {
    const next: Settings = { ...withoutAgentHooks(settings, agent, events, path).settings };
    // Only the server vox wrote: `vox mcp`, or node with vox's cli and `mcp`.
    const v = isObject(settings.mcpServers) ? settings.mcpServers.vox : undefined;
    if (isObject(settings.mcpServers) && isObject(v) && Array.isArray(v.args) && v.args.at(-1) === 'mcp') {
      const { vox: _vox, ...rest } = settings.mcpServers;
      if (Object.keys(rest).length) next.mcpServers = rest;
      else delete next.mcpServers;
    }
    return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
  };
  return {
    add,
    remove,
    install(path, opts = {}) {
      const loaded = readSettings(path);
      const { settings, changed } = add(loaded.settings, opts, path);
      const backup = changed ? replaceFile(path, json(settings, loaded.indent)) : undefined;
      return { path, changed, ...(backup ? { backup } : {}) };
    },
    uninstall(path) {
      const loaded = readSettings(path);
      if (!loaded.exists) return { path, changed: false };
      const { settings, changed } = remove(loaded.settings, path);
      // A settings.json left as {} is the one install created: it goes.
      const empty = Object.keys(settings).length === 0;
      const backup = changed
        ? empty
          ? removeFile(path, '{}\n')
          : replaceFile(path, json(settings, loaded.indent))
        : undefined;
      return { path, changed, ...(backup ? { backup } : {}) };
    },
  };
}
