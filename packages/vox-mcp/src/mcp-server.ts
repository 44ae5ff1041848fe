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
 * and hold about 2.5x; Node flags shave little off that. So the protocol is
 * spoken here: the stdio transport is newline-delimited JSON-RPC 2.0, and the
 * four methods a tool server needs (`initialize`, `ping`, `tools/list`,
 * `tools/call`) are a page of code. The SDK is still the reference: messages
 * are typed with its TypeScript types (`import type`, nothing at run time),
 * the supported protocol versions are checked against its list, and the tests
 * drive this server with the SDK's own Client.
 *
 * Other notes:
 * - Tool inputs are written once as JSON Schema: `tools/list` publishes them
 *   and `checkInput` validates calls against the same objects.
 * - Everything a tool needs (config, client, speech, recording) is imported on
 *   its first call. Nothing here imports fastify, undici, an engine or voxd.
 * - stdout carries JSON-RPC only; diagnostics go to `log` (stderr).
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
  PRIORITIES,
  VERSION,
  type SpeakResponse,
  type StatusResponse,
  type StopResponse,
  type VoicesResponse,
  type WireError,
} from '@vox/protocol';
import type { ResolvedConfig } from './config.js';
import type { SpeechOverrides } from './speech.js';

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
  additionalProperties?: boolean;
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
  const { SCHEMA, CONFIG_KEYS, ENGINES, NOTIFY_MODES, DEFAULTS } = await import('./config.js');
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

function ok(text: string, structuredContent?: Structured): CallToolResult {
  return structuredContent ? { content: [{ type: 'text', text }], structuredContent } : { content: [{ type: 'text', text }] };
}

function fail(text: string, structuredContent?: Structured): CallToolResult {
  return { ...ok(text, structuredContent), isError: true };
}

/** A thrown error as a result: ConfigError and ClientError messages say the cause and the fix. */
export function errorResult(err: unknown): CallToolResult {
  const e = err as Error & { code?: string; file?: string; problems?: unknown };
  if (e?.name === 'ConfigError') return fail(e.message, { code: e.code, file: e.file, problems: e.problems });
  if (typeof e?.code === 'string' && e.code.startsWith('VOX_ERR_')) return fail(`${e.code}: ${e.message}`, { code: e.code, message: e.message });
  return fail(`unexpected error in vox mcp: ${e?.message ?? String(err)}. Please report it with the steps that led to it.`, {
    message: e?.message ?? String(err),
  });
}

/** voxd's refusal as a result. */
export function wireErrorResult(status: number, body: unknown): CallToolResult {
  const err = (body ?? {}) as Partial<WireError>;
  const code = err.code ?? `HTTP ${status}`;
  return fail(`${code}: ${err.message ?? 'voxd refused the request'}`, { code, message: err.message ?? null, statusCode: status });
}
const failFrom = errorResult;
const failWire = wireErrorResult;

function quote(text: string, max = 300): string {
  return `"${text.length > max ? `${text.slice(0, max - 1)}…` : text}"`;
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

const speak: McpTool = {
  name: 'speak',
  description:
    "Say something aloud to the user through vox, the speech daemon shared by every coding session on this machine. Use it for short spoken updates the user should hear without looking: a task finished, a question that needs them, a failure. Speaks with this project's voice, rate and pronunciations (.vox/config.md). Returns whether the text was queued, played, or skipped as a duplicate (the same text was spoken recently, possibly by another session), and the text as it will be spoken.",
  input: SPEAK_INPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { buildDelivery } = await import('./speech.js');
    const overrides: SpeechOverrides = {};
    if (args.voice !== undefined) overrides.voice = args.voice as string;
    if (args.rate !== undefined) overrides.rate = args.rate as number;
    if (args.once !== undefined) overrides.once = args.once as number;
    if (args.priority !== undefined) overrides.priority = args.priority as SpeechOverrides['priority'];
    const delivery = buildDelivery(args.text as string, config, session, overrides);
    const reply = await ctx.call<SpeakResponse | WireError>('POST', delivery.route, delivery.body);
    if (reply.status >= 400) return failWire(reply.status, reply.body);
    const res = reply.body as SpeakResponse;
    if (delivery.route === '/v1/chime') {
      const text = `Not spoken: this project is muted (speak: false in ${config.file}); played the "${delivery.body.signal}" chime instead (${res.status}).`;
      return ok(text, { ...res, session, chime: delivery.body.signal });
    }
    const spoken = res.text ?? delivery.body.text;
    const structured = { ...res, session, spokenText: spoken, voice: delivery.body.voice ?? null, priority: delivery.body.priority ?? null };
    const engine = res.fallbackReason ? ` Spoken with ${res.engine} instead of the configured engine: ${res.fallbackReason}.` : '';
    switch (res.status) {
      case 'queued':
      case 'playing':
        return ok(`Queued as ${res.id} (${delivery.body.priority}); it will be spoken as ${quote(spoken)}.${engine}`, structured);
      case 'played':
        return ok(`Played ${res.id}: ${quote(spoken)}.${engine}`, structured);
      case 'deduped': {
        const d = res.duplicate;
        const original = d?.originalId ?? res.originalId ?? 'an earlier request';
        const what = d?.originalStatus === 'played' ? `was already spoken${d.playedAt ? ` at ${d.playedAt}` : ''}` : `is already ${d?.originalStatus ?? 'queued'}`;
        const left = d ? ` Repeats are skipped for another ${Math.ceil(d.windowRemainingMs / 1000)} s.` : '';
        return ok(`Not spoken again: the same text ${what} (${original}), possibly from another session.${left}`, structured);
      }
      case 'failed':
        return fail(`Speech failed: ${res.error ? `${res.error.code}: ${res.error.message}` : (res.reason ?? 'unknown reason')}`, structured);
      default:
        return ok(`Not spoken: ${res.status}${res.reason ? ` (${res.reason})` : ''}.`, structured);
    }
  },
};

