/** The speak tool: say a text aloud through voxd, in this session's voice. */
import {
  CHIME_SIGNALS,
  MAX_ONCE_SECONDS,
  MAX_RATE_WPM,
  MAX_TEXT_CHARS,
  MIN_ONCE_SECONDS,
  MIN_RATE_WPM,
  PRIORITIES,
  type SpeakResponse,
  type WireError,
} from '@vox/protocol';
import type { SpeechOverrides } from '../../project/speech.js';
import { str, type InputSchema } from '../schema.js';
import { speechOverrides, toolError, toolResult, wireErrorResult, type McpTool, type Structured } from '../tool.js';

// Each success is one compact JSON object (toolResult), described by the
// tool's output schema, holding every fact a sentence would have said: what
// happened, and `why` whenever the text was not, or not fully, spoken.
// Failures are isError results with one sentence: the cause and the fix.

export const TEXT: InputSchema = { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARS };

export const SPEAK_INPUT: InputSchema = {
  type: 'object',
  properties: {
    text: {
      ...TEXT,
      description: 'What to say, as plain sentences (no markdown or code). Keep it short: one or two sentences.',
    },
    voice: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "Voice name (the voices tool lists them). Default: the project's voice, else the engine's.",
    },
    rate: {
      type: 'number',
      minimum: MIN_RATE_WPM,
      maximum: MAX_RATE_WPM,
      description: "Words per minute. Default: the project's rate (175 unless configured).",
    },
    once: {
      type: 'number',
      minimum: MIN_ONCE_SECONDS,
      maximum: MAX_ONCE_SECONDS,
      description:
        "Seconds during which the same text, from any session, is spoken only once. Default: the project's dedup (5 unless configured).",
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

/** What became of a request (speak's status, status's recent outcomes). */
export const OUTCOMES = [
  'queued',
  'playing',
  'played',
  'deduped',
  'failed',
  'expired',
  'interrupted',
  'replaced',
  'dropped',
  'stopped',
  'held',
] as const;
const WHY: InputSchema = { type: 'string', description: 'Why the text is not, or not fully, spoken as asked.' };

const SPEAK_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    id: { ...str, description: "voxd's id of the request (stop and status name it)." },
    status: {
      type: 'string',
      enum: OUTCOMES,
      description: 'queued or played: it is (being) spoken; any other: it is not, see why.',
    },
    priority: { type: 'string', enum: PRIORITIES },
    spoken: {
      ...str,
      description: "The text as it will be spoken, when the project's pronunciations or announce prefix changed it.",
    },
    voice: str,
    engine: { ...str, description: 'The engine that speaks it, when it is not the configured one (see fallback).' },
    fallback: { ...str, description: 'Why the configured engine was not used.' },
    chime: {
      type: 'string',
      enum: CHIME_SIGNALS,
      description: 'The chime played instead of speech (a muted project).',
    },
    duplicateOf: { ...str, description: 'The earlier request, possibly of another session, that this one repeats.' },
    why: WHY,
  },
  required: ['id', 'status'],
};

export const speak: McpTool = {
  name: 'speak',
  description:
    "Say something aloud to the user through vox, the speech daemon shared by every coding session on this machine. Use it for short spoken updates the user should hear without looking: a task finished, a question that needs them, a failure. Speaks with this project's voice, rate and pronunciations (.vox/config.md). Returns whether the text was queued, played, or not spoken and why (e.g. the same text was spoken recently, possibly by another session, or the project is muted).",
  input: SPEAK_INPUT,
  output: SPEAK_OUTPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { buildDelivery } = await import('../../project/speech.js');
    const overrides = speechOverrides(args);
    if (args.once !== undefined) overrides.once = args.once as number;
    if (args.priority !== undefined) overrides.priority = args.priority as SpeechOverrides['priority'];
    const delivery = buildDelivery(args.text as string, config, session, overrides);
    const reply = await ctx.call<SpeakResponse | WireError>('POST', delivery.route, delivery.body);
    if (reply.status >= 400) return wireErrorResult(reply.status, reply.body);
    const res = reply.body as SpeakResponse;
    if (ctx.signal.aborted && (res.status === 'queued' || res.status === 'playing')) {
      // Cancelled while voxd was taking it: take it back (nobody will read the answer).
      const client = await import('../../client/call.js');
      await client
        .call({ ...ctx.env, VOX_NO_AUTOSTART: '1' }, 'POST', '/v1/stop', { scope: 'id', id: res.id })
        .catch(() => undefined);
    }
    const out: Structured = {
      id: res.id,
      status: res.status,
      priority: delivery.body.priority ?? config.values.priority,
    };
    if (delivery.route === '/v1/chime') {
      out.chime = delivery.body.signal;
      out.why = `this project is muted (speak: false in ${config.file}): the ${delivery.body.signal} chime plays instead of speech`;
      return toolResult(out);
    }
    if (res.status === 'failed')
      return toolError(
        `Speech failed: ${res.error ? `${res.error.code}: ${res.error.message}` : (res.reason ?? 'unknown reason')}`,
      );
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
      const what =
        d?.originalStatus === 'played'
          ? `was spoken${d.playedAt ? ` at ${d.playedAt}` : ''}`
          : `is ${d?.originalStatus ?? 'queued'}`;
      out.why = `the same text ${what}, possibly by another session; repeats are skipped${d ? ` for another ${Math.ceil(d.windowRemainingMs / 1000)} s` : ''}`;
    } else if (res.status !== 'queued' && res.status !== 'playing' && res.status !== 'played') {
      out.why = res.reason ?? res.status;
    }
    return toolResult(out);
  },
};
