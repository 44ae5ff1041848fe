/**
 * A loopback stand-in for Anthropic's Messages API, for driving the real
 * Claude Code CLI in tests: `ANTHROPIC_BASE_URL` points here, and a script
 * decides the model's turn for each request (tool calls, then a final text).
 * It answers `POST /v1/messages` in the streaming (SSE) format that Claude
 * Code asks for (`"stream": true`): message_start, one content block per
 * text or tool_use (tool input as one input_json_delta), message_delta with
 * the stop reason, message_stop. Every request body is kept for the test to
 * read (what the model would have seen: tool results, tool lists).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { delimiter, dirname } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface ToolCall {
  /** The tool_use id; the follow-up request carries a tool_result with it. */
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** One turn of the model: optional text, then optional tool calls. */
export interface Turn {
  text?: string;
  tools?: ToolCall[];
  /** Answer with this API error instead (HTTP status, the error's type, its message). */
  error?: { status: number; type: string; message: string };
  /** Stream the text as this many ms apart, one text_delta per line (as a model writes), instead of at once. */
  lineDelayMs?: number;
  /** Called when the last of the text was sent (its time, for a test of what came before). */
  onSent?: () => void;
}

/** A Messages API request as Claude Code sends it (only what tests read). */
export interface MessagesRequest {
  model: string;
  stream?: boolean;
  tools?: Array<{ name: string; description?: string; input_schema?: unknown }>;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  [key: string]: unknown;
}

export interface StandIn {
  url: string;
  /** Every request received: method, path and parsed body (undefined when not JSON). */
  requests: Array<{ method: string; path: string; body: MessagesRequest | undefined }>;
  close(): Promise<void>;
}

/** The tool_result blocks of the last user message, by tool_use id. */
export function toolResults(req: MessagesRequest): Map<string, { content: unknown; is_error?: boolean }> {
  const out = new Map<string, { content: unknown; is_error?: boolean }>();
  const last = req.messages.at(-1);
  if (!last || last.role !== 'user' || typeof last.content === 'string') return out;
  for (const block of last.content) {
    if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      out.set(block.tool_use_id, { content: block.content, ...(block.is_error === true ? { is_error: true } : {}) });
    }
  }
  return out;
}

/** The text of a tool_result's content (a string, or text blocks). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b) =>
        b && typeof b === 'object' && (b as { type?: unknown }).type === 'text'
          ? String((b as { text?: unknown }).text)
          : '',
      )
      .join('');
  return '';
}

/**
 * The request with only its last user message: interactive Claude Code ends
 * its messages with a `system` one (the environment), `-p` with the user's.
 */
export function lastUser(req: MessagesRequest): MessagesRequest {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  return { ...req, messages: last ? [last] : [] };
}

/** All user text of a request (prompts, system reminders), joined. */
export function userText(req: MessagesRequest): string {
  return req.messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content.map((b) => (b.type === 'text' ? String(b.text) : '')).join('\n'),
    )
    .join('\n');
}

async function sse(res: ServerResponse, turn: Turn, model: string, n: number): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_standin_${n}`,
  });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      id: `msg_standin_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  let index = 0;
  if (turn.text) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    if (turn.lineDelayMs) {
      for (const line of turn.text.split(/(?<=\n)/)) {
        event('content_block_delta', { index, delta: { type: 'text_delta', text: line } });
        await new Promise((r) => setTimeout(r, turn.lineDelayMs));
      }
    } else event('content_block_delta', { index, delta: { type: 'text_delta', text: turn.text } });
    turn.onSent?.();
    event('content_block_stop', { index });
    index++;
  }
  for (const call of turn.tools ?? []) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    event('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    });
    event('content_block_stop', { index });
    index++;
  }
  event('message_delta', {
    delta: { stop_reason: turn.tools?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  event('message_stop', {});
  res.end();
}

/**
 * The environment of a real Claude Code run against the stand-in API at
 * `apiUrl`: an isolated HOME, vox's VOX_HOME, no vox on PATH (the plugin's
 * launcher finds Node), and nothing that reaches out (updates, telemetry).
 */
export function offlineClaudeEnv(o: { home: string; voxHome: string; apiUrl: string }): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
    HOME: o.home,
    VOX_HOME: o.voxHome,
    VOX_NO_AUTOSTART: '1',
    ANTHROPIC_BASE_URL: o.apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

/** Starts the stand-in on 127.0.0.1 (a free port). `script` gives the model's turn for each Messages request. */
export async function startMessagesApi(script: (req: MessagesRequest) => Turn): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let body: MessagesRequest | undefined;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as MessagesRequest;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', path, body });
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"input_tokens":10}');
        return;
      }
      if (req.method === 'POST' && path === '/v1/messages' && body && Array.isArray(body.messages)) {
        let turn: Turn;
        try {
          turn = script(body);
        } catch (err) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              type: 'error',
              error: { type: 'api_error', message: `stand-in script failed: ${(err as Error).message}` },
            }),
          );
          return;
        }
        if (turn.error) {
          res.writeHead(turn.error.status, {
            'content-type': 'application/json',
            'request-id': `req_standin_${requests.length}`,
          });
          res.end(JSON.stringify({ type: 'error', error: { type: turn.error.type, message: turn.error.message } }));
          return;
        }
        void sse(res, turn, body.model, requests.length);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'not_found_error', message: `the stand-in has no ${req.method} ${path}` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
