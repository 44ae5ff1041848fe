'use strict';
// Preloaded into a process under test (NODE_OPTIONS="--require .../max-rss.cjs"):
// at exit, writes its peak RSS (process.resourceUsage().maxRSS, KiB) to the file
// VOX_TEST_MAX_RSS_FILE names. Node has no rusage of a child.
process.on('exit', () => {
  const file = process.env.VOX_TEST_MAX_RSS_FILE;
  if (file) require('node:fs').writeFileSync(file, `${process.resourceUsage().maxRSS}\n`);
});
