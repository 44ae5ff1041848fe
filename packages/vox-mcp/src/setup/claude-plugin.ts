/**
 * vox's Claude Code plugin, for `vox setup`: the marketplace this checkout is
 * (`.claude-plugin/marketplace.json` at its root), and adding and installing
 * it with Claude Code's own commands, `claude plugin marketplace add DIR` and
 * `claude plugin install PLUGIN@MARKETPLACE`.
 *
 * Design notes:
 * - Claude Code's commands, not its files: the layout of ~/.claude/plugins is
 *   Claude Code's to change, and both commands are idempotent (a second add
 *   says "already on disk", a second install "already installed", exit 0;
 *   Claude Code 2.1.332).
 * - A directory marketplace runs the plugin in place, from this checkout's
 *   plugin/ (`claude plugin list` says "Read from"), so a rebuild needs no
 *   plugin update.
 * - Each run is bounded (60 s, 1 MB of output), and a failure reports the
 *   command and the tail of its stderr.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ClientError } from '../errors.js';
import { packageUrl } from '../package-dir.js';

export interface Marketplace {
  /** The directory holding .claude-plugin/marketplace.json. */
  dir: string;
  name: string;
  /** `vox@<marketplace>`, as `claude plugin install` takes it. */
  plugin: string;
}

const RUN_TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 1024 * 1024;

/** The marketplace of the checkout this vox runs from, or undefined (an install without the checkout). */
export function findMarketplace(): Marketplace | undefined {
  let dir: string;
  try {
    dir = realpathSync(fileURLToPath(packageUrl('../..')));
  } catch {
    return undefined;
  }
  const file = `${dir}/.claude-plugin/marketplace.json`;
  if (!existsSync(file) || !existsSync(`${dir}/plugin/.claude-plugin/plugin.json`)) return undefined;
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; plugins?: { name?: unknown }[] };
    const plugin = m.plugins?.find((p) => p.name === 'vox');
    if (typeof m.name !== 'string' || !plugin) return undefined;
    return { dir, name: m.name, plugin: `vox@${m.name}` };
  } catch {
    return undefined;
  }
}

/** The `claude` commands that install the plugin (or, with `remove`, take it out). */
export function pluginCommands(m: Marketplace, remove = false): string[][] {
  return remove
    ? [
        ['plugin', 'uninstall', m.plugin],
        ['plugin', 'marketplace', 'remove', m.name],
      ]
    : [
        ['plugin', 'marketplace', 'add', m.dir],
        ['plugin', 'install', m.plugin],
      ];
}

/**
 * For --remove: the commands of `pluginCommands(m, true)` that still have
 * something to remove, from `claude plugin list --json` and `claude plugin
 * marketplace list --json` (Claude Code fails an uninstall of what is not
 * installed, so a second --remove would fail). A list it cannot read keeps
 * its command: then Claude Code's own answer decides.
 */
export function stillInstalled(claude: string, m: Marketplace, env: NodeJS.ProcessEnv, cwd: string): string[][] {
  const ids = (args: string[], key: 'id' | 'name'): string[] | undefined => {
    try {
      const list = JSON.parse(runClaude(claude, args, env, cwd, { whole: true })) as Array<Record<string, unknown>>;
      return Array.isArray(list) ? list.map((e) => String(e[key])) : undefined;
    } catch {
      return undefined;
    }
  };
  const plugins = ids(['plugin', 'list', '--json'], 'id');
  const markets = ids(['plugin', 'marketplace', 'list', '--json'], 'name');
  const [uninstall, removeMarket] = pluginCommands(m, true) as [string[], string[]];
  return [
    ...(plugins && !plugins.includes(m.plugin) ? [] : [uninstall]),
    ...(markets && !markets.includes(m.name) ? [] : [removeMarket]),
  ];
}

/** `claude ARGS` as a user would type it (for messages and --dry-run). */
export function shownCommand(args: readonly string[]): string {
  return ['claude', ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Runs `claude` (the executable found on PATH) with `args`: its stdout's last
 * line (`whole`: all of it), or VOX_ERR_CLIENT_SETUP_CLAUDE_FAILED, whose
 * message ends with `after` (what state setup leaves).
 */
export function runClaude(
  claude: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  o: { whole?: boolean; after?: string } = {},
): string {
  const r = spawnSync(claude, args, {
    env,
    cwd,
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS,
    maxBuffer: MAX_OUTPUT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lastLine = (s: string | null | undefined) =>
    (s ?? '')
      // colours and cursor moves of its terminal UI
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .split(/[\r\n]+/)
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? '';
  if (r.error || r.status !== 0) {
    const why = r.error
      ? (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT'
        ? `no answer within ${RUN_TIMEOUT_MS / 1000} s`
        : r.error.message
      : `exit ${r.status ?? r.signal}${lastLine(r.stderr) || lastLine(r.stdout) ? `: ${(lastLine(r.stderr) || lastLine(r.stdout)).slice(0, 300)}` : ''}`;
    throw new ClientError(
      'VOX_ERR_CLIENT_SETUP_CLAUDE_FAILED',
      `"${shownCommand(args)}" failed (${why}). ${o.after ?? 'The links are in place; run that command yourself to see why, then "vox setup" again.'}`,
    );
  }
  if (o.whole) return r.stdout;
  // "Adding marketplace…✔ Successfully added ...": the spinner's text, then the outcome.
  const answer = lastLine(r.stdout);
  return answer.includes('\u2714') ? answer.slice(answer.lastIndexOf('\u2714') + 1).trim() : answer;
}