const stop: McpTool = {
  name: 'stop',
  description:
    "Stop speech. By default stops only this session's speech (what is playing and what is queued); with scope \"all\", stops everything for every session. Use it when the user asks for silence.",
  input: STOP_INPUT,
  async run(args, ctx) {
    const all = args.scope === 'all';
    const session = all ? undefined : await ctx.session();
    const whose = all ? 'for every session' : `of this session (${session})`;
    const structured = { scope: all ? 'all' : 'session', session: session ?? null };
    const { health } = await import('./client.js');
    // Starting voxd to stop nothing would be silly: no voxd, no speech.
    if (!(await health(ctx.env))) return ok(`Nothing to stop ${whose}: voxd is not running.`, { ...structured, stopped: [] });
    const reply = await ctx.call<StopResponse | WireError>('POST', '/v1/stop', all ? { scope: 'all' } : { scope: 'session', session }, false);
    if (reply.status !== 200) return failWire(reply.status, reply.body);
    const { stopped } = reply.body as StopResponse;
    const text = stopped.length ? `Stopped ${stopped.length} request${stopped.length === 1 ? '' : 's'} ${whose}: ${stopped.join(', ')}.` : `Nothing to stop ${whose}.`;
    return ok(text, { ...structured, stopped });
  },
};

const voices: McpTool = {
  name: 'voices',
  description: "List the voices the project's speech engine offers (ids to use as speak's voice or configure's voice), optionally only those for one language.",
  input: VOICES_INPUT,
  readOnly: true,
  async run(args, ctx) {
    const { config } = await ctx.context();
    const engine = config.values.engine !== 'auto' ? config.values.engine : undefined;
    const reply = await ctx.call<VoicesResponse | WireError>('GET', `/v1/voices${engine ? `?engine=${encodeURIComponent(engine)}` : ''}`);
    if (reply.status !== 200) return failWire(reply.status, reply.body);
    const body = reply.body as VoicesResponse;
    const lang = (args.language as string | undefined)?.toLowerCase();
    const list = body.voices.filter((v) => !lang || v.languages.some((l) => l.toLowerCase().startsWith(lang)));
    const shown = 100;
    const lines = list.slice(0, shown).map((v) => `${v.id}: ${v.name}${v.languages.length ? ` (${v.languages.join(', ')})` : ''}`);
    if (list.length > shown) lines.push(`… and ${list.length - shown} more (ask for a language to narrow the list).`);
    const head = `${list.length} voice${list.length === 1 ? '' : 's'} of engine ${body.engine}${lang ? ` for "${lang}"` : ''}${list.length ? ':' : '.'}`;
    return ok([head, ...lines].join('\n'), { engine: body.engine, voices: list });
  },
};

