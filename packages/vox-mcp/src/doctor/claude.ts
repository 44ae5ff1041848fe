/**
 * What Claude Code has of vox, read from its own files: the plugin, vox's
 * hooks in the settings files, and the MCP servers the mcp_tool hooks call.
 *
 * Design notes:
 * - Where Claude Code keeps them (seen with Claude Code 2.1.332): the plugin is
 *   installed when `<config>/plugins/installed_plugins.json` lists `vox@<market>`
 *   and enabled when a settings file's `enabledPlugins` has it true (install
 *   writes the user settings); `<config>` is CLAUDE_CONFIG_DIR, else ~/.claude.
 *   MCP servers: `claude mcp add --scope user` writes `mcpServers` of
 *   `.claude.json` (in CLAUDE_CONFIG_DIR, else ~), the default `local` scope
 *   writes `projects[<dir>].mcpServers` there, `--scope project` a `.mcp.json`
 *   at the project's root; an enabled plugin's own server is `plugin:vox:vox`.
 * - The plugin and `vox hooks install` are two routes that must not be mixed
 *   (docs/claude-code.md): with the plugin, the settings' vox hooks are the
 *   doubled set-up, never the missing half, so doctor never recommends
 *   `vox hooks install` then.
 * - Every file is read with a size bound (.claude.json grows with history).
 */
import { dirname, join } from 'node:path';
import { isVoxMcpToolHook, PLUGIN_SERVER } from '../claude/hook-entries.js';
import { isObject, readSettings } from '../hooks/settings-file.js';
import { inspectHooks, settingsPath, type SettingsScope } from '../claude/hooks-settings.js';
import { projectRootFor } from '../project/config.js';
import { findMarketplace } from '../setup/claude-plugin.js';
import { claudeJsonPath, readJson, type PluginState } from '../claude/plugin-state.js';
import type { Check } from './check.js';

const SCOPES: SettingsScope[] = ['user', 'project', 'local'];

type Where = { env: NodeJS.ProcessEnv; cwd: string };

/** Whether a server entry runs vox's MCP server (`vox mcp`, or node with a vox entry file and `mcp`). */
function runsVoxMcp(server: unknown): boolean {
  if (!isObject(server)) return false;
  const words = [server.command, ...(Array.isArray(server.args) ? server.args : [])].filter(
    (w): w is string => typeof w === 'string',
  );
  return (
    words.includes('mcp') && words.some((w) => /(?:^|[\\/])vox(?:\.cjs|-cli\.cjs)?$|(?:^|[\\/])vox-mcp[\\/]/.test(w))
  );
}

export interface RegisteredServer {
  name: string;
  /** Where it is registered, e.g. `user (~/.claude.json)`. */
  scope: string;
  vox: boolean;
}

