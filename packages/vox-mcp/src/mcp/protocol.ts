/**
 * The MCP protocol of `vox mcp`, both eras as MCP 2026-07-28 describes
 * (`server/discover` and per-request `_meta`, beside the legacy
 * `initialize`), JSON-RPC batches (2025-03-26 only) and cancellation
 * (docs/mcp.md, "Protocol").
 *
 * Design note, weight: six to eight of these run at once, and the issue
 * budgets each against a bare `node`: start-up (spawn to the answers to
 * `initialize` and `tools/list`) at most 2x `node -e 0`, and resident memory
 * (PSS) at most 1.5x an idle `node`. The MCP SDK cannot meet either: its
 * runtime builds every protocol schema in zod at import, which alone costs more
 * than a bare node's whole start-up and several MB of heap. Measured in
 * bench/mcp.mjs (figures in docs/mcp.md): the SDK's McpServer and its
 * low-level Server, even bundled into one file with esbuild, start in about 3x
 * and hold about 2.5x; the v2 server package is no lighter. So the protocol is
 * spoken here: the stdio transport (stdio.ts) is newline-delimited JSON-RPC
 * 2.0, and a tool server's methods are a few pages of code. The SDK is still
 * the reference: messages are typed with its TypeScript types (`import type`,
 * nothing at run time), the legacy versions are checked against its list, the
 * tests drive this server with the SDK's own Client, and a differential test
 * compares it with the SDK's v2 server (docs/mcp.md lists each difference and
 * why).
 */
import type { CallToolResult, InitializeResult, JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '@vox/protocol';
import { RpcError } from '../errors.js';
import { show } from './schema.js';

/** Claude Code's permission dialog, sent to a channel server that declares claude/channel/permission. */
export const PERMISSION_REQUEST_METHOD = 'notifications/claude/channel/permission_request';

export const INSTRUCTIONS =
  "vox speaks to the user aloud. Call speak with one or two plain sentences when the user should hear something without looking at the screen: a long task is done, you need their input, or something failed. Do not read code, paths or long output aloud. Several sessions share one voice: a text another session just said is not repeated. stop silences this session; configure changes this project's voice, rate and other settings.";

/**
 * MCP protocol versions this server speaks, newest first. The tools use
 * nothing newer than 2024-11-05 needs; `structuredContent` and tool
 * annotations are extra fields older clients ignore. A test keeps this list
 * equal to the SDK's SUPPORTED_PROTOCOL_VERSIONS.
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/**
 * The modern (stateless) revisions: each request names one in its `_meta`, and
 * `server/discover` lists them. The legacy ones above are negotiated by
 * `initialize` instead, as the 2026-07-28 backward-compatibility section describes.
 */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

/** JSON-RPC 2.0 error codes; SHUTTING_DOWN (a server error, -32000 to -32099) answers a request cut off by a signal (stdio.ts). */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
  SHUTTING_DOWN: -32000,
} as const;

/** The 2026-07-28 `_meta` keys. */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
/** The tool list and the discovery answer are the same for the life of the process and hold nothing of the user's. */
const CACHE_HINT = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

/** An error response; `id` is left out when the request's id could not be read (allowed since MCP 2025-11-25; `"id": null` is not). */
export function errorResponse(
  id: string | number | undefined,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    error: { code, message, ...(data === undefined ? {} : { data }) },
  } as unknown as JSONRPCMessage;
}

/**
 * Whether a `server/discover` probe comes from Claude Code: then vox mcp
 * offers it no modern revision, and Claude Code falls back to `initialize`.
 * Claude Code 2.1.332 delivers channel notifications (`vox talk`, the
 * permission relay) only on a legacy connection; on 2026-07-28 it skips the
 * channel ("connection negotiated a modern protocol revision with no
 * unsolicited notification path"), and vox's tools gain nothing from the
 * modern era. Other clients keep it (docs/mcp.md, "Protocol").
 */
export function legacyOnlyClient(params: Record<string, unknown>): boolean {
  const meta = params._meta as Record<string, unknown> | undefined;
  const info =
    typeof meta === 'object' && meta !== null ? (meta[CLIENT_INFO_KEY] as { name?: unknown } | undefined) : undefined;
  return typeof info === 'object' && info !== null && info.name === 'claude-code';
}

