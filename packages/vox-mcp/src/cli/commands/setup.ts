/**
 * `vox setup [--bin DIR] [--force] [--no-plugin] [--dry-run] [--remove]`:
 * puts `vox` and `voxd` on PATH (links in ~/.local/bin, ../../setup/bin-links.ts)
 * and, when Claude Code is on PATH, adds this checkout's plugin to it
 * (../../setup/claude-plugin.ts). The README's set-up runs it once through npx;
 * every form the docs show afterwards runs `vox` from PATH.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { ClientError } from '../../errors.js';
import {
  applyLinks,
  defaultBinDir,
  onPath,
  pathLine,
  planLinks,
  shadowingVox,
  voxBins,
  type LinkPlan,
} from '../../setup/bin-links.js';
import { findClaudeCode } from '../../claude/claude-code.js';
import { findMarketplace, pluginCommands, runClaude, shownCommand, stillInstalled } from '../../setup/claude-plugin.js';
import { applyKeybindings, keybindingsPath, planKeybinding, VOX_KEYS } from '../../setup/claude-keys.js';
import { SettingsError } from '../../hooks/settings-file.js';
import { defineCommand } from '../command.js';
import { EXIT, type CliContext } from '../context.js';

const USAGE = `Usage: vox setup [options]

Links vox and voxd into ~/.local/bin, so that they run from PATH outside npx
(says so, and prints the line to add, when that directory is not on PATH).
When Claude Code is here (VOX_CLAUDE_CODE, else claude on PATH), adds this
checkout's plugin to it:
  claude plugin marketplace add <checkout>
  claude plugin install vox@vox
and binds ctrl+x v to /vox-stop (the vox mod: stops the session's speech)
and ctrl+x t to /vox-talk (push-to-talk into the session) in
~/.claude/keybindings.json, backed up first.
Running it again changes nothing that is already set up.

Options:
  --bin DIR     link into DIR instead of ~/.local/bin
  --force       replace a file in the way that is not a link vox made
  --no-plugin   only the links; leave Claude Code alone
  --no-key      add the plugin but no key bindings
  --dry-run     say what would be done, do nothing
  --remove      remove vox's links (only those), the plugin and its key bindings
  -h, --help    show this help
`;

const SAID: Record<LinkPlan['action'], string> = {
  create: 'Linked',
  keep: 'Already linked',
  repoint: 'Re-linked',
  replace: 'Replaced',
  remove: 'Removed',
  absent: 'Nothing to remove at',
};
const WOULD: Record<LinkPlan['action'], string> = {
  create: 'Would link',
  keep: 'Already linked',
  repoint: 'Would re-link',
  replace: 'Would replace',
  remove: 'Would remove',
  absent: 'Nothing to remove at',
};

function linkLine(p: LinkPlan, dryRun: boolean): string {
  const verb = (dryRun ? WOULD : SAID)[p.action];
  if (p.action === 'absent') return `${verb} ${p.path}${p.was ? ` (${p.was}, not vox's: left alone)` : ''}`;
  if (p.action === 'remove') return `${verb} ${p.path}`;
  return `${verb} ${p.path} -> ${p.target}${p.was && p.action !== 'keep' ? ` (was ${p.was})` : ''}`;
}

/** The Claude Code half: install (or remove) the plugin when claude is on PATH, else say how to later. True: it was installed (or removed). */
function plugin(ctx: CliContext, say: (s: string) => void, o: { dryRun: boolean; remove: boolean }): boolean {
  const market = findMarketplace();
  if (!market) {
    say(
      'Claude Code: no plugin marketplace beside this vox (it is in the vox checkout); register "vox mcp" instead (docs/claude-code.md, route A).',
    );
    return false;
  }
  const commands = pluginCommands(market, o.remove);
  const claude = findClaudeCode(ctx.env, { version: false })?.path;
  if (!claude) {
    say(
      `Claude Code: claude is not on PATH. To ${o.remove ? 'remove the plugin' : 'add vox to Claude Code'} later: ${commands.map(shownCommand).join(' && ')}`,
    );
    return false;
  }
  // Removing what is already gone would fail: only what Claude Code still lists.
  const todo = o.remove ? stillInstalled(claude, market, ctx.env, ctx.cwd) : commands;
  if (o.remove && todo.length === 0)
    say(`Claude Code: the plugin ${market.plugin} and the marketplace "${market.name}" are not installed.`);
  const after = (args: string[]) =>
    o.remove ? { after: `The links are removed; run "${shownCommand(args)}" yourself to see why.` } : {};
  for (const args of todo) {
    if (o.dryRun) {
      say(`Would run: ${shownCommand(args)}`);
      continue;
    }
    const answer = runClaude(claude, args, ctx.env, ctx.cwd, after(args));
    say(`Ran: ${shownCommand(args)}${answer ? ` (${answer})` : ''}`);
  }
  if (!o.dryRun && !o.remove) say('Claude Code loads plugins at session start: restart running sessions.');
  return true;
}