/** The MCP servers a session in `cwd` gets, by name, with where each is registered. */
export function registeredServers(
  where: Where,
  plugin: PluginState,
): { servers: RegisteredServer[]; errors: string[] } {
  const servers: RegisteredServer[] = [];
  const errors: string[] = [];
  const add = (entries: unknown, scope: string) => {
    if (!isObject(entries)) return;
    for (const [name, s] of Object.entries(entries)) servers.push({ name, scope, vox: runsVoxMcp(s) });
  };
  const jsonPath = claudeJsonPath(where.env);
  try {
    const json = readJson(jsonPath);
    add(json?.mcpServers, `user (${jsonPath})`);
    // Claude Code keys the local scope by the directory it ran in: this one or one above it.
    const projects = isObject(json?.projects) ? json.projects : {};
    for (let dir = where.cwd; ; dir = dirname(dir)) {
      const p = projects[dir];
      if (isObject(p)) add(p.mcpServers, `local (${jsonPath}, project ${dir})`);
      if (dirname(dir) === dir) break;
    }
  } catch (err) {
    errors.push((err as Error).message);
  }
  for (const dir of new Set([projectRootFor(where.cwd), where.cwd])) {
    const path = join(dir, '.mcp.json');
    try {
      add(readJson(path)?.mcpServers, `project (${path})`);
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (plugin.active) {
    const path = plugin.installPath ? join(plugin.installPath, '.mcp.json') : undefined;
    try {
      const own = path ? readJson(path) : undefined;
      if (isObject(own?.mcpServers) && own.mcpServers.vox)
        servers.push({ name: PLUGIN_SERVER, scope: `plugin ${plugin.key} (${path})`, vox: true });
      else
        errors.push(
          `the plugin ${plugin.key} has no vox server in ${path ?? 'its install path (installed_plugins.json names none)'}`,
        );
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return { servers, errors };
}

/** The servers that vox's mcp_tool hooks in the settings files call, with the files naming each. */
function hookServers(where: Where): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const scope of SCOPES) {
    const path = settingsPath(scope, where);
    let hooks: unknown;
    try {
      hooks = readSettings(path).settings.hooks;
    } catch {
      continue;
    }
    if (!isObject(hooks)) continue;
    for (const groups of Object.values(hooks)) {
      for (const g of Array.isArray(groups) ? groups : []) {
        for (const h of isObject(g) && Array.isArray(g.hooks) ? g.hooks : []) {
          if (!isVoxMcpToolHook(h) || typeof h.server !== 'string') continue;
          const files = named.get(h.server) ?? [];
          if (!files.includes(path)) files.push(path);
          named.set(h.server, files);
        }
      }
    }
  }
  return named;
}

const scopeFlag = (scope: SettingsScope) => `--${scope}`;

/** vox's hooks: the plugin's, the settings files', both (the doubled set-up) or neither. */
export function hooksCheck(where: Where, plugin: PluginState): Check {
  const states = SCOPES.map((scope) => ({ scope, ...inspectHooks(settingsPath(scope, where)) }));
  const withVox = states.filter((s) => !s.error && s.installed.length > 0);
  const complete = withVox.filter((s) => s.missing.length === 0);
  const broken = states.filter((s) => s.error);
  const describe = (s: (typeof states)[number]) =>
    s.error
      ? `${s.scope}: cannot read ${s.path}`
      : s.missing.length === 0
        ? `${s.scope}: installed`
        : s.installed.length
          ? `${s.scope}: partly (missing ${s.missing.join(', ')})`
          : `${s.scope}: not installed`;
  const detail = states.map(describe).join('; ');
  if (broken.length) {
    return {
      name: 'hooks',
      level: 'warn',
      detail: `${detail} (${broken.map((s) => s.error).join('; ')})`,
      fix: `fix the JSON in ${broken.map((s) => s.path).join(' and ')}; Claude Code cannot read it either`,
    };
  }
  if (plugin.active) {
    const by = `the vox plugin (${plugin.key}, enabled in the ${plugin.enabledIn.join(' and ')} settings) brings its own hooks`;
    if (!withVox.length)
      return { name: 'hooks', level: 'ok', detail: `${by}; no vox hooks in the settings files (${detail})` };
    return {
      name: 'hooks',
      level: 'warn',
      detail: `doubled set-up: ${by}, and vox hooks are also in ${withVox.map((s) => `${s.scope} settings (${s.path})`).join(', ')}: each event is sent twice`,
      fix: `keep one route (docs/claude-code.md): ${withVox.map((s) => `"vox hooks uninstall ${scopeFlag(s.scope)}"`).join(' and ')}, or uninstall the plugin ("claude plugin uninstall ${plugin.key}")`,
    };
  }
  const pluginNote = !plugin.key
    ? ''
    : plugin.enabledIn.length
      ? ` (the vox plugin ${plugin.key} is enabled in the ${plugin.enabledIn.join(' and ')} settings but not installed: "claude plugin install ${plugin.key}")`
      : plugin.disabledIn.length
        ? ` (the vox plugin ${plugin.key} is disabled)`
        : '';
  if (complete.length)
    return { name: 'hooks', level: 'ok', detail: `${detail} (${complete.map((s) => s.path).join(', ')})${pluginNote}` };
  if (withVox.length)
    return {
      name: 'hooks',
      level: 'warn',
      detail: `${detail}${pluginNote}`,
      fix: `run "vox hooks install ${scopeFlag(withVox[0]!.scope)}" to add the missing events`,
    };
  return {
    name: 'hooks',
    level: 'warn',
    detail: `${detail}, and the vox plugin is not installed${pluginNote}: sessions speak only when Claude calls the tools`,
    fix: `choose one route (docs/claude-code.md): install the plugin (${pluginSteps()}), or run "vox hooks install"`,
  };
}

/** How to install the plugin: the commands for this vox's own checkout, which is the marketplace. */
function pluginSteps(): string {
  const m = findMarketplace();
  if (!m) return '"claude plugin marketplace add DIR" with DIR the vox checkout, then "claude plugin install vox@vox"';
  return `"vox setup" runs "claude plugin marketplace add ${m.dir}", then "claude plugin install ${m.plugin}"`;
}

/** The MCP servers: the one each mcp_tool hook names is registered; one vox server per session, not two. */
export function mcpServerChecks(where: Where, plugin: PluginState): Check[] {
  const { servers, errors } = registeredServers(where, plugin);
  const named = hookServers(where);
  if (plugin.active) named.set(PLUGIN_SERVER, [...(named.get(PLUGIN_SERVER) ?? []), `the plugin's hooks`]);
  const checks: Check[] = [];
  const unreadable = errors.length ? ` (${errors.join('; ')})` : '';
  for (const [name, by] of named) {
    const found = servers.filter((s) => s.name === name);
    checks.push(
      found.length
        ? {
            name: 'mcp server',
            level: 'ok',
            detail: `"${name}", which the hooks call, is registered: ${found.map((s) => s.scope).join(', ')}`,
          }
        : {
            name: 'mcp server',
            level: 'fail',
            detail: `the mcp_tool hooks in ${by.join(', ')} call the MCP server "${name}", which no session here has${unreadable}: those events are not spoken`,
            fix:
              name === PLUGIN_SERVER
                ? `install and enable the vox plugin ("claude plugin install vox@vox"), or "vox hooks install --type command" instead`
                : `register it: "claude mcp add --scope user ${name} -- vox mcp"; or write command hooks instead: "vox hooks install --type command"`,
          },
    );
  }
  const vox = servers.filter((s) => s.vox);
  if (vox.length === 1 && !named.size)
    checks.push({ name: 'mcp server', level: 'ok', detail: `"${vox[0]!.name}" runs vox mcp: ${vox[0]!.scope}` });
  if (vox.length > 1) {
    checks.push({
      name: 'mcp server',
      level: 'warn',
      detail: `doubled set-up: ${vox.length} vox MCP servers in each session (${vox.map((s) => `"${s.name}" in ${s.scope}`).join('; ')}): every tool is offered twice`,
      fix: plugin.active
        ? `the plugin has its own server: remove the other with "claude mcp remove ${vox.find((s) => s.name !== PLUGIN_SERVER)?.name ?? 'vox'}"`
        : 'keep one: "claude mcp remove NAME" (add --scope user or --scope project for those)',
    });
  } else if (!vox.length && !named.size) {
    checks.push({
      name: 'mcp server',
      level: 'warn',
      detail: `no vox MCP server is registered for sessions here${unreadable}: Claude has no speech tools`,
      fix: 'install the plugin (docs/claude-code.md), or "claude mcp add --scope user vox -- vox mcp"',
    });
  } else if (errors.length && !checks.some((c) => c.level === 'fail')) {
    // Only when no failed line above named the unreadable files already.
    checks.push({
      name: 'mcp server',
      level: 'warn',
      detail: `some of Claude Code's files could not be read: ${errors.join('; ')}`,
      fix: 'fix or remove the file named',
    });
  }
  return checks;
}
