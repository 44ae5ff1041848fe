#!/usr/bin/env node
'use strict';
// The file npm links as `vox`. It exists before the build (npm links bins
// before `prepare` runs); the bundle it loads is built by `npm run build`.
try {
  require.resolve('../dist/vox.cjs');
} catch {
  process.stderr.write('vox: not built yet; run "npm run build" in the vox repository\n');
  process.exit(1);
}
require('../dist/vox.cjs');
