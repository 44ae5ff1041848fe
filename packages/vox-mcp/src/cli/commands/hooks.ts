/**
 * `vox hooks install|uninstall|status`: vox's entries in Claude Code's settings,
 * or with --agent another agent's (agents/).
 */
import { EXIT } from '../context.js';
import { defineCommand, pickAction } from '../command.js';
import { UsageError, wrap } from '../usage.js';
import { agentList, agentNamed, AGENT_NAMES, AGENT_TABLE } from '../agent-table.js';
import { HOOK_EVENTS, HOOK_TYPES } from '../../claude/hook-entries.js';
import type { SettingsCall } from '../../hooks/agent.js';
import { SettingsError } from '../../hooks/settings-file.js';

const OTHERS = AGENT_TABLE.slice(1)
  .map((a) => `${a.name} writes ${a.writes}`)
  .join('; ');

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
  --agent NAME   ${wrap(`${agentList()} (docs/agents.md): ${OTHERS}. Each changed file is first copied to <file>.vox-backup`, 17)}
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
    agent: { type: 'enum', values: AGENT_NAMES },
  },
  maxArgs: 1,
  async run({ ctx, flags: values, args }) {
    const action = pickAction(args, ['install', 'uninstall', 'status'] as const);
    const scopes = (['user', 'project', 'local'] as const).filter((s) => values[s]);
    if (scopes.length > 1) throw new UsageError('choose one of --user, --project, --local');
    const json = values.json === true;
    const out = (obj: unknown, text: string): void => {
      ctx.stdout.write(json ? `${JSON.stringify(obj)}\n` : text);
    };

    try {
      const agent = agentNamed(values.agent);
      const settings = await agent.settings();
      const act = action === 'status' ? settings.status : settings[action];
      if (!act)
        throw new UsageError(`status --agent ${agent.name} is not supported; docs/agents.md says which files to read`);
      const given = {
        scope: scopes.map((s) => `--${s}`),
        type: values.type ? ['--type'] : [],
        server: values.server !== undefined ? ['--server'] : [],
      };
      const refused = (Object.keys(given) as Array<keyof typeof given>).filter((o) => !agent.options.includes(o));
      const unread = refused.flatMap((o) => given[o]);
      if (unread.length)
        throw new UsageError(
          `${unread.join(', ')}: Claude Code's settings only; --agent ${agent.name} writes that agent's own files (docs/agents.md)`,
        );
      if (action === 'install' && values.server !== undefined && !/^[\w.:@-]{1,100}$/.test(values.server)) {
        throw new UsageError(
          `--server must be an MCP server name as "claude mcp list" shows it, got ${JSON.stringify(values.server)}`,
        );
      }
      const call: SettingsCall = {
        env: ctx.env,
        cwd: ctx.cwd,
        portable: values.portable === true,
        ...(scopes[0] ? { scope: scopes[0] } : {}),
        ...(values.type ? { type: values.type } : {}),
        ...(values.server !== undefined ? { server: values.server } : {}),
      };
      const res = await act(call);
      out(res.json, res.text);
      return res.failed ? EXIT.INTERNAL : EXIT.OK;
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
