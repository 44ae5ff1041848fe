/**
 * The MCP tools `listen` (hear the user once) and `converse` (say something,
 * then hear the answer), served by `vox mcp` beside the built-in tools
 * (cli/commands/mcp.ts). voxd owns the microphone: one listener at a time (the
 * others queue; a conversation may keep it for its next turn), never while it speaks. Results are compact JSON (structuredContent) valid against
 * the output schemas below; failures are isError results naming the cause,
 * the fix and, when audio was captured, where it is.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  listenRequestSchema,
  MAX_RATE_WPM,
  MAX_TEXT_CHARS,
  MIN_RATE_WPM,
  type ListenRequest,
  type ListenResponse,
  type SpeakResponse,
  type WireError,
} from '@vox/protocol';
import type { InputSchema } from '../schema.js';
import { speechOverrides, toolError, toolResult, wireErrorResult, type McpTool, type ToolContext } from '../tool.js';
import type { SpeechOverrides } from '../../project/speech.js';

const p = listenRequestSchema.properties;
const LISTEN_OPTIONS: Record<string, InputSchema> = {
  maxSeconds: {
    type: 'number',
    minimum: p.maxSeconds.minimum,
    maximum: p.maxSeconds.maximum,
    description: 'Longest recording, in seconds (default 30).',
  },
  silenceMs: {
    type: 'integer',
    minimum: p.silenceMs.minimum,
    maximum: p.silenceMs.maximum,
    description:
      'Silence after speech that ends the answer, in ms (default 1200; longer for a user who pauses to think).',
  },
  startTimeoutMs: {
    type: 'integer',
    minimum: p.startTimeoutMs.minimum,
    maximum: p.startTimeoutMs.maximum,
    description: 'Give up when the user says nothing for this long, in ms (default 8000).',
  },
  language: {
    type: 'string',
    minLength: 2,
    maxLength: 12,
    pattern: p.language.pattern,
    description: 'Language of the answer for the transcriber, an ISO 639-1 code such as "en".',
  },
  keepAudio: { type: 'boolean', description: 'Keep the recording and return its path (audioPath).' },
  waitMs: {
    type: 'integer',
    minimum: p.waitMs.minimum,
    maximum: p.waitMs.maximum,
    description:
      'How long to queue for the microphone while another session uses it, in ms (default 60000; 0 fails at once).',
  },
  keepFloor: {
    type: 'boolean',
    description:
      'Keep the microphone for your follow-up turn: the result has floor.token; pass it as floorToken next time. It lapses after 10 s idle.',
  },
  floorToken: {
    type: 'string',
    pattern: p.floorToken.pattern,
    description: 'The floor.token of your previous turn: this turn goes before others waiting.',
  },
};

const LISTEN_INPUT: InputSchema = {
  type: 'object',
  properties: {
    ...LISTEN_OPTIONS,
    interrupt: { type: 'boolean', description: 'Cut the speech playing now instead of waiting for it to finish.' },
  },
  additionalProperties: false,
};

const CONVERSE_INPUT: InputSchema = {
  type: 'object',
  properties: {
    text: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TEXT_CHARS,
      description: 'What to say or ask first, as plain sentences; then the user is heard.',
    },
    voice: { type: 'string', minLength: 1, maxLength: 100, description: "Voice name. Default: the project's." },
    rate: {
      type: 'number',
      minimum: MIN_RATE_WPM,
      maximum: MAX_RATE_WPM,
      description: "Words per minute. Default: the project's.",
    },
    ...LISTEN_OPTIONS,
  },
  required: ['text'],
  additionalProperties: false,
};

const str: InputSchema = { type: 'string' };
const HEARD: Record<string, InputSchema> = {
  text: { ...str, description: 'What the user said; empty when nothing was heard or transcribed (see why).' },
  endedBy: {
    type: 'string',
    enum: ['silence', 'max', 'timeout', 'stopped', 'talk'],
    description:
      'silence: the user finished; max: cut at maxSeconds; timeout: the user said nothing; stopped: a stop ended it; talk: the text the user sent with vox talk, held for this call (nothing was recorded).',
  },
  speechMs: { type: 'integer', description: 'How long the user spoke, in ms.' },
  durationMs: { type: 'integer', description: 'Length of the recording, in ms.' },
  audioPath: { ...str, description: 'The recording (16 kHz WAV), when kept.' },
  why: { ...str, description: 'Why there is no transcript (no speech; no transcriber set, and how to set one).' },
  floor: {
    type: 'object',
    properties: { token: str, idleMs: { type: 'integer' } },
    required: ['token', 'idleMs'],
    description: 'With keepFloor: the token for the follow-up turn (floorToken), kept for idleMs after this result.',
  },
};

const LISTEN_OUTPUT: InputSchema = {
  type: 'object',
  properties: HEARD,
  required: ['text', 'endedBy', 'speechMs', 'durationMs'],
};
const CONVERSE_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    said: {
      type: 'object',
      properties: { id: str, status: str, why: str },
      required: ['id', 'status'],
      description:
        'The spoken question: played, or not and why (then nothing was recorded: an answer follows only a question that was heard).',
    },
    ...HEARD,
  },
  required: ['said', 'text', 'endedBy', 'speechMs', 'durationMs'],
};

function listenBody(args: Record<string, unknown>, session: string): ListenRequest {
  const body: ListenRequest = { session };
  for (const k of [
    'maxSeconds',
    'silenceMs',
    'startTimeoutMs',
    'language',
    'keepAudio',
    'interrupt',
    'waitMs',
    'keepFloor',
    'floorToken',
  ] as const) {
    if (args[k] !== undefined) (body as Record<string, unknown>)[k] = args[k];
  }
  return body;
}

/** The listen's facts for structuredContent, or the failure as a result. */
async function hear(
  args: Record<string, unknown>,
  ctx: ToolContext,
  session: string,
  say?: ListenRequest['say'],
): Promise<{ failed: CallToolResult } | { heard: Record<string, unknown>; said?: SpeakResponse }> {
  if (ctx.signal.aborted) return { failed: toolError('The call was cancelled before listening started.') };
  // Texts said with `vox talk` come first (mcp/channel.ts): the way in when Claude Code's channel gate is closed.
  const { takeHeld } = await import('../channel.js');
  const talked = takeHeld();
  if (talked.length) return { heard: { text: talked.join('\n'), endedBy: 'talk', speechMs: 0, durationMs: 0 } };
  const { listen, listenFailure } = await import('../../client/listening.js');
  const reply = await listen(ctx.env, { ...listenBody(args, session), ...(say ? { say } : {}) }, ctx.signal);
  if (reply.status !== 200) return { failed: toolError(listenFailure(reply.status, reply.body)) };
  const r = reply.body as ListenResponse;
  const out: Record<string, unknown> = {
    text: r.text,
    endedBy: r.endedBy,
    speechMs: r.speechMs,
    durationMs: r.durationMs,
  };
  if (r.audioPath) out.audioPath = r.audioPath;
  if (!r.transcribed && r.reason) out.why = r.reason;
  if (r.floor) out.floor = r.floor;
  return { heard: out, ...(r.said ? { said: r.said } : {}) };
}

