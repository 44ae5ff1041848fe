/**
 * The stdio transport of `vox mcp`: one JSON-RPC message per line. stdout
 * carries JSON-RPC only; diagnostics go to stderr.
 *
 * It ends two ways. When stdin ends, every request already read is answered
 * first. When `signal` aborts (SIGINT, SIGTERM or SIGHUP: Claude Code never
 * closes a stdio server's stdin at exit, it signals, then SIGKILLs 0.5 s
 * later, and MCP's stdio shutdown expects a server to exit on SIGTERM), it
 * reads on for LATE_MS (or until stdin ends) and serves what comes: Claude
 * Code sends a StopFailure hook call and SIGINT about 12 ms later, and under
 * load the call reached the pipe after the signal was handled (it was lost).
 * Then it stops reading and lets go of stdin, sends what is ready, answers each
 * request still in flight with a JSON-RPC error (SHUTTING_DOWN), writes
 * nothing after, and resolves; the entry then exits (cli/context.ts
 * `interrupted`), which hangs up the requests to voxd (a listen's microphone
 * is released), once hook calls had their moment (cli/commands/mcp.ts). Nothing
 * waits on voxd, and what voxd accepted plays on. LATE_MS keeps the exit
 * within Claude Code's first 50 ms poll of a signalled server
 * (docs/benchmarks-history.md, "claude-exit"), so it costs its exit nothing.
 * Rejected: waiting for the in-flight answers (a tool call can wait on voxd
 * for minutes: a listen, a voxd being started); cancelling them as
 * `notifications/cancelled` does (a cancelled `speak` that voxd queued
 * meanwhile is stopped, and speech accepted before the exit must play).
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, RPC } from './protocol.js';
import { createVoxMcp } from './server.js';
import type { McpTool } from './tool.js';

/** After the signal, how long messages still on their way are read and served, in ms (see the note above). */
export const LATE_MS = 25;

/** Longest message read from stdin, in characters (the SDK's stdio transport caps its buffer at the same 10 Mi). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

let linesRead = 0;
/** Lines read from stdin so far by this process's servers: the idle trim's measure of work (cli/cli-mcp.ts). */
export const stdinLines = (): number => linesRead;

/** What `serveStdio` needs from the outside: the process's streams, environment and directory. */
export interface StdioOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Tools from other modules (VoxMcpOptions.tools). */
  tools?: readonly McpTool[];
  /** Ends the server now (the process's SIGINT, SIGTERM, SIGHUP): see the note above. */
  signal?: AbortSignal;
}

/** A message being answered: the ids of the requests in it, and whether it was a batch. */
interface Work {
  ids: (string | number)[];
  batch: boolean;
}

/** The ids of the requests in a message (notifications and responses have none to answer). */
function requestIds(message: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(message) ? message : [message]) {
    if (typeof m !== 'object' || m === null || typeof (m as { method?: unknown }).method !== 'string') continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/**
 * Serves MCP on stdin/stdout, one JSON-RPC message per line (the MCP stdio
 * transport), until stdin ends (every request already read is answered) or
 * `signal` aborts (see the note above); then resolves with the exit code, 0.
 */
export function serveStdio(io: StdioOptions): Promise<number> {
  const log = (line: string) => {
    io.stderr.write(`${line}\n`);
  };
  const pending = new Map<Promise<void>, Work>();
  let broken = false;
  /** Shut down by the signal: nothing more is read, and nothing more is written once the last answers are out. */
  let ended = false;

  const send = (message: JSONRPCMessage | JSONRPCMessage[]) => {
    if (!broken && !ended) io.stdout.write(`${JSON.stringify(message)}\n`);
  };
  const mcp = createVoxMcp({ env: io.env, cwd: io.cwd, log, notify: send, ...(io.tools ? { tools: io.tools } : {}) });

  // `vox talk` texts, once the client has spoken (mcp/channel.ts).
  const talk = new AbortController();
  let talking = false;
  const receive = (line: string) => {
    linesRead++;
    if (line.trim() === '') return;
    if (!talking) {
      talking = true;
      void import('./channel.js').then(({ runChannel }) =>
        runChannel({ env: io.env, cwd: io.cwd, log, notify: send, signal: talk.signal }),
      );
    }
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
    pending.set(work, { ids: requestIds(message), batch: Array.isArray(message) });
    void work.finally(() => pending.delete(work));
  };

  return new Promise<number>((resolve) => {
    let buffer = '';
    const onData = (chunk: string) => {
      buffer += chunk;
      let i: number;
      while (!ended && (i = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        receive(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (buffer.length > MAX_LINE_CHARS) {
        log(`vox mcp: a message on stdin is longer than ${MAX_LINE_CHARS} characters; dropped`);
        send(
          errorResponse(
            undefined,
            RPC.INVALID_REQUEST,
            `Invalid Request: message longer than ${MAX_LINE_CHARS} characters`,
          ),
        );
        buffer = '';
      }
    };
    io.stdin.setEncoding('utf8');
    io.stdin.on('data', onData);
    /** Once signalled: ends the reading on (after LATE_MS, or at stdin's end) and lets go. */
    let late: (() => void) | undefined;
    const finish = async () => {
      // Signalled: stdin's end (a last line without its newline is served) ends the wait for late messages.
      if (late) {
        if (buffer.trim()) receive(buffer);
        buffer = '';
        return late();
      }
      talk.abort();
      if (buffer.trim()) receive(buffer);
      buffer = '';
      while (pending.size) await Promise.allSettled([...pending.keys()]);
      resolve(0);
    };
    io.stdin.once('end', () => void finish());
    io.stdin.once('error', (err) => {
      if (ended) return;
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

    const shutdown = () => {
      if (ended || late) return;
      talk.abort();
      // A message on its way when the signal came is read and served as usual (see the note above).
      const timer = setTimeout(() => late!(), io.stdin.readableEnded || io.stdin.destroyed ? 0 : LATE_MS);
      late = () => {
        clearTimeout(timer);
        late = () => {};
        letGo();
      };
    };
    const letGo = () => {
      // Stop reading, and release stdin (an open pipe would keep the process alive).
      io.stdin.off('data', onData);
      io.stdin.pause();
      io.stdin.destroy();
      buffer = '';
      // One turn of the loop: an answer that is ready (its last await settled) goes out as usual.
      setImmediate(() => {
        const cut = [...pending.values()];
        for (const { ids, batch } of cut) {
          const answers = ids.map((id) =>
            errorResponse(
              id,
              RPC.SHUTTING_DOWN,
              'Request cancelled: vox mcp is shutting down (it was signalled to end)',
            ),
          );
          if (answers.length) send(batch ? answers : answers[0]!);
        }
        ended = true;
        if (cut.length)
          log(
            `vox mcp: shutting down; ${cut.reduce((n, w) => n + w.ids.length, 0)} request(s) in flight answered with an error`,
          );
        resolve(0);
      });
    };
    if (io.signal?.aborted) shutdown();
    else io.signal?.addEventListener('abort', shutdown, { once: true });
  });
}
