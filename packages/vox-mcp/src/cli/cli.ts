#!/usr/bin/env node
/**
 * `vox`: the client entry. It stays tiny and loads only the command it runs,
 * because every Claude Code hook starts one (see bench/say.mjs).
 */
import { suggestion } from './usage.js';
import { processContext, type CliContext, type Command } from './context.js';

// Literal import() calls, so the bundler can split each command into its own chunk.
const COMMANDS: Record<string, () => Promise<{ run: Command }>> = {
  say: () => import('./commands/say.js'),
  unmute: () => import('./commands/say.js'),
  stop: () => import('./commands/stop.js'),
  status: () => import('./commands/status.js'),
  voices: () => import('./commands/voices.js'),
  chime: () => import('./commands/chime.js'),
  mcp: () => import('./commands/mcp.js'),
  hook: () => import('./commands/hook.js'),
  hooks: () => import('./commands/hooks.js'),
  config: () => import('./commands/config.js'),
  init: () => import('./commands/init.js'),
  daemon: () => import('./commands/daemon.js'),
  doctor: () => import('./commands/doctor.js'),
  logs: () => import('./commands/logs.js'),
  listen: () => import('./commands/listen.js'),
};

const USAGE = `vox — one voice for many coding sessions

Usage: vox <command> [options]

Commands:
  say [TEXT|-]        speak text through voxd (alias: unmute)
  stop [--all]        stop speech
  status [--watch]    show voxd's state, queue and history
  voices              list voices
  chime SIGNAL        play a chime (done, prompt, error, attention)
  listen              hear what the user says (voxd's microphone), print it
  mcp                 run the stdio MCP server for one Claude Code session
  hook EVENT          handle a Claude Code hook (payload on stdin)
  hooks install|uninstall   add or remove vox's Claude Code hooks
  config [check]      show or validate this project's .vox/config.md
  init                write a commented .vox/config.md
  daemon install|uninstall|start|stop|restart|status|config
  doctor              check the installation
  logs [-f]           show voxd's logs

Run "vox <command> --help" for a command's options.
`;

export async function main(argv: string[], ctx: Omit<CliContext, 'argv'>): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(USAGE);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    const { VERSION } = await import('@vox/protocol');
    ctx.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    const what = name.startsWith('-') ? 'flag' : 'command';
    const hint = suggestion(name, Object.keys(COMMANDS), true);
    ctx.stderr.write(`vox: unknown ${what} "${name}"${hint || '.'} See "vox --help".\n`);
    return 2;
  }
  const mod = await load();
  // Copy the stream getters as getters (spreading would open stdin), then give the command its own arguments.
  const descriptors = { ...Object.getOwnPropertyDescriptors(ctx), argv: { value: rest, enumerable: true } };
  return mod.run(Object.defineProperties({}, descriptors) as CliContext);
}

// No top-level await: this file is also bundled as CommonJS (scripts/bundle.mjs).
void main(process.argv.slice(2), processContext([])).then((code) => {
  // Commands that hold handles (mcp, status --watch, logs -f) resolve when they end.
  process.exitCode = code;
});
