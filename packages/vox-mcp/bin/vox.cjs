#!/usr/bin/env node
'use strict';
// The file npm links as `vox` (dist/vox.cjs, which older hook settings name,
// loads it too). Every Claude Code hook and Biff wall starts one, so it loads
// as little as it can (docs/benchmarks.md):
// - `say`, `unmute` and `hook` get a bundle of their own, dist/vox-hot.cjs;
//   every other command gets the whole CLI, dist/vox-cli.cjs (scripts/bundle.mjs);
// - on Node 22.1 and later, Node's module compile cache keeps their compiled
//   code between runs, per user, in $XDG_CACHE_HOME/vox/compile-cache
//   (~/.cache/vox/compile-cache; ~/Library/Caches/vox/compile-cache on macOS).
//   NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE, when set, decide instead.
//   Node 20 has no such cache: there this is skipped.
// This file exists before the build (npm links bins before `prepare` runs);
// the bundles are built by `npm run build`.
const { enableCompileCache } = require('node:module');

if (enableCompileCache) {
  try {
    const { join } = require('node:path');
    const { XDG_CACHE_HOME } = process.env;
    const caches = XDG_CACHE_HOME || join(require('node:os').homedir(), process.platform === 'darwin' ? 'Library/Caches' : '.cache');
    // Reports a failure (an unwritable directory) as a status; it never stops vox.
    enableCompileCache(join(caches, 'vox', 'compile-cache'));
  } catch {
    // no home directory: run without the cache
  }
}

const command = process.argv[2];
const bundle = command === 'say' || command === 'unmute' || command === 'hook' ? '../dist/vox-hot.cjs' : '../dist/vox-cli.cjs';
try {
  require(bundle);
} catch (err) {
  // Only a missing bundle is "not built"; anything else is a real error.
  if (err && err.code === 'MODULE_NOT_FOUND' && !require('node:fs').existsSync(require('node:path').join(__dirname, bundle))) {
    process.stderr.write('vox: not built yet; run "npm run build" in the vox repository\n');
    process.exit(1);
  }
  throw err;
}
