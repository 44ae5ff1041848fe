#!/usr/bin/env node
// The file npm links as `voxd`. It exists before the build (npm links bins
// before `prepare` runs); the daemon it loads is built by `npm run build`.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('voxd: not built yet; run "npm run build" in the vox repository\n');
  process.exit(1);
}
await import(main.href);
