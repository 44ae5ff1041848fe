#!/usr/bin/env node
// Bundles the `vox` client into one CommonJS file, packages/vox-mcp/dist/vox.cjs.
// Every hook runs `vox`, and Node 20 loads one CJS file markedly faster than a
// graph of ESM modules (bench/say.mjs: about 1.2x `node -e 0` against 1.5x).
// Commands stay lazily initialized inside the bundle; dependencies stay external.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('packages/vox-mcp/package.json', root), 'utf8'));
const outfile = new URL('packages/vox-mcp/dist/vox.cjs', root).pathname;

await build({
  entryPoints: [new URL('packages/vox-mcp/src/cli.ts', root).pathname],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  // @vox/protocol is bundled in; third-party packages load from node_modules when a command needs them.
  external: Object.keys(pkg.dependencies ?? {}).filter((d) => d !== '@vox/protocol'),
  define: { 'import.meta.url': '__voxImportMetaUrl' },
  banner: { js: "const __voxImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);

// The plugin's launcher (plugin/bin/vox.cjs) finds this bundle through this
// record when Claude Code has copied the plugin into its cache.
writeFileSync(new URL('plugin/vox-install.json', root), `${JSON.stringify({ vox: outfile }, null, 2)}\n`);
