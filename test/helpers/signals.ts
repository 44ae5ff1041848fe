/**
 * For the tests of how `vox` commands end on a signal: the real `vox` as a
 * child whose output is read line by line, a bounded wait for its exit (never
 * a duration asserted: CONTRIBUTING.md habit 22), and a stand-in voxd that
 * accepts every request and never answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VOX } from './daemon.js';

export interface VoxChild {
  child: ChildProcess;
  /** stdout and stderr so far, whole lines. */
  stdout: string[];
  stderr: string[];
  /** Resolves with the first stdout (or stderr) line that `match` accepts, within `timeoutMs`. */
  line(match: (line: string) => boolean, from?: 'stdout' | 'stderr', timeoutMs?: number): Promise<string>;
  /** The exit, once it has happened; rejects (and SIGKILLs the child) when it has not within `timeoutMs`. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Writes one JSON-RPC message (one line) to its stdin. */
  send(message: unknown): void;
}

/** Starts the real `vox ARGS` with stdin a pipe left open. */
export function startVox(args: string[], env: NodeJS.ProcessEnv, cwd?: string): VoxChild {
  const child = spawn(process.execPath, [VOX, ...args], {
    env,
    ...(cwd ? { cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const waiters = new Set<() => void>();
  for (const name of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[name]!.setEncoding('utf8').on('data', (chunk: string) => {
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      out[name].push(...lines);
      for (const w of waiters) w();
    });
  }
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    ...out,
    line(match, from = 'stdout', timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = out[from].find(match);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no such ${from} line within ${timeoutMs} ms; stdout: ${out.stdout.join('\n')}\nstderr: ${out.stderr.join('\n')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    exited(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(
            new Error(
              `vox ${args.join(' ')} did not exit within ${timeoutMs} ms of the signal; stderr: ${out.stderr.join('\n')}`,
            ),
          );
        }, timeoutMs);
        void exit.then((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
    },
    send(message) {
      child.stdin!.write(`${JSON.stringify(message)}\n`);
    },
  };
}

export interface SilentServer {
  url: string;
  /** The requests it has accepted (and will never answer), as "METHOD /path". */
  seen: string[];
  /** Resolves once a request whose "METHOD /path" starts with `prefix` has arrived. */
  arrived(prefix: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 that accepts each request, reads it, and never answers: a voxd that hangs. */
export async function silentServer(): Promise<SilentServer> {
  const seen: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req: IncomingMessage) => {
    req.resume();
    seen.push(`${req.method} ${req.url}`);
    for (const w of waiters) w();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    arrived(prefix, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!seen.some((s) => s.startsWith(prefix))) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${prefix} request within ${timeoutMs} ms (seen: ${seen.join(', ') || 'none'})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
