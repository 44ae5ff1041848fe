/**
 * A real HTTP server on 127.0.0.1 that speaks OpenAI's
 * `POST /v1/audio/transcriptions` (multipart/form-data): it parses the body,
 * checks the `file` part is a WAV (wav.ts), keeps what it received, and
 * answers as the test sets it: a transcript, 401, 413, too late, or
 * whatever a `custom` answer writes (the adversarial peers of the listen tests).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { wavStats, type AudioStats } from './wav.js';

export interface Received {
  fields: Record<string, string>;
  fileName?: string;
  fileType?: string;
  wav?: AudioStats;
  wavError?: string;
  authorization?: string;
  at: number;
}

export interface TranscriptionApi {
  url: string;
  received: Received[];
  /** What the next requests get. */
  mode:
    | { kind: 'ok'; text: string; delayMs?: number }
    | { kind: 'status'; status: number; body: unknown }
    | { kind: 'hang' }
    | { kind: 'custom'; respond(res: ServerResponse, got: Received): void };
  close(): Promise<void>;
}

/** Split a multipart body into its parts (headers + data). */
export function parseMultipart(
  body: Buffer,
  boundary: string,
): Array<{ name?: string; filename?: string; type?: string; data: Buffer }> {
  const sep = Buffer.from(`--${boundary}`);
  const parts: Array<{ name?: string; filename?: string; type?: string; data: Buffer }> = [];
  let at = body.indexOf(sep);
  while (at !== -1) {
    const start = at + sep.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(sep, start);
    if (next === -1) break;
    const part = body.subarray(start + 2, next - 2); // skip CRLF after the boundary and before the next
    const head = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, head).toString('utf8');
    const data = part.subarray(head + 4);
    const disp = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? '';
    parts.push({
      ...(/\bname="([^"]*)"/.exec(disp) ? { name: /\bname="([^"]*)"/.exec(disp)![1] } : {}),
      ...(/filename="([^"]*)"/.exec(disp) ? { filename: /filename="([^"]*)"/.exec(disp)![1] } : {}),
      ...(/content-type:\s*([^\r\n]*)/i.exec(headers) ? { type: /content-type:\s*([^\r\n]*)/i.exec(headers)![1] } : {}),
      data,
    });
    at = next;
  }
  return parts;
}

export async function startTranscriptionApi(): Promise<TranscriptionApi> {
  const api: TranscriptionApi = { url: '', received: [], mode: { kind: 'ok', text: '' }, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers['content-type'] ?? '');
      const got: Received = {
        fields: {},
        at: Date.now(),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      };
      if (boundary) {
        for (const part of parseMultipart(Buffer.concat(chunks), boundary[1] ?? boundary[2]!)) {
          if (part.name === 'file') {
            got.fileName = part.filename;
            got.fileType = part.type;
            try {
              got.wav = wavStats(part.data);
            } catch (err) {
              got.wavError = (err as Error).message;
            }
          } else if (part.name) got.fields[part.name] = part.data.toString('utf8');
        }
      }
      api.received.push(got);
      const mode = api.mode;
      if (mode.kind === 'hang') return; // never answers; the client's timeout must fire
      if (mode.kind === 'custom') {
        res.on('error', () => {});
        mode.respond(res, got);
        return;
      }
      if (mode.kind === 'status') {
        res.writeHead(mode.status, { 'content-type': 'application/json' }).end(JSON.stringify(mode.body));
        return;
      }
      if (!got.wav) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: got.wavError ?? 'no file part' } }));
        return;
      }
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: mode.text })),
        mode.delayMs ?? 0,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  api.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/v1`;
  api.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return api;
}