const status: McpTool = {
  name: 'status',
  description:
    "Show the speech daemon's state (engine, audio output, what is playing, the queue, recent history) and this session's configuration: each setting with where it comes from (the .vox/config.md file or the default).",
  input: STATUS_INPUT,
  readOnly: true,
  async run(_args, ctx) {
    const lines: string[] = [];
    const structured: Structured = { cwd: ctx.cwd };
    let failed = false;
    try {
      const { config, session } = await ctx.context();
      const { CONFIG_KEYS, configView } = await import('./config.js');
      structured.session = session;
      structured.config = configView(config);
      lines.push(`Session ${session}, working directory ${ctx.cwd}`, `Config: ${config.file ?? 'no .vox/config.md found; all defaults'}`);
      for (const k of CONFIG_KEYS) lines.push(`  ${k} = ${config.values[k] === undefined ? '(unset)' : JSON.stringify(config.values[k])}  (${config.sources[k]})`);
      if (config.pronunciations.length) lines.push(`  pronunciations: ${config.pronunciations.map((p) => `${p.word} → ${p.say}`).join(', ')}`);
    } catch (err) {
      failed = true;
      const r = failFrom(err);
      structured.configError = r.structuredContent;
      lines.push(`Session working directory ${ctx.cwd}`, (r.content[0] as { text: string }).text);
    }
    lines.push('');
    try {
      const reply = await ctx.call<StatusResponse | WireError>('GET', '/v1/status');
      if (reply.status !== 200) {
        const r = failWire(reply.status, reply.body);
        failed = true;
        structured.daemonError = r.structuredContent;
        lines.push(`voxd: ${(r.content[0] as { text: string }).text}`);
      } else {
        const { formatStatus } = await import('./commands/status.js');
        structured.daemon = reply.body;
        lines.push(formatStatus(reply.body as StatusResponse).trimEnd());
      }
    } catch (err) {
      failed = true;
      const r = failFrom(err);
      structured.daemonError = r.structuredContent;
      lines.push(`voxd: ${(r.content[0] as { text: string }).text}`);
    }
    return failed ? fail(lines.join('\n'), structured) : ok(lines.join('\n'), structured);
  },
};

const configure: McpTool = {
  name: 'configure',
  description:
    "Change this project's speech settings in .vox/config.md (found by walking up from the working directory; created here if there is none). Give only the keys to change, e.g. {\"voice\": \"en-gb\", \"rate\": 190}; null resets a key to its default. The file's other keys, comments and text are kept. Applies to the next speak call of every session in this project.",
  input: configureInput,
  check: false,
  async run(args, ctx) {
    const keys = Object.keys(args);
    const { CONFIG_KEYS } = await import('./config.js');
    if (keys.length === 0) return fail(`Give at least one setting to change, e.g. {"rate": 190}. Settings: ${CONFIG_KEYS.join(', ')}.`);
    const { setConfigValues } = await import('./config-writer.js');
    const config = await setConfigValues(ctx.cwd, args);
    const changes = keys.map((k) =>
      args[k] === null ? `${k} reset to its default` : `${k} = ${JSON.stringify(config.values[k as keyof typeof config.values])}`,
    );
    return ok(`Saved in ${config.file}: ${changes.join(', ')}. The next speak uses it.`, {
      file: config.file ?? null,
      changed: keys,
      values: Object.fromEntries(CONFIG_KEYS.map((k) => [k, config.values[k] ?? null])),
      sources: config.sources,
    });
  },
};

const record: McpTool = {
  name: 'record',
  description:
    "Save speech as a WAV file instead of playing it, with this project's voice and pronunciations. Returns the file's path, size and duration.",
  input: RECORD_INPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { synthesizeWav, wavSeconds } = await import('./recording.js');
    const overrides: SpeechOverrides = {};
    if (args.voice !== undefined) overrides.voice = args.voice as string;
    if (args.rate !== undefined) overrides.rate = args.rate as number;
    const result = await synthesizeWav(ctx.env, args.text as string, config, session, overrides);
    if ('error' in result) return failWire(result.error.statusCode, result.error);
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
      return fail(`Cannot save ${path}: ${(err as Error).message}. Choose a path in a directory you can write to.`, { path, code: (err as NodeJS.ErrnoException).code ?? null });
    }
    const seconds = wavSeconds(result.wav);
    const length = seconds === undefined ? '' : `${seconds.toFixed(1)} s of audio, `;
    return ok(`Saved ${length}${Math.ceil(result.wav.length / 1024)} KB, to ${path}.`, { path, bytes: result.wav.length, seconds: seconds ?? null });
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
  handle(message: unknown): Promise<JSONRPCMessage | undefined>;
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

