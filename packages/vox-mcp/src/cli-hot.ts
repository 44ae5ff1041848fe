/**
 * The entry of the hot commands, `vox say`, `vox unmute` and `vox hook`, which
 * every Claude Code hook and every Biff wall runs. bin/vox.cjs loads its
 * bundle (dist/vox-hot.cjs, scripts/bundle.mjs) instead of the whole CLI when
 * argv[2] names one of them, so such a run parses and compiles only these two
 * commands (bench/say.mjs, bench/hook.mjs). The commands are the same modules
 * cli.ts runs: same flags, help and messages.
 */
import { run as hook } from './commands/hook.js';
import { run as say } from './commands/say.js';
import { processContext } from './context.js';

/** The commands this entry serves; bin/vox.cjs sends every other to cli.ts. */
export const HOT_COMMANDS = { say, unmute: say, hook } as const;

const [name, ...rest] = process.argv.slice(2);
void HOT_COMMANDS[name as keyof typeof HOT_COMMANDS](processContext(rest)).then((code) => {
  process.exitCode = code;
});
