#!/usr/bin/env node
// dist/cli.js, the unbundled entry that MCP configs and older hook settings name (docs/mcp.md): the CLI itself is cli/cli.ts.
import './cli/cli.js';
