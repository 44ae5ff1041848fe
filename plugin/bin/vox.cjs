#!/usr/bin/env node
'use strict';
// The plugin's `vox`: Claude Code starts the MCP server and the command hooks
// as `node "${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs" ...`, never from PATH.
// An installed plugin is a copy of plugin/ in Claude Code's cache, away from
// the checkout, so this finds the built vox in one of two places:
//   1. ../../packages/vox-mcp/bin/vox.cjs: the plugin inside its checkout
//      (claude --plugin-dir /path/to/vox/plugin);
//   2. the path in ../vox-install.json, which `npm run build` writes into
//      plugin/ and which the copy carries along (older builds recorded
//      dist/vox.cjs, which loads bin/vox.cjs: one file more per hook).
// It loads bin/vox.cjs itself, which loads the command's bundle: the fewest
// files a command hook can start with.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** `bin` when it is vox's bin/vox.cjs and its bundles are built (dist/vox-cli.cjs beside it), or an older record's dist/vox.cjs. */
function built(bin) {
  if (/[\\/]dist[\\/]vox\.cjs$/.test(bin)) return existsSync(bin) ? bin : undefined;
  return existsSync(bin) && existsSync(join(bin, '..', '..', 'dist', 'vox-cli.cjs')) ? bin : undefined;
}

function findVox() {
  const inCheckout = built(join(__dirname, '..', '..', 'packages', 'vox-mcp', 'bin', 'vox.cjs'));
  if (inCheckout) return inCheckout;
  try {
    const recorded = JSON.parse(readFileSync(join(__dirname, '..', 'vox-install.json'), 'utf8')).vox;
    if (typeof recorded === 'string') return built(recorded);
  } catch {
    // no record: reported below
  }
  return undefined;
}

const vox = findVox();
if (vox) {
  require(vox);
} else {
  process.stderr.write(
    'vox (plugin): cannot find the built vox. Run "npm run build" in the vox checkout, then ' +
      '"claude plugin marketplace update vox" and "claude plugin update vox@vox" (docs/claude-code.md).\n',
  );
  // A hook must not block the session (exit 2 would); the MCP server fails visibly.
  process.exitCode = process.argv[2] === 'hook' ? 0 : 1;
}
