/**
 * `vox mcp`: the stdio MCP server of one Claude Code session. Thin: the
 * server and its tools are built in ../mcp-server.ts; this only checks the
 * arguments and wires the process's streams to it. It runs until Claude Code
 * closes stdin.
 */
import { defineCommand } from '../command.js';
import { serveStdio } from '../mcp-server.js';

const USAGE = `Usage: vox mcp

Runs the MCP server for one Claude Code session on stdin/stdout (tools: speak,
stop, voices, status, configure, record). Register it once:

  claude mcp add vox -- vox mcp

The working directory is the session's: its .vox/config.md (looked for
upward from there) sets the voice, rate and pronunciations. See docs/mcp.md.

  -h, --help   show this help
`;

// Usage errors go to stderr (defineCommand): an MCP client may be reading stdout.
export const command = defineCommand({ name: 'mcp', usage: USAGE, flags: {}, run: ({ ctx }) => serveStdio(ctx) });
export const run = command.run;
