/**
 * `vox hooks install|uninstall|status` for Claude Code (its adapter's
 * settings, hooks/agent.ts): which file (`--user`, `--project`, `--local`),
 * which kind of hook (`--type`, else the version `claude` reports), and what
 * is printed. The entries are hook-entries.ts's; the file is
 * hooks-settings.ts's.
 */
import { compareVersions } from '@vox/protocol';
import type { AgentSettings, SettingsCall, SettingsReport } from '../hooks/agent.js';
import { detectHookType } from './claude-version.js';
import {
  CONTINUOUS_ONLY_COMMANDS,
  DEFAULT_SERVER,
  HOOK_EVENTS,
  MCP_TOOL_EVENTS,
  MESSAGE_DISPLAY_SINCE,
  NARRATION_EVENTS,
  hookCommand,
  type HookEvent,
} from './hook-entries.js';
import { pluginState } from './plugin-state.js';
import { inspectHooks, installHooks, settingsPath, uninstallHooks, type SettingsScope } from './hooks-settings.js';

const where = (c: SettingsCall) => ({ env: c.env, cwd: c.cwd });

async function status(c: SettingsCall): Promise<SettingsReport> {
  const list: SettingsScope[] = c.scope ? [c.scope] : ['user', 'project', 'local'];
  const states = list.map((scope) => ({ scope, ...inspectHooks(settingsPath(scope, where(c))) }));
  // With the plugin its own hooks run, and the settings files are meant to hold none (docs/claude-code.md).
  const plugin = pluginState(where(c));
  const lines = states.map((s) => {
    if (s.error) return `${s.scope}: cannot read ${s.path}: ${s.error}\n`;
    if (s.missing.length === 0)
      return `${s.scope}: installed in ${s.path}${plugin.active ? ' (also the plugin: each event is sent twice; "vox doctor" says which to remove)' : ''}\n`;
    if (s.installed.length === 0) return `${s.scope}: ${plugin.active ? 'none in' : 'not installed'} (${s.path})\n`;
    if (plugin.active) return `${s.scope}: partly in ${s.path} (also the plugin: "vox hooks uninstall --${s.scope}")\n`;
    return `${s.scope}: partly installed in ${s.path} (missing ${s.missing.join(', ')}); run "vox hooks install --${s.scope}"\n`;
  });
  const head = plugin.active
    ? [
        `The vox plugin (${plugin.key}, enabled in the ${plugin.enabledIn.join(' and ')} settings) provides the hooks; the settings files need none:\n`,
      ]
    : [];
  return {
    json: states,
    text: [...head, ...lines].join(''),
    failed: states.some((s) => s.error),
  };
}

async function install(c: SettingsCall): Promise<SettingsReport> {
  const scope: SettingsScope = c.scope ?? 'user';
  const path = settingsPath(scope, where(c));
  const portable = c.portable;
  const server = c.server ?? DEFAULT_SERVER;
  const choice = c.type ? { type: c.type, reason: `--type ${c.type}` } : detectHookType(c.env);
  // Narration (MessageDisplay) only where this Claude Code has it; a version not read gets it with --type mcp_tool.
  const narration =
    choice.type === 'mcp_tool' &&
    (!('version' in choice) || !choice.version || compareVersions(choice.version, MESSAGE_DISPLAY_SINCE) >= 0);
  const res = installHooks(path, { portable, type: choice.type, server, narration });
  const example = hookCommand('Stop', { portable });
  const mcpEvents: readonly HookEvent[] =
    choice.type === 'mcp_tool' ? [...MCP_TOOL_EVENTS, ...(narration ? NARRATION_EVENTS : [])] : [];
  const commandEvents = HOOK_EVENTS.filter((e) => !mcpEvents.includes(e));
  const lines = [
    res.changed
      ? `Installed vox hooks for ${HOOK_EVENTS.join(', ')} in ${path}`
      : `vox hooks were already installed in ${path}`,
    `Wrote ${choice.type === 'mcp_tool' ? 'mcp_tool' : 'command'} hooks: ${choice.reason}.`,
  ];
  if (mcpEvents.length) {
    // The server is started as the command hooks are: by absolute paths unless --portable, so it
    // starts whatever PATH Claude Code has (a desktop launcher's lacks ~/.local/bin).
    const serve = example.replace(/ hook Stop$/, ' mcp');
    lines.push(
      `${mcpEvents.join(', ')} call the tool "hook" of the MCP server "${server}" (register it: claude mcp add --scope user ${server} -- ${serve}).`,
    );
  }
  lines.push(
    `${commandEvents.join(', ')} run${commandEvents.length === 1 ? 's' : ''}: ${example.replace(/Stop$/, '<Event>')}`,
  );
  const gated = commandEvents.filter((e) => CONTINUOUS_ONLY_COMMANDS.includes(e));
  if (gated.length) {
    lines.push(
      `${gated.join(' and ')} first look for the nearest .vox/config.md in the shell, and start node only where it says notify: chatty (they say nothing otherwise).`,
    );
  }
  if (scope === 'project' && !portable) {
    lines.push(
      'Note: .claude/settings.json is usually committed, and these commands hold paths of this machine; use --local, or --portable with vox on PATH, for a shared repository.',
    );
  }
  if (res.changed)
    lines.push('Claude Code reads hooks at session start: restart running sessions (or review them in /hooks).');
  return {
    json: {
      action: 'install',
      scope,
      ...res,
      type: choice.type,
      ...(choice.version ? { claudeVersion: choice.version } : {}),
      server,
      mcpToolEvents: mcpEvents,
      command: example,
    },
    text: `${lines.join('\n')}\n`,
  };
}

async function uninstall(c: SettingsCall): Promise<SettingsReport> {
  const scope: SettingsScope = c.scope ?? 'user';
  const path = settingsPath(scope, where(c));
  const res = uninstallHooks(path, { removeEmptyDir: scope !== 'user' });
  const what = res.deleted ? `; it held nothing else, so the file is deleted` : '';
  return {
    json: { action: 'uninstall', scope, ...res },
    text: res.changed ? `Removed ${res.removed} vox hook(s) from ${path}${what}\n` : `No vox hooks in ${path}\n`,
  };
}

export const claudeSettings: AgentSettings = { install, uninstall, status };
