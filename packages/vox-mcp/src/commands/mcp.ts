/**
 * `vox mcp`: the stdio MCP server of one Claude Code session. Thin: the
 * server and its tools are built in ../mcp-server.ts; this only checks the
 * arguments and wires the process's streams to it. It runs until Claude Code
 * closes stdin.
 */
import { EXIT, type Command } from '../context.js';
import { hookTool } from '../hook-tool.js';
import { serveStdio, type McpTool } from '../mcp-server.js';

/**
 * Tools defined in other modules, served after the built-in ones. A module
 * exports an `McpTool` (see mcp-server.ts: name, description, input schema,
 * `run(args, ctx)`; `hidden: true` keeps it out of tools/list) and is added here.
 */
const EXTRA_TOOLS: readonly McpTool[] = [hookTool];

const USAGE = `Usage: vox mcp

Runs the MCP server for one Claude Code session on stdin/stdout (tools: speak,
stop, voices, status, configure, record). Register it once:

  claude mcp add vox -- vox mcp

The working directory is the session's: its .vox/config.md (looked for
upward from there) sets the voice, rate and pronunciations. See docs/mcp.md.
`;

export const run: Command = async (ctx) => {
  if (ctx.argv.includes('--help') || ctx.argv.includes('-h')) {
    ctx.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (ctx.argv.length > 0) {
    // Never write to stdout here: an MCP client may be reading it.
    ctx.stderr.write(`vox mcp: unexpected argument "${ctx.argv[0]}"; it takes none.\n${USAGE}`);
    return EXIT.USAGE;
  }
  return serveStdio({ ...ctx, tools: EXTRA_TOOLS });
};
