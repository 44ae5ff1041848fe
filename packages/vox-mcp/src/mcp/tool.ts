/**
 * What a tool of `vox mcp` is, what it gets, and what it returns.
 * - What the model reads is `structuredContent` (Claude Code forwards only
 *   that): compact JSON with every fact, valid against the tool's output schema.
 * - No tool throws: every failure is an `isError` result that says what went
 *   wrong and how to fix it (ConfigError and ClientError messages do both).
 * - Everything a tool needs (config, client, speech, recording) is imported on
 *   its first call. Nothing here imports fastify, undici, an engine or voxd.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { printable, type WireError } from '@vox/protocol';
import { AbortError, TimeoutError } from '../errors.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import type { SpeechOverrides } from '../project/speech.js';
import type { InputSchema } from './schema.js';

/**
 * One tool of `vox mcp`. The built-in tools are in tools/ (server.ts lists
 * them); one more is added by passing it in `VoxMcpOptions.tools`
 * (cli/commands/mcp.ts passes the listen and hook tools), so the protocol code
 * never changes for a new tool.
 */
export interface McpTool {
  name: string;
  /** For the model: what the tool does and when to use it. */
  description: string;
  /** JSON Schema of the arguments, or a function that builds it on first use (imports stay lazy). */
  input: InputSchema | (() => Promise<InputSchema>);
  /** JSON Schema of `structuredContent` on success; every successful result must validate against it. */
  output?: InputSchema;
  /** Check the arguments against `input` before `run` (default true; configure checks with the config schema instead, for its messages). */
  check?: boolean;
  /** Only reads (status, voices): published as `readOnlyHint`. */
  readOnly?: boolean;
  /**
   * Callable with `tools/call` but left out of `tools/list`: plumbing (a hook's
   * tool) that the model should not be offered.
   */
  hidden?: boolean;
  /** Runs the tool with checked arguments. May throw: a thrown error becomes an `isError` result. */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
  /**
   * Readies the first call while the session is still starting (after the
   * client's `initialized`): imports, config. Never starts voxd, never throws.
   */
  warm?(ctx: ToolContext): Promise<void>;
}

/** What a tool gets to run in this session. */
export interface ToolContext {
  env: NodeJS.ProcessEnv;
  /** The session's working directory. */
  cwd: string;
  /** Diagnostics, one line each, to stderr. */
  log: (line: string) => void;
  /** The session's config, read again on every call (edits apply at once), and its label. Throws ConfigError for an invalid file. */
  context(): Promise<{ config: ResolvedConfig; session: string }>;
  /** The session label alone; works without a valid config (stop needs it). */
  session(config?: ResolvedConfig): Promise<string>;
  /** Calls voxd, starting it if needed (unless `autostart` is false or VOX_NO_AUTOSTART=1). */
  call<T>(method: string, path: string, body?: unknown, autostart?: boolean): Promise<{ status: number; body: T }>;
  /** Aborted when the client cancels the call (`notifications/cancelled`): do not start what has not started. */
  signal: AbortSignal;
}

export type Structured = Record<string, unknown>;

/**
 * A successful result: `structuredContent` and, as the spec asks of a tool that
 * returns structured content (2025-06-18 and later), the same JSON serialized
 * in a text block. Claude Code gives the model `JSON.stringify(structuredContent)`
 * and nothing else, so it must carry every fact.
 */
export function toolResult(structured: Structured, isError = false): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
  if (isError) result.isError = true;
  return result;
}

/**
 * A failed call: the message (cause and fix) as text, no structured content
 * (so no output schema applies). Its control characters are escaped, line by
 * line: a message quotes keys, values and paths from files and input.
 */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message.split('\n').map(printable).join('\n') }], isError: true };
}

/**
 * A thrown error as a result: ConfigError and ClientError messages say the
 * cause and the fix. Anything else is an internal message (a stack, a regular
 * expression, a path): the model gets only its kind, and the details go to
 * vox mcp's stderr (the server logs them), so a result never carries them.
 */
export function errorResult(err: unknown): CallToolResult {
  const e = err as Error & { code?: string };
  if (e?.name === 'ConfigError') return toolError(e.message);
  if (typeof e?.code === 'string' && e.code.startsWith('VOX_ERR_'))
    return toolError(printable(`${e.code}: ${e.message}`));
  // vox's own uncatalogued errors (errors.ts): their words are vox's.
  if (err instanceof AbortError || err instanceof TimeoutError) return toolError(`vox mcp: ${e.message}`);
  const kind = typeof e?.name === 'string' && /^[A-Za-z]{1,40}$/.test(e.name) ? e.name : 'Error';
  return toolError(
    `unexpected error in vox mcp (${kind}; the details are on vox mcp's stderr). Please report it with the steps that led to it.`,
  );
}

/** voxd's refusal as a result. */
export function wireErrorResult(status: number, body: unknown): CallToolResult {
  const err = (body ?? {}) as Partial<WireError>;
  return toolError(printable(`${err.code ?? `HTTP ${status}`}: ${err.message ?? 'voxd refused the request'}`));
}

/** The voice and rate a tool call asks for, over the project's. */
export function speechOverrides(args: Record<string, unknown>): SpeechOverrides {
  const overrides: SpeechOverrides = {};
  if (args.voice !== undefined) overrides.voice = args.voice as string;
  if (args.rate !== undefined) overrides.rate = args.rate as number;
  return overrides;
}