/** The tools the protocol serves (the server registry, server.ts). */
export interface ProtocolTools {
  listTools(): Promise<Tool[]>;
  hasTool(name: string): boolean;
  callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult>;
  /** The client said `notifications/initialized`: the session is set up, and idle until its first call. */
  initialized?(): void;
  /** Claude Code asks a channel to relay a permission dialog (`notifications/claude/channel/permission_request`). */
  channelPermission?(params: unknown): void;
  /** Diagnostics, one line each. */
  log: (line: string) => void;
}

/** Answers JSON-RPC messages for one session: `handle` returns the response to a request, undefined for a notification or a response. Never throws. */
export function createProtocol(
  served: ProtocolTools,
): (message: unknown) => Promise<JSONRPCMessage | JSONRPCMessage[] | undefined> {
  const { listTools, callTool, log } = served;
  /** The legacy version `initialize` agreed on; undefined until then. Decides whether batches are answered. */
  let negotiated: string | undefined;
  /** Requests being worked on, by id, so that `notifications/cancelled` can abort them. */
  const inflight = new Map<string | number, AbortController>();
  const serverInfo = { name: 'vox', title: 'vox: speech for coding sessions', version: VERSION };
  // claude/channel: `vox talk` texts come as notifications/claude/channel (mcp/channel.ts);
  // claude/channel/permission: Claude Code's permission dialogs are relayed to vox (mcp/permission-relay.ts).
  const capabilities = {
    tools: { listChanged: false },
    experimental: { 'claude/channel': {}, 'claude/channel/permission': {} },
  };

  /** Served on both eras; `modern` adds the 2026-07-28 result fields. */
  const methods: Record<
    string,
    (params: Record<string, unknown>, modern: boolean, signal: AbortSignal) => Promise<Record<string, unknown>>
  > = {
    async initialize(params) {
      const asked = params.protocolVersion;
      const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
      if (typeof asked !== 'string' || !isObject(params.capabilities) || !isObject(params.clientInfo)) {
        throw new RpcError(
          RPC.INVALID_PARAMS,
          'Invalid initialize request: params needs protocolVersion (a string), capabilities and clientInfo (objects)',
        );
      }
      const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked)
        ? (asked as string)
        : PROTOCOL_VERSIONS[0];
      negotiated = protocolVersion;
      const result: InitializeResult = { protocolVersion, capabilities, serverInfo, instructions: INSTRUCTIONS };
      return result;
    },
    async 'server/discover'(params) {
      if (legacyOnlyClient(params)) {
        throw new RpcError(
          RPC.UNSUPPORTED_PROTOCOL_VERSION,
          'Unsupported protocol version: vox mcp speaks the legacy era (initialize) to Claude Code, whose channels need it',
          {
            supported: [...PROTOCOL_VERSIONS],
            requested: (params._meta as Record<string, unknown>)[PROTOCOL_VERSION_KEY] ?? null,
          },
        );
      }
      return { supportedVersions: [...MODERN_VERSIONS], capabilities, instructions: INSTRUCTIONS, ...CACHE_HINT };
    },
    async ping(_params, modern) {
      if (modern) throw new RpcError(RPC.METHOD_NOT_FOUND, 'Method not found: ping was removed in protocol 2026-07-28');
      return {};
    },
    async 'tools/list'(params, modern) {
      // One page holds every tool, so no cursor this server hands out exists.
      if (params.cursor !== undefined)
        throw new RpcError(RPC.INVALID_PARAMS, 'Invalid cursor: vox lists every tool on one page');
      return { tools: await listTools(), ...(modern ? CACHE_HINT : {}) };
    },
    async 'tools/call'(params, _modern, signal) {
      const { name, arguments: args } = params;
      if (typeof name !== 'string')
        throw new RpcError(RPC.INVALID_PARAMS, 'Invalid tools/call request: params.name must be the name of a tool');
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw new RpcError(
          RPC.INVALID_PARAMS,
          `Invalid tools/call request: params.arguments must be an object, got ${show(args)}`,
        );
      }
      if (!served.hasTool(name)) throw new RpcError(RPC.INVALID_PARAMS, `Unknown tool: ${name}`);
      return (await callTool(name, args, signal)) as Record<string, unknown>;
    },
  };

  /** The request's modern envelope, checked: undefined for a legacy request, else the version or an error. */
  function envelope(
    params: Record<string, unknown>,
  ): { version: string } | { error: { code: number; message: string; data?: unknown } } | undefined {
    const meta = params._meta as Record<string, unknown> | undefined;
    if (typeof meta !== 'object' || meta === null || !(PROTOCOL_VERSION_KEY in meta)) return undefined;
    const version = meta[PROTOCOL_VERSION_KEY];
    const caps = meta[CLIENT_CAPABILITIES_KEY];
    if (typeof version !== 'string' || typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
      return {
        error: {
          code: RPC.INVALID_PARAMS,
          message: `Invalid _meta envelope: ${PROTOCOL_VERSION_KEY} must be a version string and ${CLIENT_CAPABILITIES_KEY} an object`,
        },
      };
    }
    if (!(MODERN_VERSIONS as readonly string[]).includes(version)) {
      return {
        error: {
          code: RPC.UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${version}`,
          data: { supported: [...MODERN_VERSIONS], requested: version },
        },
      };
    }
    return { version };
  }

  async function handleOne(message: unknown): Promise<JSONRPCMessage | undefined> {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return errorResponse(undefined, RPC.INVALID_REQUEST, 'Invalid Request: a JSON-RPC message must be an object');
    }
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    if (typeof m.method !== 'string') {
      // A response to a request of ours: this server sends none, so there is nothing to match.
      if (id !== undefined && ('result' in m || 'error' in m)) return undefined;
      return errorResponse(id, RPC.INVALID_REQUEST, 'Invalid Request: "method" is missing');
    }
    if (m.id === undefined) {
      notification(m.method, m.params);
      return undefined;
    }
    if (id === undefined || m.jsonrpc !== '2.0')
      return errorResponse(
        id,
        RPC.INVALID_REQUEST,
        'Invalid Request: needs "jsonrpc": "2.0" and a string or number "id"',
      );
    const params = m.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return errorResponse(id, RPC.INVALID_PARAMS, 'Invalid params: params must be an object');
    const era = envelope(params as Record<string, unknown>);
    if (era && 'error' in era) return { jsonrpc: '2.0', id, error: era.error } as JSONRPCMessage;
    const modern = era !== undefined;
    const method =
      Object.hasOwn(methods, m.method) && !(modern && m.method === 'initialize') ? methods[m.method] : undefined;
    if (!method) return errorResponse(id, RPC.METHOD_NOT_FOUND, `Method not found: ${m.method}`);
    const abort = new AbortController();
    inflight.set(id, abort);
    try {
      const result = await method(params as Record<string, unknown>, modern, abort.signal);
      if (abort.signal.aborted) return undefined; // cancelled: the spec forbids any answer
      // 2026-07-28: every result says its type and names the server.
      const full =
        modern || m.method === 'server/discover'
          ? { ...result, resultType: 'complete', _meta: { [SERVER_INFO_KEY]: serverInfo } }
          : result;
      return { jsonrpc: '2.0', id, result: full } as JSONRPCMessage;
    } catch (err) {
      if (abort.signal.aborted) return undefined;
      const e = err as Error & { rpcCode?: number; data?: unknown };
      if (e.rpcCode === undefined) log(`vox mcp: ${m.method} failed: ${e.stack ?? e.message}`);
      return errorResponse(id, e.rpcCode ?? RPC.INTERNAL_ERROR, e.message, e.data);
    } finally {
      if (inflight.get(id) === abort) inflight.delete(id);
    }
  }

  function notification(method: string, params: unknown) {
    if (method === 'notifications/initialized') return served.initialized?.();
    if (method === PERMISSION_REQUEST_METHOD) return served.channelPermission?.(params);
    if (method !== 'notifications/cancelled') return; // the rest: nothing to do
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    const abort = typeof requestId === 'string' || typeof requestId === 'number' ? inflight.get(requestId) : undefined;
    abort?.abort();
  }

  async function handle(message: unknown): Promise<JSONRPCMessage | JSONRPCMessage[] | undefined> {
    if (!Array.isArray(message)) return handleOne(message);
    // JSON-RPC batches: part of MCP 2025-03-26 only (2025-06-18 removed them).
    if (negotiated === undefined || negotiated >= '2025-06-18') {
      return errorResponse(
        undefined,
        RPC.INVALID_REQUEST,
        `Invalid Request: batches are not part of MCP ${negotiated ?? '2025-06-18'} and later; send one message per line`,
      );
    }
    if (message.length === 0) return errorResponse(undefined, RPC.INVALID_REQUEST, 'Invalid Request: empty batch');
    const answers = (await Promise.all(message.map((m) => handleOne(m)))).filter((a) => a !== undefined);
    return answers.length ? answers : undefined;
  }

  return handle;
}
