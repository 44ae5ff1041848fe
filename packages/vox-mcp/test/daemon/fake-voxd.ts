/**
 * A stand-in for voxd over real HTTP, for the layers of a call (test/daemon,
 * test/remote): a node:http server on 127.0.0.1 (or a unix socket) that
 * answers as a test says, with voxd's x-voxd-version header unless told not
 * to, and keeps what it was sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Endpoint } from '../../src/daemon/http.js';

export interface Received {
  method: string;
  path: string;
  authorization?: string;
  body: unknown;
}

export interface FakeVoxd {
  port: number;
  received: Received[];
  endpoint(extra?: Partial<Endpoint>): Endpoint;
  close(): Promise<void>;
}

type Answer = (req: Received, res: ServerResponse, raw: IncomingMessage) => void;

/** Send `status` and `body` as JSON, as voxd does. */
export function reply(res: ServerResponse, status: number, body: unknown, voxd = true): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(voxd ? { 'x-voxd-version': '9.9.9' } : {}) });
  res.end(JSON.stringify(body));
}

/** Listen on 127.0.0.1 (a free port), or on `socketPath`. */
export async function fakeVoxd(answer: Answer, socketPath?: string): Promise<FakeVoxd> {
  const received: Received[] = [];
  const server: Server = createServer((raw, res) => {
    const parts: Buffer[] = [];
    raw.on('data', (d: Buffer) => parts.push(d));
    raw.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const req: Received = {
        method: raw.method ?? '',
        path: raw.url ?? '',
        ...(raw.headers.authorization ? { authorization: raw.headers.authorization } : {}),
        body: text ? JSON.parse(text) : undefined,
      };
      received.push(req);
      answer(req, res, raw);
    });
  });
  await new Promise<void>((r) => (socketPath ? server.listen(socketPath, r) : server.listen(0, '127.0.0.1', r)));
  const port = socketPath ? 1 : (server.address() as { port: number }).port;
  return {
    port,
    received,
    endpoint: (extra = {}) => ({ host: '127.0.0.1', port, token: undefined, source: 'VOXD_PORT', ...extra }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (one a server just let go of). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