export const listenTool: McpTool = {
  name: 'listen',
  description:
    'Listen to the user through the microphone (shared by every session; voxd records it) and return what they said, transcribed. A prompt chime tells them to speak; listening ends after they fall silent. Use it when the user has asked to talk by voice. To ask something aloud and hear the answer, use converse.',
  input: LISTEN_INPUT,
  output: LISTEN_OUTPUT,
  async run(args, ctx) {
    const session = await ctx.session();
    const h = await hear(args, ctx, session);
    return 'failed' in h ? h.failed : toolResult(h.heard);
  },
};

export const converseTool: McpTool = {
  name: 'converse',
  description:
    "Say something aloud (a question, usually), then listen for the user's spoken answer and return it transcribed: one turn of a voice conversation. Speaks with this project's voice, then the prompt chime, then records until the user falls silent.",
  input: CONVERSE_INPUT,
  output: CONVERSE_OUTPUT,
  async run(args, ctx) {
    const { config, session } = await ctx.context();
    const { buildDelivery } = await import('../../project/speech.js');
    const overrides: SpeechOverrides = { ...speechOverrides(args), once: 1 }; // a repeated question is asked again
    const delivery = buildDelivery(args.text as string, config, session, overrides);
    if (delivery.route === '/v1/speak') {
      // One operation of voxd: the question, then the listen, under one grant of the microphone.
      const { wait: _, ...say } = delivery.body;
      const h = await hear(args, ctx, session, say);
      if ('failed' in h) return h.failed;
      const s = h.said!;
      if (s.status === 'failed')
        return toolError(
          `Speech failed, so nothing was asked: ${s.error ? `${s.error.code}: ${s.error.message}` : (s.reason ?? 'unknown reason')}`,
        );
      const said: Record<string, unknown> = { id: s.id, status: s.status };
      if (s.status !== 'played' && s.reason) said.why = s.reason;
      return toolResult({ said, ...h.heard });
    }
    // Muted (speak: false): the chime, then the listen, as two calls: there are no words to keep together.
    const { call } = await import('../../client/call.js');
    const spoken = await call<SpeakResponse | WireError>(
      ctx.env,
      'POST',
      delivery.route,
      { ...delivery.body, wait: true },
      120_000,
      { signal: ctx.signal },
    );
    if (spoken.status >= 400) return wireErrorResult(spoken.status, spoken.body);
    const s = spoken.body as SpeakResponse;
    if (s.status === 'failed')
      return toolError(`The chime failed, so nothing was asked: ${s.reason ?? 'unknown reason'}`);
    const said = {
      id: s.id,
      status: s.status,
      why: `this project is muted (speak: false in ${config.file}): a chime played instead of the question`,
    };
    const h = await hear(args, ctx, session);
    return 'failed' in h ? h.failed : toolResult({ said, ...h.heard });
  },
};
