/**
 * The MCP server of one Claude Code session (`vox mcp`): six tools that turn
 * the model's calls into requests to voxd, in this session's context (its
 * working directory, its `.vox/config.md`, its session label).
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
 * spoken here: the stdio transport is newline-delimited JSON-RPC 2.0, and a
 * tool server's methods are a few pages of code, dual-era as MCP 2026-07-28
 * describes (`server/discover` and per-request `_meta` beside the legacy
 * `initialize`). The SDK is still the reference: messages are typed with its
 * TypeScript types (`import type`, nothing at run time), the legacy versions
 * are checked against its list, the tests drive this server with the SDK's
 * own Client, and a differential test compares it with the SDK's v2 server
 * (docs/mcp.md lists each difference and why).
 *
 * Other notes:
 * - Tool inputs are written once as JSON Schema: `tools/list` publishes them
 *   and `checkInput` validates calls against the same objects.
 * - Everything a tool needs (config, client, speech, recording) is imported on
 *   its first call. Nothing here imports fastify, undici, an engine or voxd.
 * - stdout carries JSON-RPC only; diagnostics go to `log` (stderr).
 * - What the model reads is `structuredContent` (Claude Code forwards only
 *   that): compact JSON with every fact, valid against the tool's output schema.
 * - No tool throws: every failure is an `isError` result that says what went
 *   wrong and how to fix it (ConfigError and ClientError messages do both).
 */
import type { Readable, Writable } from 'node:stream';
import type { CallToolResult, InitializeResult, JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  MAX_ONCE_SECONDS,
  MAX_RATE_WPM,
  MAX_TEXT_CHARS,
  MIN_ONCE_SECONDS,
  MIN_RATE_WPM,
  CHIME_SIGNALS,
  PRIORITIES,
  VERSION,
  type SpeakResponse,
  type StatusResponse,
  type StopResponse,
  type VoicesResponse,
  type WireError,
} from '@vox/protocol';
import type { ResolvedConfig } from '../project/config.js';
import type { SpeechOverrides } from '../project/speech.js';

// ---------------------------------------------------------------------------
// Input schemas and their check

/** The subset of JSON Schema that the tools' inputs use. */
export interface InputSchema {
  type?: JsonType | JsonType[];
  description?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, InputSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | InputSchema;
  [keyword: string]: unknown;
}
type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

