/**
 * `vox mcp`: the stdio MCP server of one Claude Code session. Thin: the
 * server and its tools are built in ../../mcp/server.ts; this only checks the
 * arguments and wires the process's streams to it. It runs until stdin ends
 * or a signal (SIGINT, SIGTERM, SIGHUP) ends it, exit 0: Claude Code signals
 * its stdio servers at exit rather than closing their stdin.
 */
import { defineCommand } from '../command.js';
import { drainHookSends, hookTool } from '../../mcp/tools/hook.js';
import { converseTool, listenTool } from '../../mcp/tools/listen.js';
import { serveStdio } from '../../mcp/stdio.js';
import type { McpTool } from '../../mcp/tool.js';

/**
 * Tools defined in other modules, served after the built-in ones. A module
 * exports an `McpTool` (see ../../mcp/tool.ts: name, description, input schema,
 * `run(args, ctx)`; `hidden: true` keeps it out of tools/list) and is added here.
 */
const EXTRA_TOOLS: readonly McpTool[] = [listenTool, converseTool, hookTool];

/**
 * At exit, how long hook calls and narration batches still on their way may take, in ms: after the
 * server's LATE_MS (mcp/stdio.ts), still under Claude Code's SIGTERM, 100 ms after SIGINT.
 */
const DRAIN_MS = 60;

const USAGE = `Usage: vox mcp

Runs the MCP server for one Claude Code session on stdin/stdout (tools: speak,
stop, voices, status, configure, record, listen, converse). "vox setup" adds
it to Claude Code as the vox plugin; or register it yourself, once (vox is on
PATH after "vox setup"; docs/claude-code.md has the scopes):

  claude mcp add vox -- vox mcp

The working directory is the session's: its .vox/config.md (looked for
upward from there) sets the voice, rate and pronunciations. See docs/mcp.md.

  -h, --help   show this help
`;

// Usage errors and failures go to stderr (defineCommand): an MCP client may be reading stdout.
// Each part is named, never `...ctx`: copying the context must not decide which signals are taken.
export const command = defineCommand({
  name: 'mcp',
  usage: USAGE,
  flags: {},
  run: async ({ ctx }) => {
    const signal = ctx.takeSignals?.();
    const code = await serveStdio({
      env: ctx.env,
      cwd: ctx.cwd,
      stdin: ctx.stdin,
      stdout: ctx.stdout,
      stderr: ctx.stderr,
      tools: EXTRA_TOOLS,
      ...(signal ? { signal } : {}),
    });
    // Hook calls Claude Code did not wait for (StopFailure), and narration batches answered before they
    // reached voxd, get a moment.
    await drainHookSends(DRAIN_MS);
    return code;
  },
});
export const run = command.run;
