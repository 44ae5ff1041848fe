/**
 * A loopback stand-in for Google's Gemini API, for driving the real Gemini
 * CLI in tests: `GOOGLE_GEMINI_BASE_URL` points here (with an API key, and
 * `security.auth.selectedType: "gemini-api-key"` in its settings). It answers
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` as the SDK
 * reads it (one `data:` event per chunk of GenerateContentResponse), the
 * turn decided by a script: function calls (`functionCall` parts), then
 * text, finishReason STOP. The CLI's side requests are answered too:
 * `:generateContent` (its model router asks a JSON verdict: a simple task)
 * and `:countTokens`. Every request is kept for the test to read.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FunctionCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Turn {
  calls?: FunctionCall[];
  text?: string;
}

export interface GenerateRequest {
  contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  [k: string]: unknown;
}

export interface GeminiStandIn {
  url: string;
  requests: Array<{ method: string; path: string; body: GenerateRequest | undefined }>;
  close(): Promise<void>;
}

/** The function declarations' names in a request. */
export function declaredTools(req: GenerateRequest): string[] {
  return (req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** The functionResponse parts of the request's last content. */
export function functionResponses(req: GenerateRequest): Array<{ name: string; response: unknown }> {
  const last = req.contents.at(-1);
  return (last?.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse as { name: string; response: unknown }] : []));
}

const MAX_BODY = 16 * 1024 * 1024;
const usageMetadata = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };

export async function startGeminiApi(script: (req: GenerateRequest, n: number) => Turn): Promise<GeminiStandIn> {
  const requests: GeminiStandIn['requests'] = [];
  let n = 0;
  const json = (res: ServerResponse, status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      raw += c;
      if (raw.length > MAX_BODY) req.destroy();
    });
    req.on('end', () => {
      let body: GenerateRequest | undefined;
      try {
        body = JSON.parse(raw) as GenerateRequest;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ method: req.method ?? '', path, body });
      if (req.method === 'POST' && path.endsWith(':countTokens')) return json(res, 200, { totalTokens: 1 });
      if (req.method === 'POST' && path.endsWith(':generateContent')) {
        const verdict = { complexity_reasoning: 'A simple task.', complexity_score: 10 };
        return json(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text: JSON.stringify(verdict) }] }, finishReason: 'STOP', index: 0 }], usageMetadata });
      }
      if (req.method !== 'POST' || !path.endsWith(':streamGenerateContent') || !body) return json(res, 404, { error: { code: 404, message: `no ${req.method} ${path} here`, status: 'NOT_FOUND' } });
      const turn = script(body, n++);
      const parts: Array<Record<string, unknown>> = [...(turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } }))];
      if (turn.text !== undefined) parts.push({ text: turn.text });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata })}\r\n\r\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
