/**
 * What `vox mcp` can learn of Claude Code's channel gate for its own session,
 * so that `vox talk` can say whether the session will show a text.
 *
 * Claude Code 2.1.332 acknowledges no channel notification, and declares
 * nothing about channels at `initialize` (its client capabilities are
 * `roots` and `elicitation` only, captured from the real binary): the gate's
 * state is not on the wire. What a server can read is its session's command
 * line (Claude Code starts `vox mcp` as its own child, the plugin's launcher
 * in the same process) and the feature flag Claude Code caches in
 * `~/.claude.json`. From those, in Claude Code's own order
 * (docs/talk-back.md): a `-p` run never registers channels; a session started
 * with neither `--channels` nor `--dangerously-load-development-channels`, or
 * whose lists name another server, drops every text; a cached `tengu_harbor`
 * that is not on means the preview is off for the account. When the command
 * line cannot be read (not Linux, not started by Claude Code) the gate is
 * unknown, and `vox talk` says so: vox claims a text will be shown only when
 * it has seen the session ask for vox's channel.
 *
 * A `server:NAME` entry is taken to name vox when vox is not the plugin's
 * server: Claude Code passes a server no name, and a person's MCP
 * configuration may call vox anything.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readRegularFile } from '@vox/protocol';
import type { ChannelGate } from '@vox/protocol';

const CHANNEL_FLAGS = ['--channels', '--dangerously-load-development-channels'];
/** ~/.claude.json holds every project's history: read it whole only under this. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

export interface GateInputs {
  /** The session's command line, from its first word; undefined when it cannot be read. */
  argv: string[] | undefined;
  /** vox mcp runs as the plugin's server (plugin:vox:vox), not one of a person's MCP configuration. */
  fromPlugin: boolean;
  /** Claude Code's cached feature flags (`cachedGrowthBookFeatures`), when the cache was read. */
  flags: Record<string, unknown> | undefined;
}

/** The entries of every channel list on a command line (`--channels a b`, `--channels=a,b`). */
export function channelEntries(argv: string[]): string[] | undefined {
  let found = false;
  const entries: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = CHANNEL_FLAGS.find((f) => arg === f || arg.startsWith(`${f}=`));
    if (!flag) continue;
    found = true;
    const values = arg === flag ? [] : [arg.slice(flag.length + 1)];
    while (arg === flag && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) values.push(argv[++i]!);
    for (const v of values) entries.push(...v.split(/[\s,]+/).filter(Boolean));
  }
  return found ? entries : undefined;
}

/** Whether Claude Code, started with `inputs`, lets vox's channel through, and why not. */
export function channelGate(inputs: GateInputs): ChannelGate {
  const { argv } = inputs;
  // Claude Code's binary, or a script of that name run by node (its npm launcher, a test's stand-in).
  if (!argv?.slice(0, 2).some((word) => /claude/i.test(basename(word))))
    return {
      open: false,
      reason: "vox mcp cannot read its Claude Code's command line, so it cannot tell whether channels are on",
    };
  if (argv.some((a) => a === '-p' || a === '--print'))
    return { open: false, reason: 'the session is a claude -p run, which never registers channels' };
  const entries = channelEntries(argv);
  if (!entries)
    return {
      open: false,
      reason:
        'the session was started without --channels (or --dangerously-load-development-channels) naming vox, so Claude Code drops channel messages',
    };
  const names = (e: string) =>
    inputs.fromPlugin ? /^plugin:vox@/.test(e) : e.startsWith('server:') && e.length > 'server:'.length;
  if (!entries.some(names))
    return {
      open: false,
      reason: `the session's channel list (${entries.join(', ') || 'empty'}) does not name ${inputs.fromPlugin ? 'plugin:vox@…' : "vox's server"}, so Claude Code drops its channel messages`,
    };
  if (inputs.flags && inputs.flags['tengu_harbor'] !== true)
    return {
      open: false,
      reason:
        "Claude Code's channels research preview is off for this account (its cached flag in ~/.claude.json), so it drops channel messages",
    };
  return { open: true, reason: `the session was started with ${entries.filter(names).join(', ')} in its channel list` };
}

/** The command line of process `pid` (Linux's /proc); undefined elsewhere. */
export function commandLineOf(pid: number): string[] | undefined {
  const r = readRegularFile(`/proc/${pid}/cmdline`, { maxBytes: 256 * 1024 });
  if (!r.ok || !r.text) return undefined;
  return r.text.replace(/\0$/, '').split('\0');
}

/** Claude Code's cached feature flags, from its config file (CLAUDE_CONFIG_DIR, else HOME). */
export function cachedFlags(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined {
  const dir = env.CLAUDE_CONFIG_DIR ?? env.HOME;
  if (!dir) return undefined;
  const r = readRegularFile(join(dir, '.claude.json'), { maxBytes: MAX_CONFIG_BYTES, followLinks: true });
  if (!r.ok) return undefined;
  try {
    const flags = (JSON.parse(r.text) as { cachedGrowthBookFeatures?: unknown }).cachedGrowthBookFeatures;
    return flags && typeof flags === 'object' ? (flags as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** This `vox mcp`'s gate: its parent's command line, where it was started from, the cached flags. */
export function sessionChannelGate(env: NodeJS.ProcessEnv, ppid = process.ppid, script = process.argv[1]): ChannelGate {
  const fromPlugin =
    env.CLAUDE_PLUGIN_ROOT !== undefined ||
    (script !== undefined && existsSync(join(dirname(script), '..', '.claude-plugin', 'plugin.json')));
  return channelGate({ argv: commandLineOf(ppid), fromPlugin, flags: cachedFlags(env) });
}