/** The chords for the mod's commands in Claude Code's keybindings.json (../../setup/claude-keys.ts). */
function keybinding(ctx: CliContext, say: (s: string) => void, o: { dryRun: boolean; remove: boolean }): void {
  const path = keybindingsPath(ctx.env, ctx.env.HOME || homedir());
  try {
    const plans = VOX_KEYS.map((key) => planKeybinding(path, o, key));
    const backup = o.dryRun ? undefined : applyKeybindings(plans);
    const saved = backup ? ` (the file as it was: ${backup})` : '';
    for (const { action, detail, key } of plans) {
      const line: Record<typeof action, string> = {
        add: `${o.dryRun ? 'Would bind' : 'Bound'} ${key.chord} to ${key.command} in ${path}${saved}: ${key.does} (the vox mod, Claude Code 2.1.287 and later).`,
        keep: `Already bound: ${detail} to ${key.command} in ${path}.`,
        taken: `Not bound: ${key.chord} is yours in ${path} ("${detail}"). To have a key for ${key.command}, add "CHORD": "${key.action}" to its "Chat" bindings.`,
        remove: `${o.dryRun ? 'Would remove' : 'Removed'} the ${key.command} key binding from ${path}${saved}.`,
        absent: `No ${key.command} key binding in ${path}.`,
      };
      say(line[action]);
    }
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    say(`Key binding: ${err.message}`);
  }
}

export const command = defineCommand({
  name: 'setup',
  usage: USAGE,
  flags: {
    bin: { type: 'string' },
    force: { type: 'boolean' },
    'no-plugin': { type: 'boolean' },
    'no-key': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    remove: { type: 'boolean' },
  },
  async run({ ctx, flags: values }) {
    const dryRun = values['dry-run'] === true;
    const remove = values.remove === true;
    const home = ctx.env.HOME || homedir();
    const dir = values.bin !== undefined ? resolve(ctx.cwd, values.bin) : defaultBinDir(ctx.env, home);
    const say = (s: string) => ctx.stdout.write(`${s}\n`);
    try {
      const plans = planLinks(dir, voxBins(), { force: values.force === true, remove });
      if (!dryRun) applyLinks(dir, plans);
      for (const p of plans) say(linkLine(p, dryRun));
      if (!remove) {
        if (!onPath(dir, ctx.env)) {
          say(
            `${dir} is not on PATH, so a shell will not find vox there. Add this line to your shell's startup file (~/.profile, ~/.bashrc or ~/.zshrc), and run it in open shells:`,
          );
          say(`  ${pathLine(dir, home)}`);
        } else {
          const other = shadowingVox(dir, ctx.env);
          if (other) say(`Note: ${other} comes before ${dir} on PATH, so a shell runs that vox, not this one.`);
        }
      }
      if (values['no-plugin'] !== true) {
        const done = plugin(ctx, say, { dryRun, remove });
        // Removing takes the binding out even when claude is gone; adding binds for a plugin installed.
        if ((done || remove) && values['no-key'] !== true) keybinding(ctx, say, { dryRun, remove });
      }
      return EXIT.OK;
    } catch (err) {
      // Cause and fix are in the message; exit 1, as it is not voxd's failure (exit 3).
      if (
        err instanceof ClientError &&
        (err.code === 'VOX_ERR_CLIENT_SETUP_CONFLICT' || err.code === 'VOX_ERR_CLIENT_SETUP_CLAUDE_FAILED')
      ) {
        ctx.stderr.write(`vox setup: ${err.code}: ${err.message}\n`);
        return EXIT.INTERNAL;
      }
      throw err;
    }
  },
});
export const run = command.run;
