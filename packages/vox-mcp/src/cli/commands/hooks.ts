/**
 * `vox hooks install|uninstall|status`: vox's entries in Claude Code's settings,
 * or with --agent another agent's (agents/).
 */
import { compareVersions } from '@vox/protocol';
import { EXIT } from '../context.js';
import { defineCommand, pickAction } from '../command.js';
import { UsageError } from '../usage.js';
import { detectHookType } from '../../claude/claude-version.js';
import {
  CONTINUOUS_ONLY_COMMANDS,
  DEFAULT_SERVER,
  HOOK_EVENTS,
  HOOK_TYPES,
  MCP_TOOL_EVENTS,
  MESSAGE_DISPLAY_SINCE,
  NARRATION_EVENTS,
  hookCommand,
  type HookEvent,
} from '../../claude/hook-entries.js';
import {
  SettingsError,
  inspectHooks,
  installHooks,
  settingsPath,
  uninstallHooks,
  type SettingsScope,
} from '../../claude/hooks-settings.js';

const USAGE = `Usage: vox hooks install|uninstall|status [options]

Adds or removes vox's Claude Code hooks (${HOOK_EVENTS.join(', ')}),
or with --agent another agent's hooks and MCP server (below).
Other hooks and settings are left as they are.

Two kinds of hook: "mcp_tool" calls the hook tool of the session's own
"vox mcp" (no process per event; Claude Code 2.1.118 and later), "command"
runs "vox hook <Event>" (every version). install asks the claude command for
its version to choose, and says which it wrote. SessionStart and SessionEnd are
always commands (no MCP server is connected when they fire).

Options:
  --user         ~/.claude/settings.json (the default)
  --project      <project>/.claude/settings.json (usually committed: see
                 --portable)
  --local        <project>/.claude/settings.local.json (this machine only)
                 where <project> is the directory above here that holds
                 .vox/config.md, else .git, else this directory
  --type TYPE    mcp_tool or command, instead of asking claude its version
  --server NAME  the MCP server that mcp_tool hooks call (default: vox,
                 as "claude mcp add vox -- vox mcp" names it)
  --portable     commands run "vox hook <Event>" from PATH instead of
                 absolute paths
  --agent NAME   claude (the default), codex, gemini, copilot, opencode or
                 qwen (docs/agents.md): codex writes hooks.json and
                 [mcp_servers.vox] in config.toml in $CODEX_HOME (default
                 ~/.codex); gemini writes hooks and mcpServers.vox in
                 ~/.gemini/settings.json; copilot writes hooks/vox.json and
                 mcpServers.vox in mcp-config.json in $COPILOT_HOME (default
                 ~/.copilot); opencode writes plugin/vox.js and mcp.vox in
                 opencode.json in ~/.config/opencode; qwen writes hooks
                 and mcpServers.vox in settings.json in $QWEN_HOME (default
                 ~/.qwen). Each changed file is first copied to
                 <file>.vox-backup
  --json         machine-readable output
  -h, --help     show this help
`;

export const command = defineCommand({
  name: 'hooks',
  usage: USAGE,
  flags: {
    user: { type: 'boolean' },
    project: { type: 'boolean' },
    local: { type: 'boolean' },
    type: { type: 'enum', values: HOOK_TYPES },
    server: { type: 'string' },
    portable: { type: 'boolean' },
    json: { type: 'boolean' },
    agent: { type: 'enum', values: ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'qwen'] },
  },
  maxArgs: 1,
  async run({ ctx, flags: values, args }) {
    const action = pickAction(args, ['install', 'uninstall', 'status'] as const);
    const scopes = (['user', 'project', 'local'] as const).filter((s) => values[s]);
    if (scopes.length > 1) throw new UsageError('choose one of --user, --project, --local');
    const where = { env: ctx.env, cwd: ctx.cwd };
    const json = values.json === true;
    const out = (obj: unknown, text: string): void => {
      ctx.stdout.write(json ? `${JSON.stringify(obj)}\n` : text);
    };

    try {
      if (values.agent !== undefined && values.agent !== 'claude') {
        const agent = values.agent;
        if (action === 'status')
          throw new UsageError(`status --agent ${agent} is not supported; docs/agents.md says which files to read`);
        const claudeOnly = [
          ...scopes.map((s) => `--${s}`),
          ...(values.type ? ['--type'] : []),
          ...(values.server !== undefined ? ['--server'] : []),
        ];
        if (claudeOnly.length)
          throw new UsageError(
            `${claudeOnly.join(', ')}: Claude Code's settings only; --agent ${agent} writes that agent's own files (docs/agents.md)`,
          );
        const { changeAgent } = await import('../../agents/agent-settings.js');
        const res = await changeAgent(agent, action === 'install', ctx.env, { portable: values.portable === true });
        out(res.json, res.lines.join(''));
        return EXIT.OK;
      }
      if (action === 'status') {
        const list: SettingsScope[] = scopes.length ? [scopes[0]!] : ['user', 'project', 'local'];
        const states = list.map((scope) => ({ scope, ...inspectHooks(settingsPath(scope, where)) }));
        const lines = states.map((s) => {
          if (s.error) return `${s.scope}: cannot read ${s.path}: ${s.error}\n`;
          if (s.missing.length === 0) return `${s.scope}: installed in ${s.path}\n`;
          if (s.installed.length === 0) return `${s.scope}: not installed (${s.path})\n`;
          return `${s.scope}: partly installed in ${s.path} (missing ${s.missing.join(', ')}); run "vox hooks install --${s.scope}"\n`;
        });
        out(states, lines.join(''));
        return states.some((s) => s.error) ? EXIT.INTERNAL : EXIT.OK;
      }

      const scope: SettingsScope = scopes[0] ?? 'user';
      const path = settingsPath(scope, where);
      if (action === 'install') {
        const portable = values.portable === true;
        if (values.server !== undefined && !/^[\w.:@-]{1,100}$/.test(values.server)) {
          throw new UsageError(
            `--server must be an MCP server name as "claude mcp list" shows it, got ${JSON.stringify(values.server)}`,
          );
        }
        const server = values.server ?? DEFAULT_SERVER;
        const choice = values.type ? { type: values.type, reason: `--type ${values.type}` } : detectHookType(ctx.env);
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
        out(
          {
            action,
            scope,
            ...res,
            type: choice.type,
            ...(choice.version ? { claudeVersion: choice.version } : {}),
            server,
            mcpToolEvents: mcpEvents,
            command: example,
          },
          `${lines.join('\n')}\n`,
        );
        return EXIT.OK;
      }

      const res = uninstallHooks(path, { removeEmptyDir: scope !== 'user' });
      const what = res.deleted ? `; it held nothing else, so the file is deleted` : '';
      out(
        { action, scope, ...res },
        res.changed ? `Removed ${res.removed} vox hook(s) from ${path}${what}\n` : `No vox hooks in ${path}\n`,
      );
      return EXIT.OK;
    } catch (err) {
      // A settings file that cannot be read or written: its own message, not an "unexpected error".
      if (err instanceof SettingsError) {
        ctx.stderr.write(`vox hooks: ${err.message}\n`);
        return EXIT.INTERNAL;
      }
      throw err;
    }
  },
});
export const run = command.run;
