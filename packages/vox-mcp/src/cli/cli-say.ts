/**
 * The entry of `vox say` and `vox unmute` (what shells and Biff walls run).
 * bin/vox.cjs loads its bundle, dist/vox-say.cjs (scripts/bundle.mjs), when
 * argv[2] names one of them, so such a run parses and compiles this command
 * alone (bench/say.mjs). The command is the same module cli.ts runs: same
 * flags, help and messages.
 */
import { run } from './commands/say.js';
import { exitAfterFlush, interrupted, processContext } from './context.js';

void run(processContext(process.argv.slice(3))).then((code) => {
  process.exitCode = code;
  if (interrupted()) exitAfterFlush(code); // `say --wait` ended by a signal (context.ts)
});
