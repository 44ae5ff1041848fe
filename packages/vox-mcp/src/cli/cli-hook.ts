/**
 * The entry of `vox hook`, which every Claude Code command hook runs.
 * bin/vox.cjs loads its bundle, dist/vox-hook.cjs (scripts/bundle.mjs), when
 * argv[2] is `hook`, so such a run parses and compiles this command alone
 * (bench/hook.mjs). The command is the same module cli.ts runs: same flags,
 * help and messages.
 */
import { run } from './commands/hook.js';
import { processContext } from './context.js';

void run(processContext(process.argv.slice(3))).then((code) => {
  process.exitCode = code;
});
