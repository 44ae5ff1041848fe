/**
 * A loopback stand-in for OpenAI's Responses API, for driving the real Codex
 * CLI (a model provider whose `base_url` points here: `[model_providers.<id>]`,
 * `wire_api = "responses"`) and Copilot CLI (`COPILOT_PROVIDER_BASE_URL`,
 * `COPILOT_PROVIDER_WIRE_API=responses`) in tests, and a script decides
 * the model's turn for each request. It answers `POST …/responses` in the
 * streaming (SSE) format that Codex and Copilot CLI ask for (`"stream": true`):
 * response.created, each function call or message as added, one delta and
 * done, and response.completed with the output and a usage. Every request is kept for the test to
 * read (the tools Codex offered, the function_call_output it sent back).
 */
import { sendJson, startJsonStandIn, type SeenRequest } from './json-stand-in.js';

export interface FunctionCall {
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One turn of the model: function calls, then optional text. */
export interface Turn {
  calls?: FunctionCall[];
  text?: string;
}

export interface ResponsesRequest {
  model: string;
  stream?: boolean;
  tools?: Array<{ type: string; name?: string; tools?: Array<{ name?: string }>; [k: string]: unknown }>;
  input: Array<Record<string, unknown>>;
  [k: string]: unknown;
}

export interface ResponsesStandIn {
  /** The base_url to configure: `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: SeenRequest<ResponsesRequest>[];
  close(): Promise<void>;
}

/** The names of the function tools in a request, namespaces' tools as `namespace.tool`. */
export function toolNames(req: ResponsesRequest): string[] {
  const out: string[] = [];
  for (const t of req.tools ?? []) {
    if (Array.isArray(t.tools)) for (const inner of t.tools) out.push(`${t.name}.${inner.name}`);
    else if (t.name) out.push(t.name);
  }
  return out;
}

/** The function_call_output items of a request, by call_id. */
export function callOutputs(req: ResponsesRequest): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of req.input)
    if (item.type === 'function_call_output' && typeof item.call_id === 'string') out.set(item.call_id, item.output);
  return out;
}

const usage = {
  input_tokens: 1,
  input_tokens_details: null,
  output_tokens: 1,
  output_tokens_details: null,
  total_tokens: 2,
};

export async function startResponsesApi(script: (req: ResponsesRequest, n: number) => Turn): Promise<ResponsesStandIn> {
  let n = 0;
  const api = await startJsonStandIn<ResponsesRequest>(({ method, path, body }, res) => {
    if (method !== 'POST' || !path.endsWith('/responses') || !body)
      return sendJson(res, 404, { error: { message: `no ${method} ${path} here` } });
    const turn = script(body, n);
    const id = `resp_${n++}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (o: Record<string, unknown>): void =>
      void res.write(`event: ${String(o.type)}\ndata: ${JSON.stringify(o)}\n\n`);
    event({ type: 'response.created', response: { id, status: 'in_progress', output: [] } });
    // Each item as added, its text or arguments as one delta, then done: Codex reads the done items,
    // Copilot CLI the deltas and response.completed's output.
    const output: Array<Record<string, unknown>> = [];
    for (const c of turn.calls ?? []) {
      const args = JSON.stringify(c.arguments);
      const item = {
        type: 'function_call',
        id: `fc_${c.call_id}`,
        call_id: c.call_id,
        name: c.name,
        arguments: args,
        status: 'completed',
      };
      const at = { output_index: output.length, item_id: item.id };
      event({
        type: 'response.output_item.added',
        output_index: at.output_index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      event({ type: 'response.function_call_arguments.delta', ...at, delta: args });
      event({ type: 'response.function_call_arguments.done', ...at, arguments: args });
      event({ type: 'response.output_item.done', output_index: at.output_index, item });
      output.push(item);
    }
    if (turn.text !== undefined) {
      const item = {
        type: 'message',
        role: 'assistant',
        id: `msg_${id}`,
        status: 'completed',
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      };
      const at = { output_index: output.length, item_id: item.id, content_index: 0 };
      event({
        type: 'response.output_item.added',
        output_index: at.output_index,
        item: { ...item, content: [], status: 'in_progress' },
      });
      event({ type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } });
      event({ type: 'response.output_text.delta', ...at, delta: turn.text });
      event({ type: 'response.output_text.done', ...at, text: turn.text });
      event({ type: 'response.output_item.done', output_index: at.output_index, item });
      output.push(item);
    }
    event({ type: 'response.completed', response: { id, status: 'completed', output, usage } });
    res.end();
  });
  return { url: `${api.origin}/v1`, requests: api.requests, close: api.close };
}