/** What a schema allows, in words, for messages: "a number from 80 to 500". */
export function allowedText(s: InputSchema): string {
  if (s.enum) return `one of ${s.enum.map((v) => String(v)).join(', ')}`;
  const types = ([] as JsonType[]).concat(s.type ?? []);
  const words = types.map((t) => {
    if (t === 'number' || t === 'integer') {
      const noun = t === 'integer' ? 'a whole number' : 'a number';
      if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} from ${s.minimum} to ${s.maximum}`;
      if (s.minimum !== undefined) return `${noun} of at least ${s.minimum}`;
      if (s.maximum !== undefined) return `${noun} of at most ${s.maximum}`;
      return noun;
    }
    if (t === 'string') {
      if (s.minLength !== undefined && s.maxLength !== undefined) return `a text of ${s.minLength} to ${s.maxLength} characters`;
      if (s.minLength) return 'a non-empty text';
      return 'a text';
    }
    return t === 'object' ? 'an object' : t === 'array' ? 'a list' : t;
  });
  return words.join(' or ') || 'any value';
}

function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Checks `value` against `schema`; returns every problem, each naming the
 * field and what it allows. Handles the keywords the tools use, nothing more.
 */
export function checkInput(schema: InputSchema, value: unknown, at = ''): string[] {
  const name = at || 'the input';
  const types = schema.type === undefined ? undefined : ([] as JsonType[]).concat(schema.type);
  const t = typeOf(value);
  if (types && !types.includes(t) && !(t === 'integer' && types.includes('number'))) {
    return [`${name} must be ${allowedText(schema)}, got ${show(value)}`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${name} must be ${allowedText(schema)}, got ${show(value)}`];
  const problems: string[] = [];
  if (typeof value === 'number') {
    if ((schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum)) {
      problems.push(`${name} must be ${allowedText(schema)}, got ${show(value)}`);
    }
  }
  if (typeof value === 'string') {
    const blank = schema.minLength !== undefined && schema.minLength > 0 && value.trim().length === 0;
    if (blank || (schema.minLength !== undefined && value.length < schema.minLength) || (schema.maxLength !== undefined && value.length > schema.maxLength)) {
      problems.push(`${name} must be ${allowedText(schema)}, got ${value.length > 60 ? `${value.length} characters` : show(value)}`);
    }
  }
  if (t === 'object') {
    const obj = value as Record<string, unknown>;
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) {
      if (obj[key] === undefined) problems.push(`"${key}" is required: ${props[key] ? allowedText(props[key]) : 'a value'}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const sub = props[key];
      if (sub) {
        if (v !== undefined) problems.push(...checkInput(sub, v, at ? `${at}.${key}` : key));
      } else if (schema.additionalProperties === false) {
        problems.push(`unknown field "${key}"; allowed: ${Object.keys(props).join(', ') || 'none'}`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------
// The built-in tools' inputs

const TEXT: InputSchema = { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARS };

const SPEAK_INPUT: InputSchema = {
  type: 'object',
  properties: {
    text: { ...TEXT, description: 'What to say, as plain sentences (no markdown or code). Keep it short: one or two sentences.' },
    voice: { type: 'string', minLength: 1, maxLength: 100, description: "Voice name (the voices tool lists them). Default: the project's voice, else the engine's." },
    rate: { type: 'number', minimum: MIN_RATE_WPM, maximum: MAX_RATE_WPM, description: "Words per minute. Default: the project's rate (175 unless configured)." },
    once: {
      type: 'number',
      minimum: MIN_ONCE_SECONDS,
      maximum: MAX_ONCE_SECONDS,
      description: "Seconds during which the same text, from any session, is spoken only once. Default: the project's dedup (5 unless configured).",
    },
    priority: {
      type: 'string',
      enum: PRIORITIES,
      description:
        "important: interrupts whatever is playing; message: a normal update, spoken in turn (the default unless the project's priority setting says otherwise); text: replaced by this session's next text and cancelled by any message; notification: spoken only when nothing else is, else dropped; progress: only this session's latest is kept.",
    },
  },
  required: ['text'],
  additionalProperties: false,
};

const STOP_INPUT: InputSchema = {
  type: 'object',
  properties: {
    scope: {
      type: 'string',
      enum: ['session', 'all'],
      description: "session (default): stop this session's speech, playing or queued; all: stop everything voxd is saying for every session.",
    },
  },
  additionalProperties: false,
};

const VOICES_INPUT: InputSchema = {
  type: 'object',
  properties: {
    language: { type: 'string', minLength: 1, maxLength: 35, description: 'Only voices for this language code or its prefix, e.g. "en" or "en-gb".' },
    limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Voices per page (default 40).' },
    cursor: { type: 'string', minLength: 1, maxLength: 20, description: 'The nextCursor of the previous page.' },
  },
  additionalProperties: false,
};

const STATUS_INPUT: InputSchema = { type: 'object', properties: {}, additionalProperties: false };

const RECORD_INPUT: InputSchema = {
  type: 'object',
  properties: {
    text: { ...TEXT, description: 'What to say, as plain sentences.' },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: "Where to save the WAV file; a relative path is resolved against this session's working directory. Missing directories are created; an existing file is replaced.",
    },
    voice: SPEAK_INPUT.properties!.voice!,
    rate: SPEAK_INPUT.properties!.rate!,
  },
  required: ['text', 'path'],
  additionalProperties: false,
};

/** The configure tool's input: every config key, from the config schema, with null meaning "back to the default". */
async function configureInput(): Promise<InputSchema> {
  const { SCHEMA, CONFIG_KEYS, ENGINES, NOTIFY_MODES, DEFAULTS } = await import('../project/config.js');
  const enums: Record<string, readonly string[]> = { engine: ENGINES, notify: NOTIFY_MODES, priority: PRIORITIES };
  const properties: Record<string, InputSchema> = {};
  for (const key of CONFIG_KEYS) {
    const rule = SCHEMA[key];
    const base: JsonType[] =
      rule.type === 'boolean or string' ? ['boolean', 'string'] : [rule.type as JsonType];
    const def = DEFAULTS[key];
    properties[key] = {
      type: [...base, 'null'],
      ...(enums[key] ? { enum: [...enums[key]!, null] } : {}),
      description: `${rule.allowed}; null resets it to the default (${def === undefined ? 'unset' : JSON.stringify(def)}).`,
    };
  }
  return { type: 'object', properties, additionalProperties: false };
}
// ---------------------------------------------------------------------------
// What a tool is, and what it gets

/**
 * One tool of `vox mcp`. The built-in tools are below; a tool defined in
 * another module is added by passing it in `VoxMcpOptions.tools` (commands/mcp.ts
 * lists them), so the protocol code never changes for a new tool.
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

// ---------------------------------------------------------------------------
// Results

type Structured = Record<string, unknown>;

/**
 * A successful result: `structuredContent` and, as the spec asks of a tool that
 * returns structured content (2025-06-18 and later), the same JSON serialized
 * in a text block. Claude Code gives the model `JSON.stringify(structuredContent)`
 * and nothing else, so it must carry every fact.
 */
export function toolResult(structured: Structured, isError = false): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  if (isError) result.isError = true;
  return result;
}

/** A failed call: the message (cause and fix) as text, no structured content (so no output schema applies). */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A thrown error as a result: ConfigError and ClientError messages say the cause and the fix. */
export function errorResult(err: unknown): CallToolResult {
  const e = err as Error & { code?: string };
  if (e?.name === 'ConfigError') return toolError(e.message);
  if (typeof e?.code === 'string' && e.code.startsWith('VOX_ERR_')) return toolError(`${e.code}: ${e.message}`);
  return toolError(`unexpected error in vox mcp: ${e?.message ?? String(err)}. Please report it with the steps that led to it.`);
}

/** voxd's refusal as a result. */
export function wireErrorResult(status: number, body: unknown): CallToolResult {
  const err = (body ?? {}) as Partial<WireError>;
  return toolError(`${err.code ?? `HTTP ${status}`}: ${err.message ?? 'voxd refused the request'}`);
}

/**
 * Creates the missing directories above `file`, one level at a time.
 * Not `mkdirSync(dir, { recursive: true })`: on Node 20 that never returns for
 * a path under /proc (it retries ENOENT forever), and the path comes from the model.
 */
async function makeParents(file: string): Promise<void> {
  const { existsSync, mkdirSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const missing: string[] = [];
  for (let dir = dirname(file); !existsSync(dir); dir = dirname(dir)) {
    if (dirname(dir) === dir) break;
    missing.unshift(dir);
  }
  for (const dir of missing) mkdirSync(dir);
}

// ---------------------------------------------------------------------------
// The built-in tools
//
// Each success is one compact JSON object (toolResult), described by the
// tool's output schema, holding every fact a sentence would have said: what
// happened, and `why` whenever the text was not, or not fully, spoken.
// Failures are isError results with one sentence: the cause and the fix.

const OUTCOMES = ['queued', 'playing', 'played', 'deduped', 'failed', 'expired', 'interrupted', 'replaced', 'dropped', 'stopped'] as const;
const str: InputSchema = { type: 'string' };
const strings: InputSchema = { type: 'array', items: str };
const WHY: InputSchema = { type: 'string', description: 'Why the text is not, or not fully, spoken as asked.' };

const SPEAK_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    id: { ...str, description: "voxd's id of the request (stop and status name it)." },
    status: { type: 'string', enum: OUTCOMES, description: 'queued or played: it is (being) spoken; any other: it is not, see why.' },
    priority: { type: 'string', enum: PRIORITIES },
    spoken: { ...str, description: "The text as it will be spoken, when the project's pronunciations or announce prefix changed it." },
    voice: str,
    engine: { ...str, description: 'The engine that speaks it, when it is not the configured one (see fallback).' },
    fallback: { ...str, description: 'Why the configured engine was not used.' },
    chime: { type: 'string', enum: CHIME_SIGNALS, description: 'The chime played instead of speech (a muted project).' },
    duplicateOf: { ...str, description: 'The earlier request, possibly of another session, that this one repeats.' },
    why: WHY,
  },
  required: ['id', 'status'],
};

/** The voice and rate a tool call asks for, over the project's. */
export function speechOverrides(args: Record<string, unknown>): SpeechOverrides {
  const overrides: SpeechOverrides = {};
  if (args.voice !== undefined) overrides.voice = args.voice as string;
  if (args.rate !== undefined) overrides.rate = args.rate as number;
  return overrides;
}

const speak: McpTool = {
  name: 'speak',
  description:
    "Say something aloud to the user through vox, the speech daemon shared by every coding session on this machine. Use it for short spoken updates the user should hear without looking: a task finished, a question that needs them, a failure. Speaks with this project's voice, rate and pronunciations (.vox/config.md). Returns whether the text was queued, played, or not spoken and why (e.g. the same text was spoken recently, possibly by another session, or the project is muted).",
  input: SPEAK_INPUT,
  output: SPEAK_OUTPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { buildDelivery } = await import('../project/speech.js');
    const overrides = speechOverrides(args);
    if (args.once !== undefined) overrides.once = args.once as number;
    if (args.priority !== undefined) overrides.priority = args.priority as SpeechOverrides['priority'];
    const delivery = buildDelivery(args.text as string, config, session, overrides);
    const reply = await ctx.call<SpeakResponse | WireError>('POST', delivery.route, delivery.body);
    if (reply.status >= 400) return wireErrorResult(reply.status, reply.body);
    const res = reply.body as SpeakResponse;
    if (ctx.signal.aborted && (res.status === 'queued' || res.status === 'playing')) {
      // Cancelled while voxd was taking it: take it back (nobody will read the answer).
      const client = await import('../daemon/client.js');
      await client.call({ ...ctx.env, VOX_NO_AUTOSTART: '1' }, 'POST', '/v1/stop', { scope: 'id', id: res.id }).catch(() => undefined);
    }
    const out: Structured = { id: res.id, status: res.status, priority: delivery.body.priority ?? config.values.priority };
    if (delivery.route === '/v1/chime') {
      out.chime = delivery.body.signal;
      out.why = `this project is muted (speak: false in ${config.file}): the ${delivery.body.signal} chime plays instead of speech`;
      return toolResult(out);
    }
    if (res.status === 'failed') return toolError(`Speech failed: ${res.error ? `${res.error.code}: ${res.error.message}` : (res.reason ?? 'unknown reason')}`);
    const spoken = res.text ?? delivery.body.text;
    if (spoken !== args.text) out.spoken = spoken;
    if (delivery.body.voice !== undefined) out.voice = delivery.body.voice;
    if (res.fallbackReason) {
      out.engine = res.engine;
      out.fallback = res.fallbackReason;
    }
    if (res.status === 'deduped') {
      const d = res.duplicate;
      const original = d?.originalId ?? res.originalId;
      if (original) out.duplicateOf = original;
      const what = d?.originalStatus === 'played' ? `was spoken${d.playedAt ? ` at ${d.playedAt}` : ''}` : `is ${d?.originalStatus ?? 'queued'}`;
      out.why = `the same text ${what}, possibly by another session; repeats are skipped${d ? ` for another ${Math.ceil(d.windowRemainingMs / 1000)} s` : ''}`;
    } else if (res.status !== 'queued' && res.status !== 'playing' && res.status !== 'played') {
      out.why = res.reason ?? res.status;
    }
    return toolResult(out);
  },
};

const STOP_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    scope: { type: 'string', enum: ['session', 'all'] },
    session: { ...str, description: "This session's label, when scope is session." },
    stopped: { ...strings, description: 'The ids of the requests stopped, playing or queued.' },
    why: { ...str, description: 'Why nothing was stopped, when that is known.' },
  },
  required: ['scope', 'stopped'],
};

const stop: McpTool = {
  name: 'stop',
  description:
    "Stop speech. By default stops only this session's speech (what is playing and what is queued, from the model and from this session's hooks); with scope \"all\", stops everything for every session. Use it when the user asks for silence.",
  input: STOP_INPUT,
  output: STOP_OUTPUT,
  async run(args, ctx) {
    const all = args.scope === 'all';
    const session = all ? undefined : await ctx.session();
    const out: Structured = all ? { scope: 'all' } : { scope: 'session', session };
    const { health } = await import('../daemon/client.js');
    // Starting voxd to stop nothing would be silly: no voxd, no speech.
    if (!(await health(ctx.env))) return toolResult({ ...out, stopped: [], why: 'voxd is not running' });
    const reply = await ctx.call<StopResponse | WireError>('POST', '/v1/stop', all ? { scope: 'all' } : { scope: 'session', session }, false);
    if (reply.status !== 200) return wireErrorResult(reply.status, reply.body);
    return toolResult({ ...out, stopped: (reply.body as StopResponse).stopped });
  },
};

/** Voices per page, unless the call asks for another limit. */
const VOICES_PAGE = 40;

const VOICES_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    engine: str,
    total: { type: 'integer', description: 'How many voices match, on every page.' },
    voices: {
      type: 'array',
      items: { type: 'object', properties: { id: str, name: str, languages: strings }, required: ['id', 'name', 'languages'] },
    },
    nextCursor: { ...str, description: 'Pass as cursor for the next page; absent on the last page.' },
  },
  required: ['engine', 'total', 'voices'],
};

const voices: McpTool = {
  name: 'voices',
  description:
    "List the voices the project's speech engine offers (ids to use as speak's voice or configure's voice), a page at a time; give a language to narrow the list.",
  input: VOICES_INPUT,
  output: VOICES_OUTPUT,
  readOnly: true,
  async run(args, ctx) {
    const { config } = await ctx.context();
    const engine = config.values.engine !== 'auto' ? config.values.engine : undefined;
    const reply = await ctx.call<VoicesResponse | WireError>('GET', `/v1/voices${engine ? `?engine=${encodeURIComponent(engine)}` : ''}`);
    if (reply.status !== 200) return wireErrorResult(reply.status, reply.body);
    const body = reply.body as VoicesResponse;
    const lang = (args.language as string | undefined)?.toLowerCase();
    const list = body.voices.filter((v) => !lang || v.languages.some((l) => l.toLowerCase().startsWith(lang)));
    const limit = (args.limit as number | undefined) ?? VOICES_PAGE;
    const cursor = args.cursor as string | undefined;
    const from = cursor === undefined ? 0 : /^\d{1,6}$/.test(cursor) ? Number(cursor) : -1;
    if (from < 0 || (cursor !== undefined && from >= list.length)) {
      return toolError(`Invalid cursor ${show(cursor)}: pass the nextCursor of the previous voices result, or no cursor for the first page.`);
    }
    const page = list.slice(from, from + limit).map((v) => ({ id: v.id, name: v.name, languages: v.languages }));
    const out: Structured = { engine: body.engine, total: list.length, voices: page };
    if (from + limit < list.length) out.nextCursor = String(from + limit);
    return toolResult(out);
  },
};

/** Entries of the queue and of the history that status shows (the newest), and how much of each text. */
const STATUS_ITEMS = 10;
const STATUS_TEXT_CHARS = 80;

const ERROR_OUTPUT: InputSchema = { type: 'object', properties: { code: str, message: str }, required: ['message'] };
const ITEM: InputSchema = {
  type: 'object',
  properties: { id: str, session: str, priority: str, text: str, startedAt: str },
  required: ['id', 'priority', 'text'],
};
const STATUS_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    session: { ...str, description: "This session's label." },
    cwd: str,
    config: {
      type: 'object',
      properties: {
        file: { type: ['string', 'null'], description: 'The .vox/config.md in effect; null: none, all defaults.' },
        values: { type: 'object', description: 'Every setting in effect (unset ones left out).' },
        fromFile: { ...strings, description: 'The settings the file sets; the others are defaults.' },
        pronunciations: { type: 'array', items: { type: 'object', properties: { word: str, say: str }, required: ['word', 'say'] } },
      },
      required: ['file', 'values', 'fromFile'],
    },
    configError: ERROR_OUTPUT,
    daemon: {
      type: 'object',
      properties: {
        version: str,
        note: str,
        pid: { type: 'integer' },
        uptimeS: { type: 'integer' },
        engine: { type: 'object', properties: { name: str, ready: { type: 'boolean' }, reason: str }, required: ['name', 'ready'] },
        audio: { type: 'object', properties: { name: str, ok: { type: 'boolean' }, detail: str, lastError: str }, required: ['name', 'ok'] },
        counters: { type: 'object', additionalProperties: { type: 'integer' } },
        playing: { anyOf: [ITEM, { type: 'null' }] },
        queued: { type: 'integer' },
        queue: { type: 'array', items: ITEM },
        recent: {
          type: 'array',
          description: `The newest ${STATUS_ITEMS} requests, newest first.`,
          items: {
            type: 'object',
            properties: { id: str, at: str, outcome: { type: 'string', enum: OUTCOMES }, session: str, text: str, reason: str },
            required: ['id', 'at', 'outcome', 'text'],
          },
        },
      },
      required: ['version', 'engine', 'audio', 'counters', 'playing', 'queued', 'queue', 'recent'],
    },
    daemonError: ERROR_OUTPUT,
  },
  required: ['cwd'],
};

function clip(text: string, n = STATUS_TEXT_CHARS): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** A thrown error as `{code, message}`. */
function errorFact(err: unknown): Structured {
  const e = err as Error & { code?: unknown };
  return typeof e?.code === 'string' ? { code: e.code, message: e.message } : { message: e?.message ?? String(err) };
}

function daemonFacts(s: StatusResponse): Structured {
  const item = (q: { id: string; session?: string; priority: string; text: string; startedAt?: string }) => ({
    id: q.id,
    ...(q.session ? { session: q.session } : {}),
    priority: q.priority,
    text: clip(q.text),
    ...(q.startedAt ? { startedAt: q.startedAt } : {}),
  });
  const out: Structured = { version: s.version };
  if (s.version !== VERSION) out.note = `voxd ${s.version} and this client ${VERSION} differ: run "vox daemon restart"`;
  Object.assign(out, {
    pid: s.pid,
    uptimeS: Math.round(s.uptimeMs / 1000),
    engine: s.engine,
    audio: s.sink,
    counters: s.counters,
    playing: s.playing ? item(s.playing) : null,
    queued: s.queue.length,
    queue: s.queue.items.slice(0, STATUS_ITEMS).map(item),
    recent: s.history.slice(0, STATUS_ITEMS).map((h) => ({
      id: h.id,
      at: h.acceptedAt,
      outcome: h.outcome,
      ...(h.session ? { session: h.session } : {}),
      text: clip(h.text),
      ...(h.reason ? { reason: h.reason } : {}),
    })),
  });
  return out;
}

const status: McpTool = {
  name: 'status',
  description:
    "Show the speech daemon's state (engine, audio output, what is playing, the queue, recent requests) and this session's configuration: every setting in effect and which ones the project's .vox/config.md sets.",
  input: STATUS_INPUT,
  output: STATUS_OUTPUT,
  readOnly: true,
  async run(_args, ctx) {
    const out: Structured = {};
    let failed = false;
    try {
      const { config, session } = await ctx.context();
      const { CONFIG_KEYS } = await import('../project/config.js');
      out.session = session;
      out.cwd = ctx.cwd;
      const values: Structured = {};
      for (const k of CONFIG_KEYS) if (config.values[k] !== undefined) values[k] = config.values[k];
      const view: Structured = { file: config.file ?? null, values, fromFile: CONFIG_KEYS.filter((k) => config.sources[k] !== 'default') };
      if (config.pronunciations.length) view.pronunciations = config.pronunciations.map((p) => ({ word: p.word, say: p.say }));
      out.config = view;
    } catch (err) {
      failed = true;
      out.session = await ctx.session().catch(() => undefined);
      out.cwd = ctx.cwd;
      out.configError = errorFact(err);
    }
    try {
      const reply = await ctx.call<StatusResponse | WireError>('GET', '/v1/status');
      if (reply.status !== 200) {
        failed = true;
        const body = (reply.body ?? {}) as Partial<WireError>;
        out.daemonError = { code: body.code ?? `HTTP ${reply.status}`, message: body.message ?? 'voxd refused the request' };
      } else {
        out.daemon = daemonFacts(reply.body as StatusResponse);
      }
    } catch (err) {
      failed = true;
      out.daemonError = errorFact(err);
    }
    if (out.session === undefined) delete out.session;
    return toolResult(out, failed);
  },
};

const CONFIGURE_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    file: { ...str, description: 'The .vox/config.md written.' },
    set: { type: 'object', description: 'The settings changed, with their new values.' },
    reset: { ...strings, description: 'The settings removed from the file: back to their defaults.' },
  },
  required: ['file'],
};

const configure: McpTool = {
  name: 'configure',
  description:
    "Change this project's speech settings in .vox/config.md (found by walking up from the working directory; created here if there is none). Give only the keys to change, e.g. {\"voice\": \"en-gb\", \"rate\": 190}; null resets a key to its default. The file's other keys, comments and text are kept. Applies to the next speak call of every session in this project.",
  input: configureInput,
  output: CONFIGURE_OUTPUT,
  check: false,
  async run(args, ctx) {
    const keys = Object.keys(args);
    const { CONFIG_KEYS } = await import('../project/config.js');
    if (keys.length === 0) return toolError(`Give at least one setting to change, e.g. {"rate": 190}. Settings: ${CONFIG_KEYS.join(', ')}.`);
    const { setConfigValues } = await import('../project/config-writer.js');
    const config = await setConfigValues(ctx.cwd, args);
    const set: Structured = {};
    const reset: string[] = [];
    for (const k of keys) {
      if (args[k] === null) reset.push(k);
      else set[k] = config.values[k as keyof typeof config.values];
    }
    const out: Structured = { file: config.file };
    if (Object.keys(set).length) out.set = set;
    if (reset.length) out.reset = reset;
    return toolResult(out);
  },
};

const RECORD_OUTPUT: InputSchema = {
  type: 'object',
  properties: { path: str, bytes: { type: 'integer' }, seconds: { type: 'number', description: 'Length of the audio.' } },
  required: ['path', 'bytes'],
};

const record: McpTool = {
  name: 'record',
  description:
    "Save speech as a WAV file instead of playing it, with this project's voice and pronunciations. Returns the file's path, size and duration.",
  input: RECORD_INPUT,
  output: RECORD_OUTPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { synthesizeWav, wavSeconds } = await import('../daemon/recording.js');
    const overrides = speechOverrides(args);
    const result = await synthesizeWav(ctx.env, args.text as string, config, session, overrides);
    if ('error' in result) return wireErrorResult(result.error.statusCode, result.error);
    const { renameSync, writeFileSync, rmSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const path = resolve(ctx.cwd, args.path as string);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      await makeParents(path);
      writeFileSync(tmp, result.wav);
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      return toolError(`Cannot save ${path}: ${(err as Error).message}. Choose a path in a directory you can write to.`);
    }
    const seconds = wavSeconds(result.wav);
    return toolResult({ path, bytes: result.wav.length, ...(seconds === undefined ? {} : { seconds: Math.round(seconds * 100) / 100 }) });
  },
};

/** The tools the model is offered, in `tools/list` order. */
export const BUILTIN_TOOLS: readonly McpTool[] = [speak, stop, voices, status, configure, record];

// ---------------------------------------------------------------------------
// The server of one session

export interface VoxMcpOptions {
  env: NodeJS.ProcessEnv;
  /** The session's working directory: where the config walk starts and relative paths resolve. */
  cwd: string;
  /** Diagnostics, one line each. Never stdout: that is the JSON-RPC channel. */
  log: (line: string) => void;
  /** Tools from other modules, served after the built-in ones (commands/mcp.ts passes them). */
  tools?: readonly McpTool[];
}

export interface VoxMcp {
  /** The tools with their input schemas, as `tools/list` returns them (hidden tools left out). */
  listTools(): Promise<Tool[]>;
  /** Runs one tool. Never throws: a failure is a result with `isError: true`. */
  callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult>;
  /**
   * Answers one JSON-RPC message: the response to a request, undefined for a
   * notification or a response. Never throws.
   */
  handle(message: unknown): Promise<JSONRPCMessage | JSONRPCMessage[] | undefined>;
}

export const INSTRUCTIONS =
  'vox speaks to the user aloud. Call speak with one or two plain sentences when the user should hear something without looking at the screen: a long task is done, you need their input, or something failed. Do not read code, paths or long output aloud. Several sessions share one voice: a text another session just said is not repeated. stop silences this session; configure changes this project\'s voice, rate and other settings.';

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

/** JSON-RPC 2.0 error codes. */
const RPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603, UNSUPPORTED_PROTOCOL_VERSION: -32022 } as const;

/** Builds the tools and the protocol for one session. Serving them on a stream is `serveStdio`'s part. */
export function createVoxMcp(options: VoxMcpOptions): VoxMcp {
  const { env, cwd, log } = options;
  const tools = new Map<string, McpTool>();
  for (const t of [...BUILTIN_TOOLS, ...(options.tools ?? [])]) {
    if (tools.has(t.name)) throw new Error(`vox mcp: two tools are named "${t.name}"`);
    tools.set(t.name, t);
  }

  let toolList: Tool[] | undefined;
  const schemas = new Map<string, InputSchema>();
  async function inputOf(tool: McpTool): Promise<InputSchema> {
    let s = schemas.get(tool.name);
    if (!s) {
      s = typeof tool.input === 'function' ? await tool.input() : tool.input;
      schemas.set(tool.name, s);
    }
    return s;
  }

  async function listTools(): Promise<Tool[]> {
    toolList ??= await Promise.all(
      [...tools.values()]
        .filter((t) => !t.hidden)
        .map(async (t) => ({
          name: t.name,
          description: t.description,
          inputSchema: (await inputOf(t)) as Tool['inputSchema'],
          ...(t.output ? { outputSchema: t.output as Tool['outputSchema'] } : {}),
          annotations: t.readOnly ? { readOnlyHint: true, openWorldHint: false } : { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
        })),
    );
    return toolList;
  }

  // One label per process (src/session.ts).
  let label: string | undefined;
  async function sessionOf(config?: ResolvedConfig): Promise<string> {
    if (label) return label;
    const { sessionLabel } = await import('../project/session.js');
    let name = config?.projectName;
    if (!name) {
      // Without a valid config (stop must still work), the name is found the way resolveConfig finds it.
      const { projectNameFor } = await import('../project/config.js');
      name = projectNameFor(cwd);
    }
    return (label = sessionLabel(name, env));
  }

  async function context(): Promise<{ config: ResolvedConfig; session: string }> {
    const { resolveConfig } = await import('../project/config.js');
    const config = await resolveConfig(cwd); // on every call: edits apply without a restart
    return { config, session: await sessionOf(config) };
  }

  async function call<T>(method: string, path: string, body?: unknown, autostart = true) {
    const client = await import('../daemon/client.js');
    const reply = await client.call<T>(autostart ? env : { ...env, VOX_NO_AUTOSTART: '1' }, method, path, body);
    // Once per session: this session's VOXD_AUDIO/VOXD_ENGINE are not what voxd uses.
    const mismatch = client.settingsMismatch(env);
    if (mismatch) log(`vox mcp: ${mismatch}`);
    return reply;
  }

  const never = new AbortController().signal;

  async function callTool(name: string, args: unknown, signal: AbortSignal = never): Promise<CallToolResult> {
    const tool = tools.get(name);
    if (!tool) return toolError(`Unknown tool "${name}". vox's tools: ${[...tools.values()].filter((t) => !t.hidden).map((t) => t.name).join(', ')}.`);
    try {
      const input = args ?? {};
      if (typeof input !== 'object' || Array.isArray(input)) return toolError(`The arguments of ${name} must be an object, got ${show(input)}.`);
      if (tool.check !== false) {
        const problems = checkInput(await inputOf(tool), input);
        if (problems.length) return toolError(`Invalid input for ${name}: ${problems.join('; ')}.`);
      }
      const guarded: ToolContext['call'] = (method, path, body, autostart) => {
        // A cancelled call starts nothing new at voxd (speak: nothing is said).
        if (signal.aborted) throw Object.assign(new Error('the call was cancelled'), { name: 'AbortError' });
        return call(method, path, body, autostart);
      };
      return await tool.run(input as Record<string, unknown>, { env, cwd, log, context, session: sessionOf, call: guarded, signal });
    } catch (err) {
      return errorResult(err);
    }
  }
  // -------------------------------------------------------------------------
  // The protocol: both eras (docs/mcp.md, "Protocol")

  /** The legacy version `initialize` agreed on; undefined until then. Decides whether batches are answered. */
  let negotiated: string | undefined;
  /** Requests being worked on, by id, so that `notifications/cancelled` can abort them. */
  const inflight = new Map<string | number, AbortController>();
  const serverInfo = { name: 'vox', title: 'vox: speech for coding sessions', version: VERSION };
  const capabilities = { tools: { listChanged: false } };

  /** Served on both eras; `modern` adds the 2026-07-28 result fields. */
  const methods: Record<string, (params: Record<string, unknown>, modern: boolean, signal: AbortSignal) => Promise<Record<string, unknown>>> = {
    async initialize(params) {
      const asked = params.protocolVersion;
      const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
      if (typeof asked !== 'string' || !isObject(params.capabilities) || !isObject(params.clientInfo)) {
        throw rpcError(RPC.INVALID_PARAMS, 'Invalid initialize request: params needs protocolVersion (a string), capabilities and clientInfo (objects)');
      }
      const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : PROTOCOL_VERSIONS[0];
      negotiated = protocolVersion;
      const result: InitializeResult = { protocolVersion, capabilities, serverInfo, instructions: INSTRUCTIONS };
      return result;
    },
    async 'server/discover'() {
      return { supportedVersions: [...MODERN_VERSIONS], capabilities, instructions: INSTRUCTIONS, ...CACHE_HINT };
    },
    async ping(_params, modern) {
      if (modern) throw rpcError(RPC.METHOD_NOT_FOUND, 'Method not found: ping was removed in protocol 2026-07-28');
      return {};
    },
    async 'tools/list'(params, modern) {
      // One page holds every tool, so no cursor this server hands out exists.
      if (params.cursor !== undefined) throw rpcError(RPC.INVALID_PARAMS, 'Invalid cursor: vox lists every tool on one page');
      return { tools: await listTools(), ...(modern ? CACHE_HINT : {}) };
    },
    async 'tools/call'(params, _modern, signal) {
      const { name, arguments: args } = params;
      if (typeof name !== 'string') throw rpcError(RPC.INVALID_PARAMS, 'Invalid tools/call request: params.name must be the name of a tool');
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw rpcError(RPC.INVALID_PARAMS, `Invalid tools/call request: params.arguments must be an object, got ${show(args)}`);
      }
      if (!tools.has(name)) throw rpcError(RPC.INVALID_PARAMS, `Unknown tool: ${name}`);
      return (await callTool(name, args, signal)) as Record<string, unknown>;
    },
  };

  /** The request's modern envelope, checked: undefined for a legacy request, else the version or an error. */
  function envelope(params: Record<string, unknown>): { version: string } | { error: { code: number; message: string; data?: unknown } } | undefined {
    const meta = params._meta as Record<string, unknown> | undefined;
    if (typeof meta !== 'object' || meta === null || !(PROTOCOL_VERSION_KEY in meta)) return undefined;
    const version = meta[PROTOCOL_VERSION_KEY];
    const caps = meta[CLIENT_CAPABILITIES_KEY];
    if (typeof version !== 'string' || typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
      return { error: { code: RPC.INVALID_PARAMS, message: `Invalid _meta envelope: ${PROTOCOL_VERSION_KEY} must be a version string and ${CLIENT_CAPABILITIES_KEY} an object` } };
    }
    if (!(MODERN_VERSIONS as readonly string[]).includes(version)) {
      return {
        error: { code: RPC.UNSUPPORTED_PROTOCOL_VERSION, message: `Unsupported protocol version: ${version}`, data: { supported: [...MODERN_VERSIONS], requested: version } },
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
    if (id === undefined || m.jsonrpc !== '2.0') return errorResponse(id, RPC.INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0" and a string or number "id"');
    const params = m.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return errorResponse(id, RPC.INVALID_PARAMS, 'Invalid params: params must be an object');
    const era = envelope(params as Record<string, unknown>);
    if (era && 'error' in era) return { jsonrpc: '2.0', id, error: era.error } as JSONRPCMessage;
    const modern = era !== undefined;
    const method = Object.hasOwn(methods, m.method) && !(modern && m.method === 'initialize') ? methods[m.method] : undefined;
    if (!method) return errorResponse(id, RPC.METHOD_NOT_FOUND, `Method not found: ${m.method}`);
    const abort = new AbortController();
    inflight.set(id, abort);
    try {
      const result = await method(params as Record<string, unknown>, modern, abort.signal);
      if (abort.signal.aborted) return undefined; // cancelled: the spec forbids any answer
      // 2026-07-28: every result says its type and names the server.
      const full = modern || m.method === 'server/discover' ? { ...result, resultType: 'complete', _meta: { [SERVER_INFO_KEY]: serverInfo } } : result;
      return { jsonrpc: '2.0', id, result: full } as JSONRPCMessage;
    } catch (err) {
      if (abort.signal.aborted) return undefined;
      const e = err as Error & { rpcCode?: number };
      if (e.rpcCode === undefined) log(`vox mcp: ${m.method} failed: ${e.stack ?? e.message}`);
      return errorResponse(id, e.rpcCode ?? RPC.INTERNAL_ERROR, e.message);
    } finally {
      if (inflight.get(id) === abort) inflight.delete(id);
    }
  }

  function notification(method: string, params: unknown) {
    if (method !== 'notifications/cancelled') return; // initialized and the rest: nothing to do
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    const abort = typeof requestId === 'string' || typeof requestId === 'number' ? inflight.get(requestId) : undefined;
    abort?.abort();
  }

  async function handle(message: unknown): Promise<JSONRPCMessage | JSONRPCMessage[] | undefined> {
    if (!Array.isArray(message)) return handleOne(message);
    // JSON-RPC batches: part of MCP 2025-03-26 only (2025-06-18 removed them).
    if (negotiated === undefined || negotiated >= '2025-06-18') {
      return errorResponse(undefined, RPC.INVALID_REQUEST, `Invalid Request: batches are not part of MCP ${negotiated ?? '2025-06-18'} and later; send one message per line`);
    }
    if (message.length === 0) return errorResponse(undefined, RPC.INVALID_REQUEST, 'Invalid Request: empty batch');
    const answers = (await Promise.all(message.map((m) => handleOne(m)))).filter((a) => a !== undefined);
    return answers.length ? answers : undefined;
  }

  return { listTools, callTool, handle };
}

/** The 2026-07-28 `_meta` keys. */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
/** The tool list and the discovery answer are the same for the life of the process and hold nothing of the user's. */
const CACHE_HINT = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { rpcCode: code });
}

/** An error response; `id` is left out when the request's id could not be read (allowed since MCP 2025-11-25; `"id": null` is not). */
export function errorResponse(id: string | number | undefined, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } } as unknown as JSONRPCMessage;
}

