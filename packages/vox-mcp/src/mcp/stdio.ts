/**
 * The stdio transport of `vox mcp`: one JSON-RPC message per line. stdout
 * carries JSON-RPC only; diagnostics go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, RPC } from './protocol.js';
import { createVoxMcp } from './server.js';
import type { McpTool } from './tool.js';

/** Longest message read from stdin, in characters (the SDK's stdio transport caps its buffer at the same 10 Mi). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

/** What `serveStdio` needs from the outside: the process's streams, environment and directory. */
export interface StdioOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Tools from other modules (VoxMcpOptions.tools). */
  tools?: readonly McpTool[];
}

/**
 * Serves MCP on stdin/stdout, one JSON-RPC message per line (the MCP stdio
 * transport), until stdin ends; answers every request already read, then
 * resolves with the exit code.
 */
export function serveStdio(io: StdioOptions): Promise<number> {
  const log = (line: string) => {
    io.stderr.write(`${line}\n`);
  };
  const mcp = createVoxMcp({ env: io.env, cwd: io.cwd, log, ...(io.tools ? { tools: io.tools } : {}) });
  const pending = new Set<Promise<void>>();
  let broken = false;

  const send = (message: JSONRPCMessage | JSONRPCMessage[]) => {
    if (!broken) io.stdout.write(`${JSON.stringify(message)}\n`);
  };

  const receive = (line: string) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (err) {
      log(`vox mcp: a line on stdin is not JSON (${(err as Error).message}); answered with a parse error`);
      send(errorResponse(undefined, RPC.PARSE_ERROR, `Parse error: ${(err as Error).message}`));
      return;
    }
    const work = (async () => {
      try {
        const answer = await mcp.handle(message);
        if (answer) send(answer);
      } catch (err) {
        log(`vox mcp: cannot answer: ${(err as Error).stack ?? String(err)}`);
      }
    })();
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  return new Promise<number>((resolve) => {
    let buffer = '';
    io.stdin.setEncoding('utf8');
    io.stdin.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        receive(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (buffer.length > MAX_LINE_CHARS) {
        log(`vox mcp: a message on stdin is longer than ${MAX_LINE_CHARS} characters; dropped`);
        send(errorResponse(undefined, RPC.INVALID_REQUEST, `Invalid Request: message longer than ${MAX_LINE_CHARS} characters`));
        buffer = '';
      }
    });
    const finish = async () => {
      if (buffer.trim()) receive(buffer);
      buffer = '';
      while (pending.size) await Promise.allSettled([...pending]);
      resolve(0);
    };
    io.stdin.once('end', () => void finish());
    io.stdin.once('error', (err) => {
      log(`vox mcp: stdin: ${err.message}`);
      void finish();
    });
    // The client went away: nobody is left to answer, so stop writing and finish.
    io.stdout.on('error', (err) => {
      if (broken) return;
      broken = true;
      log(`vox mcp: stdout: ${err.message}; exiting`);
      io.stdin.destroy();
      void finish();
    });
  });
}
