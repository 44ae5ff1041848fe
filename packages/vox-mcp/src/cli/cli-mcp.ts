/**
 * The entry of `vox mcp`, the server each Claude Code session keeps running.
 * bin/vox.cjs loads its bundle, dist/vox-mcp.cjs (scripts/bundle.mjs), when
 * argv[2] is `mcp`: a session then holds this command's code alone, not the
 * whole CLI's (docs/benchmarks.md, "vox mcp PSS per session"). The command
 * is the same module cli.ts runs: same flags, help and messages.
 */
import { startIdleTrim } from '@vox/protocol/idle-trim';
import { stdinLines } from '../mcp/stdio.js';
import { command } from './commands/mcp.js';
import { exitAfterFlush, interrupted, processContext } from './context.js';

// A session's server waits far more than it works: once it has been idle for a check period after its
// warm-up (or after a burst of hooks), the heap's slack goes back to the system, as voxd's does.
// Its heap is small (about 7 MB): a check every 5 s, and a trim once it grew 1 MB (a few ms, only when idle).
// Idle is a period without a line on stdin (a call waiting on voxd is idle too): the loop's utilization
// would load perf_hooks, 0.25 MB of the session's memory (docs/benchmarks.md, "vox mcp PSS per session").
let linesSeen = -1;
startIdleTrim({
  checkMs: 5000,
  minGrowth: 1024 * 1024,
  idle: () => {
    const quiet = stdinLines() === linesSeen;
    linesSeen = stdinLines();
    return quiet;
  },
});

void command.run(processContext(process.argv.slice(3))).then((code) => {
  process.exitCode = code;
  // Ended by a signal: exit now, as cli.ts does.
  if (interrupted()) exitAfterFlush(code);
});
