/**
 * The one table of vox's commands: `vox` dispatches by it and prints it as
 * `vox --help`, and the tests (and, through them, docs/cli.md) go over it, so
 * a command added here is run, listed, documented and tested alike.
 *
 * It is data and loaders only: each command is an import() of its own module,
 * loaded when it runs, so the table costs `vox` nothing per command. The hot
 * commands (say, unmute, hook) are not started through it: bin/vox.cjs loads
 * their own bundles (scripts/bundle.mjs), which import their module directly.
 */
import type { DefinedCommand } from './command.js';

export interface CommandEntry {
  name: string;
  /** Other names that run the same command (it still speaks as `name`). */
  aliases?: readonly string[];
  /** What `vox --help` shows after two spaces, e.g. "say [TEXT|-]". */
  synopsis: string;
  /** One line for `vox --help`; left out where the synopsis says it all (daemon's actions). */
  summary?: string;
  load(): Promise<{ command: DefinedCommand }>;
}

// Literal import() calls, so the bundler can split each command into its own chunk.
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'say',
    aliases: ['unmute'],
    synopsis: 'say [TEXT|-]',
    summary: 'speak text through voxd',
    load: () => import('./commands/say.js'),
  },
  { name: 'stop', synopsis: 'stop [--all]', summary: 'stop speech', load: () => import('./commands/stop.js') },
  {
    name: 'recap',
    synopsis: 'recap',
    summary: 'say what you missed since the last recap',
    load: () => import('./commands/recap.js'),
  },
  {
    name: 'focus',
    synopsis: 'focus [LABEL]',
    summary: 'name the session you are in, or show it',
    load: () => import('./commands/focus.js'),
  },
  {
    name: 'replay',
    synopsis: 'replay [N]',
    summary: 'play a recent utterance again, from the cache',
    load: () => import('./commands/replay.js'),
  },
  {
    name: 'history',
    synopsis: 'history [-n N]',
    summary: 'list recent utterances and what you missed',
    load: () => import('./commands/history.js'),
  },
  {
    name: 'status',
    synopsis: 'status [--watch]',
    summary: "show voxd's state, queue and history",
    load: () => import('./commands/status.js'),
  },
  { name: 'voices', synopsis: 'voices', summary: 'list voices', load: () => import('./commands/voices.js') },
  {
    name: 'chime',
    synopsis: 'chime SIGNAL',
    summary: 'play a chime (done, prompt, error, attention)',
    load: () => import('./commands/chime.js'),
  },
  {
    name: 'listen',
    synopsis: 'listen',
    summary: "hear what the user says (voxd's microphone), print it",
    load: () => import('./commands/listen.js'),
  },
  {
    name: 'talk',
    synopsis: 'talk [SESSION] [TEXT]',
    summary: 'say something to one session (push-to-talk without TEXT)',
    load: () => import('./commands/talk.js'),
  },
  {
    name: 'mcp',
    synopsis: 'mcp',
    summary: 'run the stdio MCP server for one Claude Code session',
    load: () => import('./commands/mcp.js'),
  },
  {
    name: 'hook',
    synopsis: 'hook EVENT',
    summary: 'handle a Claude Code hook (payload on stdin)',
    load: () => import('./commands/hook.js'),
  },
  {
    name: 'hooks',
    synopsis: 'hooks install|uninstall',
    summary: "add or remove vox's hooks (Claude Code, Codex, Gemini, ...)",
    load: () => import('./commands/hooks.js'),
  },
  {
    name: 'config',
    synopsis: 'config [check]',
    summary: "show or validate this project's .vox/config.md",
    load: () => import('./commands/config.js'),
  },
  {
    name: 'init',
    synopsis: 'init',
    summary: 'write a commented .vox/config.md',
    load: () => import('./commands/init.js'),
  },
  {
    name: 'daemon',
    synopsis: 'daemon install|uninstall|start|stop|restart|status|config',
    load: () => import('./commands/daemon.js'),
  },
  {
    name: 'setup',
    synopsis: 'setup',
    summary: 'put vox and voxd on PATH, add the Claude Code plugin',
    load: () => import('./commands/setup.js'),
  },
  { name: 'doctor', synopsis: 'doctor', summary: 'check the installation', load: () => import('./commands/doctor.js') },
  {
    name: 'remote',
    synopsis: 'remote connect HOST',
    summary: 'speak through voxd on another host, over ssh',
    load: () => import('./commands/remote.js'),
  },
  { name: 'logs', synopsis: 'logs [-f]', summary: "show voxd's logs", load: () => import('./commands/logs.js') },
];

/** The entry that `name` (a command's name or alias) runs. */
export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

/** Every name vox answers to, aliases after their command. */
export function commandNames(): string[] {
  return COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
}

/** `vox --help`. */
export function usage(): string {
  // The summaries start in one column; a longer synopsis pushes its summary right (three spaces apart).
  const line = (c: CommandEntry) => {
    const summary = `${c.summary ?? ''}${c.aliases?.length ? ` (alias: ${c.aliases.join(', ')})` : ''}`;
    return summary ? `  ${c.synopsis}${' '.repeat(Math.max(3, 20 - c.synopsis.length))}${summary}` : `  ${c.synopsis}`;
  };
  return `vox — one voice for many coding sessions

Usage: vox <command> [options]

Commands:
${COMMANDS.map(line).join('\n')}

Run "vox <command> --help" for a command's options.
`;
}
