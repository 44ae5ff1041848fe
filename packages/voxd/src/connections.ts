/**
 * The connection limit: voxd holds at most `max` connections, a share of its
 * file-descriptor limit, so that a program that opens thousands of sockets
 * and sends nothing cannot use up the descriptors that voxd's own work (the
 * journal, the log, players, engines) and other clients need.
 *
 * Design notes:
 * - A connection is idle when no request is in flight on it (one that never
 *   sent a request, or a keep-alive between requests). Over the limit, the
 *   least recently active idle connection is closed first: a flood of idle
 *   sockets is shed, and a client that connects and sends at once (every
 *   `vox` does) gets in. Only when none is idle is the new connection
 *   answered `503 VOX_ERR_TOO_MANY_CONNECTIONS` at once and closed, so it
 *   never waits on a connection nobody serves.
 * - Busy connections are never closed here: a slow request is cut by the
 *   request timeout (server.ts), a `wait` or an event stream is the
 *   client's to end.
 * - The limit comes from RLIMIT_NOFILE (Linux: /proc/self/limits; Node has
 *   no getrlimit), re-read at most once a second while near the limit, so a
 *   `prlimit` on a running voxd is honoured. Rejected: a fixed number (wrong
 *   for both a limit of 256 and one of 1,048,576), and telling vox's clients
 *   apart by their token (it arrives only with a request, after the
 *   descriptor is spent).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { VERSION, wireError } from '@vox/protocol';

/** Used when the descriptor limit cannot be read (not Linux). */
const DEFAULT_FD_LIMIT = 1024;
/** The share of the descriptor limit connections may take, and the bounds of the result. */
const SHARE = 0.5;
const MIN_CONNECTIONS = 16;
const MAX_CONNECTIONS = 4096;

/** The soft RLIMIT_NOFILE of this process, or undefined where /proc does not say. */
export function fdLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
    const n = Number(soft);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Most connections voxd holds under a descriptor limit of `limit`. */
export function connectionCap(limit: number): number {
  return Math.max(MIN_CONNECTIONS, Math.min(MAX_CONNECTIONS, Math.floor(limit * SHARE)));
}

export interface ConnectionLimitOptions {
  /** A fixed limit (tests); default from the descriptor limit. */
  max?: number;
  version?: string;
  log?: { warn(obj: object, msg?: string): void };
}

export class ConnectionLimit {
  readonly #fixed: number | undefined;
  readonly #version: string;
  readonly #log: ConnectionLimitOptions['log'];
  /** Requests in flight, per open connection. */
  readonly #open = new Map<Socket, number>();
  /** Idle connections, least recently active first (a Set keeps insertion order). */
  readonly #idle = new Set<Socket>();
  /** Connections answered 503 here: what they send anyway is never handled (refusedRequest). */
  readonly #refused = new WeakSet<Socket>();
  #limit = DEFAULT_FD_LIMIT;
  #readAt = -Infinity;
  /** Connections closed or refused over the limit (for the log and tests). */
  shed = 0;
  refused = 0;

  constructor(options: ConnectionLimitOptions = {}) {
    this.#fixed = options.max;
    this.#version = options.version ?? VERSION;
    this.#log = options.log;
    this.#readLimit();
  }

  /** The limit now. */
  get max(): number {
    return this.#fixed ?? connectionCap(this.#limit);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Open connections with no request in flight. */
  get idle(): number {
    return this.#idle.size;
  }

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.#connected(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#request(req.socket, res));
  }

  #connected(socket: Socket): void {
    if (this.#open.size + 1 > this.max) this.#readLimit();
    while (this.#open.size + 1 > this.max) {
      const oldest = this.#idle.values().next().value;
      if (!oldest) return this.#refuse(socket);
      this.#forget(oldest);
      oldest.destroy();
      if (this.shed++ % 1000 === 0)
        this.#log?.warn(
          { open: this.#open.size, max: this.max, shed: this.shed },
          'too many connections: the least recently active idle ones are closed',
        );
    }
    this.#open.set(socket, 0);
    this.#idle.add(socket);
    socket.once('close', () => this.#forget(socket));
  }

  #request(socket: Socket, res: ServerResponse): void {
    const n = this.#open.get(socket);
    if (n === undefined) return;
    this.#open.set(socket, n + 1);
    this.#idle.delete(socket);
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      const left = (this.#open.get(socket) ?? 1) - 1;
      if (!this.#open.has(socket)) return;
      this.#open.set(socket, left);
      if (left === 0) this.#idle.add(socket);
    };
    res.once('finish', end);
    res.once('close', end);
  }

  /**
   * True for a request that arrived on a connection refused here: Node's
   * parser still reads it (end() only half-closes), and the server must not
   * handle it, or a caller told VOX_ERR_TOO_MANY_CONNECTIONS is spoken anyway
   * and its re-send speaks twice (server.ts drops it first thing).
   */
  refusedRequest(socket: Socket): boolean {
    return this.#refused.has(socket);
  }

  #refuse(socket: Socket): void {
    this.#refused.add(socket);
    if (this.refused++ % 1000 === 0)
      this.#log?.warn(
        { open: this.#open.size, max: this.max, refused: this.refused },
        'too many connections, none idle: new ones are refused with 503',
      );
    const w = wireError(
      'VOX_ERR_TOO_MANY_CONNECTIONS',
      this.#open.size,
      this.#fixed === undefined ? this.#limit : 'unknown',
    );
    const body = JSON.stringify(w);
    socket.on('error', () => {});
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nx-voxd-version: ${this.#version}\r\nConnection: close\r\n\r\n${body}`,
    );
    // A peer that does not read must not hold the descriptor.
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  #forget(socket: Socket): void {
    this.#open.delete(socket);
    this.#idle.delete(socket);
  }

  #readLimit(): void {
    const now = performance.now();
    if (now - this.#readAt < 1000) return;
    this.#readAt = now;
    this.#limit = fdLimit() ?? DEFAULT_FD_LIMIT;
  }
}
