'use strict';
// Preloaded (`node -r bench/max-rss.cjs ...`) by benches that report a
// process's peak RSS: at exit, writes process.resourceUsage().maxRSS (KiB) to
// fd 3 when the bench opened it. Node has no rusage of a child.
process.on('exit', () => {
  try {
    require('node:fs').writeSync(3, `${process.resourceUsage().maxRSS}\n`);
  } catch {
    // fd 3 not open: not run by a bench
  }
});
