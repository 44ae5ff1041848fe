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
import { sendJson, startJsonStandIn, type SeenRequest } from './json-stand-in.js';

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
  requests: SeenRequest<GenerateRequest>[];
  close(): Promise<void>;
}

/** The function declarations' names in a request. */
export function declaredTools(req: GenerateRequest): string[] {
  return (req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** The functionResponse parts of the request's last content. */
export function functionResponses(req: GenerateRequest): Array<{ name: string; response: unknown }> {
  const last = req.contents.at(-1);
  return (last?.parts ?? []).flatMap((p) =>
    p.functionResponse ? [p.functionResponse as { name: string; response: unknown }] : [],
  );
}

const usageMetadata = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };

export async function startGeminiApi(script: (req: GenerateRequest, n: number) => Turn): Promise<GeminiStandIn> {
  let n = 0;
  const api = await startJsonStandIn<GenerateRequest>(({ method, path, body }, res) => {
    if (method === 'POST' && path.endsWith(':countTokens')) return sendJson(res, 200, { totalTokens: 1 });
    if (method === 'POST' && path.endsWith(':generateContent')) {
      const verdict = { complexity_reasoning: 'A simple task.', complexity_score: 10 };
      return sendJson(res, 200, {
        candidates: [
          { content: { role: 'model', parts: [{ text: JSON.stringify(verdict) }] }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata,
      });
    }
    if (method !== 'POST' || !path.endsWith(':streamGenerateContent') || !body)
      return sendJson(res, 404, { error: { code: 404, message: `no ${method} ${path} here`, status: 'NOT_FOUND' } });
    const turn = script(body, n++);
    const parts: Array<Record<string, unknown>> = [
      ...(turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } })),
    ];
    if (turn.text !== undefined) parts.push({ text: turn.text });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata })}\r\n\r\n`,
    );
    res.end();
  });
  return { url: api.origin, requests: api.requests, close: api.close };
}