// ---------------------------------------------------------------------------
// The stdio transport

/** Longest message read from stdin, in characters (the SDK's stdio transport caps its buffer at the same 10 Mi). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

/** What `serveStdio` needs from the outside: the process's streams, environment and directory. */
export interface StdioOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Tools from other modules (VoxMcpOptions.tools). */
  tools?: readonly McpTool[];
}

/**
 * Serves MCP on stdin/stdout, one JSON-RPC message per line (the MCP stdio
 * transport), until stdin ends; answers every request already read, then
 * resolves with the exit code.
 */
export function serveStdio(io: StdioOptions): Promise<number> {
  const log = (line: string) => {
    io.stderr.write(`${line}\n`);
  };
  const mcp = createVoxMcp({ env: io.env, cwd: io.cwd, log, ...(io.tools ? { tools: io.tools } : {}) });
  const pending = new Set<Promise<void>>();
  let broken = false;

  const send = (message: JSONRPCMessage | JSONRPCMessage[]) => {
    if (!broken) io.stdout.write(`${JSON.stringify(message)}\n`);
  };

  const receive = (line: string) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (err) {
      log(`vox mcp: a line on stdin is not JSON (${(err as Error).message}); answered with a parse error`);
      send(errorResponse(undefined, RPC.PARSE_ERROR, `Parse error: ${(err as Error).message}`));
      return;
    }
    const work = (async () => {
      try {
        const answer = await mcp.handle(message);
        if (answer) send(answer);
      } catch (err) {
        log(`vox mcp: cannot answer: ${(err as Error).stack ?? String(err)}`);
      }
    })();
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  return new Promise<number>((resolve) => {
    let buffer = '';
    io.stdin.setEncoding('utf8');
    io.stdin.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        receive(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (buffer.length > MAX_LINE_CHARS) {
        log(`vox mcp: a message on stdin is longer than ${MAX_LINE_CHARS} characters; dropped`);
        send(errorResponse(undefined, RPC.INVALID_REQUEST, `Invalid Request: message longer than ${MAX_LINE_CHARS} characters`));
        buffer = '';
      }
    });
    const finish = async () => {
      if (buffer.trim()) receive(buffer);
      buffer = '';
      while (pending.size) await Promise.allSettled([...pending]);
      resolve(0);
    };
    io.stdin.once('end', () => void finish());
    io.stdin.once('error', (err) => {
      log(`vox mcp: stdin: ${err.message}`);
      void finish();
    });
    // The client went away: nobody is left to answer, so stop writing and finish.
    io.stdout.on('error', (err) => {
      if (broken) return;
      broken = true;
      log(`vox mcp: stdout: ${err.message}; exiting`);
      io.stdin.destroy();
      void finish();
    });
  });
}
