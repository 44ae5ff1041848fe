/**
 * The part every loopback stand-in for a model API shares: an HTTP server on
 * 127.0.0.1 that reads each request's JSON body (bounded), keeps every request
 * for the test to read, and hands it to the API's own answer. The APIs differ
 * only in what they answer (responses-api.ts, gemini-api.ts).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stand-in saw it: its body is undefined when it was not JSON. */
export interface SeenRequest<B> {
  method: string;
  /** Without the query. */
  path: string;
  body: B | undefined;
}

export interface JsonStandIn<B> {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: SeenRequest<B>[];
  close(): Promise<void>;
}

/** A request body past this is cut off (the connection is destroyed): a stand-in has no use for more. */
const MAX_BODY = 16 * 1024 * 1024;

/** Writes `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startJsonStandIn<B>(
  answer: (req: SeenRequest<B>, res: ServerResponse) => void,
): Promise<JsonStandIn<B>> {
  const requests: SeenRequest<B>[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      raw += c;
      if (raw.length > MAX_BODY) req.destroy();
    });
    req.on('end', () => {
      let body: B | undefined;
      try {
        body = JSON.parse(raw) as B;
      } catch {
        body = undefined;
      }
      const seen = { method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, body };
      requests.push(seen);
      answer(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
