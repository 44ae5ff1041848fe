/** The status tool: voxd's state and this session's configuration. */
import {
  VERSION,
  type AttentionStatusField,
  type NarratingStatusField,
  type QuietStatusField,
  type SessionVoices,
  type StatusResponse,
  type WireError,
} from '@vox/protocol';
import { str, strings, type InputSchema } from '../schema.js';
import { toolResult, type McpTool, type Structured } from '../tool.js';
import { OUTCOMES } from './speak.js';

const STATUS_INPUT: InputSchema = { type: 'object', properties: {}, additionalProperties: false };

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
    sessions: {
      ...strings,
      description: 'Every label this session has spoken under, oldest first (a /clear gives a new one).',
    },
    cwd: str,
    config: {
      type: 'object',
      properties: {
        file: { type: ['string', 'null'], description: 'The .vox/config.md in effect; null: none, all defaults.' },
        values: { type: 'object', description: 'Every setting in effect (unset ones left out).' },
        fromFile: { ...strings, description: 'The settings the file sets; the others are defaults.' },
        pronunciations: {
          type: 'array',
          items: { type: 'object', properties: { word: str, say: str }, required: ['word', 'say'] },
        },
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
        engine: {
          type: 'object',
          properties: { name: str, ready: { type: 'boolean' }, reason: str },
          required: ['name', 'ready'],
        },
        audio: {
          type: 'object',
          properties: { name: str, ok: { type: 'boolean' }, detail: str, lastError: str },
          required: ['name', 'ok'],
        },
        counters: { type: 'object', additionalProperties: { type: 'integer' } },
        playing: { anyOf: [ITEM, { type: 'null' }] },
        queued: { type: 'integer' },
        queue: { type: 'array', items: ITEM },
        attention: {
          type: 'object',
          description:
            'The session the person is in (focus), the daemon setting attention (all, or focus: other sessions speak only when they need the person), and what is held per session for the next digest.',
          properties: {
            mode: str,
            focus: { anyOf: [str, { type: 'null' }] },
            reason: str,
            held: {
              type: 'array',
              items: {
                type: 'object',
                properties: { session: str, held: { type: 'integer' } },
                required: ['session', 'held'],
              },
            },
            digestDueAt: str,
          },
          required: ['mode', 'focus', 'held'],
        },
        narrating: {
          type: 'array',
          description:
            "Narrations that spoke all they have and wait for the model's next lines (out of the queue meanwhile).",
          items: {
            type: 'object',
            properties: { id: str, session: str, spoken: { type: 'integer' }, waitingMs: { type: 'integer' } },
            required: ['id', 'session', 'spoken', 'waitingMs'],
          },
        },
        held: {
          ...strings,
          description:
            'Why voxd holds all speech now (paused by a media key, the microphone in use by another program, quiet hours); empty: not held.',
        },
        voices: {
          type: 'array',
          description: "Each session's own voice, most recently used first.",
          items: {
            type: 'object',
            properties: { session: str, engine: str, voice: str },
            required: ['session', 'engine', 'voice'],
          },
        },
        recent: {
          type: 'array',
          description: `The newest ${STATUS_ITEMS} requests, newest first.`,
          items: {
            type: 'object',
            properties: {
              id: str,
              at: str,
              outcome: { type: 'string', enum: OUTCOMES },
              session: str,
              text: str,
              reason: str,
            },
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

function daemonFacts(
  s: StatusResponse & SessionVoices & NarratingStatusField & AttentionStatusField & QuietStatusField,
): Structured {
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
    narrating: (s.narrating?.items ?? [])
      .slice(0, STATUS_ITEMS)
      .map((n) => ({ id: n.id, session: n.session, spoken: n.spoken, waitingMs: n.waitingMs })),
    ...(s.attention
      ? {
          attention: {
            mode: s.attention.mode,
            focus: s.attention.focus,
            ...(s.attention.reason ? { reason: s.attention.reason } : {}),
            held: s.attention.held.slice(0, STATUS_ITEMS),
            ...(s.attention.digestDueAt ? { digestDueAt: s.attention.digestDueAt } : {}),
          },
        }
      : {}),
    ...(s.quiet ? { held: s.quiet.reasons.map((r) => r.detail) } : {}),
    voices: (s.sessionVoices ?? [])
      .slice(0, STATUS_ITEMS)
      .map((v) => ({ session: v.session, engine: v.engine, voice: v.voice })),
  });
  return out;
}

export const status: McpTool = {
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
      const { CONFIG_KEYS } = await import('../../project/config-schema.js');
      out.session = session;
      out.cwd = ctx.cwd;
      const values: Structured = {};
      for (const k of CONFIG_KEYS) if (config.values[k] !== undefined) values[k] = config.values[k];
      const view: Structured = {
        file: config.file ?? null,
        values,
        fromFile: CONFIG_KEYS.filter((k) => config.sources[k] !== 'default'),
      };
      if (config.pronunciations.length)
        view.pronunciations = config.pronunciations.map((p) => ({ word: p.word, say: p.say }));
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
        out.daemonError = {
          code: body.code ?? `HTTP ${reply.status}`,
          message: body.message ?? 'voxd refused the request',
        };
      } else {
        out.daemon = daemonFacts(reply.body as StatusResponse);
      }
    } catch (err) {
      failed = true;
      out.daemonError = errorFact(err);
    }
    if (out.session === undefined) delete out.session;
    else {
      const { labelsUsed } = await import('../../project/session.js');
      out.sessions = labelsUsed();
    }
    return toolResult(out, failed);
  },
};