/** JSON-RPC 2.0 error codes. */
const RPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603 } as const;

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
    const { sessionLabel } = await import('./session.js');
    let name = config?.projectName;
    if (!name) {
      // Without a valid config (stop must still work), the name is found the way resolveConfig finds it.
      const { projectNameFor } = await import('./config.js');
      name = projectNameFor(cwd);
    }
    return (label = sessionLabel(name, env));
  }

  async function context(): Promise<{ config: ResolvedConfig; session: string }> {
    const { resolveConfig } = await import('./config.js');
    const config = await resolveConfig(cwd); // on every call: edits apply without a restart
    return { config, session: await sessionOf(config) };
  }

  async function call<T>(method: string, path: string, body?: unknown, autostart = true) {
    const client = await import('./client.js');
    return client.call<T>(autostart ? env : { ...env, VOX_NO_AUTOSTART: '1' }, method, path, body);
  }

  const never = new AbortController().signal;

  async function callTool(name: string, args: unknown, signal: AbortSignal = never): Promise<CallToolResult> {
    const tool = tools.get(name);
    if (!tool) return fail(`Unknown tool "${name}". vox's tools: ${[...tools.values()].filter((t) => !t.hidden).map((t) => t.name).join(', ')}.`);
    try {
      const input = args ?? {};
      if (typeof input !== 'object' || Array.isArray(input)) return fail(`The arguments of ${name} must be an object, got ${show(input)}.`);
      if (tool.check !== false) {
        const problems = checkInput(await inputOf(tool), input);
        if (problems.length) return fail(`Invalid input for ${name}: ${problems.join('; ')}.`, { code: 'VOX_ERR_CLIENT_USAGE', problems });
      }
      return await tool.run(input as Record<string, unknown>, { env, cwd, log, context, session: sessionOf, call, signal });
    } catch (err) {
      return failFrom(err);
    }
  }
  const methods: Record<string, (params: Record<string, unknown>) => Promise<object>> = {
    async initialize(params) {
      const asked = params.protocolVersion;
      const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : PROTOCOL_VERSIONS[0];
      const result: InitializeResult = {
        protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'vox', title: 'vox: speech for coding sessions', version: VERSION },
        instructions: INSTRUCTIONS,
      };
      return result;
    },
    async ping() {
      return {};
    },
    async 'tools/list'() {
      return { tools: await listTools() };
    },
    async 'tools/call'(params) {
      if (typeof params.name !== 'string') throw rpcError(RPC.INVALID_PARAMS, 'tools/call needs params.name, the name of a tool');
      return callTool(params.name, params.arguments);
    },
  };

  async function handle(message: unknown): Promise<JSONRPCMessage | undefined> {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return errorResponse(null, RPC.INVALID_REQUEST, 'a JSON-RPC message must be an object');
    }
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    if (typeof m.method !== 'string') {
      // A response to a request of ours: this server sends none, so there is nothing to match.
      if (id !== undefined && ('result' in m || 'error' in m)) return undefined;
      return errorResponse(id ?? null, RPC.INVALID_REQUEST, 'not a JSON-RPC 2.0 request: "method" is missing');
    }
    if (m.id === undefined) return undefined; // a notification (initialized, cancelled, ...): nothing to answer
    if (id === undefined || m.jsonrpc !== '2.0') return errorResponse(null, RPC.INVALID_REQUEST, 'not a JSON-RPC 2.0 request: needs "jsonrpc": "2.0" and a string or number "id"');
    const method = Object.hasOwn(methods, m.method) ? methods[m.method] : undefined;
    if (!method) return errorResponse(id, RPC.METHOD_NOT_FOUND, `method not found: ${m.method}`);
    const params = m.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return errorResponse(id, RPC.INVALID_PARAMS, 'params must be an object');
    try {
      return { jsonrpc: '2.0', id, result: (await method(params as Record<string, unknown>)) as Record<string, unknown> };
    } catch (err) {
      const e = err as Error & { rpcCode?: number };
      if (e.rpcCode === undefined) log(`vox mcp: ${m.method} failed: ${e.stack ?? e.message}`);
      return errorResponse(id, e.rpcCode ?? RPC.INTERNAL_ERROR, e.message);
    }
  }

  return { listTools, callTool, handle };
}

function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { rpcCode: code });
}

function errorResponse(id: string | number | null, code: number, message: string): JSONRPCMessage {
  // id is null only when the request's id could not be read, as JSON-RPC 2.0 prescribes.
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
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
      send(errorResponse(null, RPC.PARSE_ERROR, `parse error: ${(err as Error).message}`));
      return;
    }
    const work = (async () => {
      try {
        if (Array.isArray(message)) {
          // A batch (protocol 2025-03-26): the answers go back together.
          const answers = (await Promise.all(message.map((m) => mcp.handle(m)))).filter((a) => a !== undefined);
          if (answers.length) send(answers);
          else if (message.length === 0) send(errorResponse(null, RPC.INVALID_REQUEST, 'empty batch'));
        } else {
          const answer = await mcp.handle(message);
          if (answer) send(answer);
        }
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
        send(errorResponse(null, RPC.INVALID_REQUEST, `message longer than ${MAX_LINE_CHARS} characters`));
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
