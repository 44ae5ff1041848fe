/**
 * The stop tool: stop this session's speech, or everyone's. "This session" is
 * every label this process has used (project/session.ts): after a /clear the
 * hooks speak under the new id while speech queued under the old one is still
 * the session's.
 */
import type { StopResponse, WireError } from '@vox/protocol';
import { str, strings, type InputSchema } from '../schema.js';
import { toolResult, wireErrorResult, type McpTool, type Structured } from '../tool.js';

const STOP_INPUT: InputSchema = {
  type: 'object',
  properties: {
    scope: {
      type: 'string',
      enum: ['session', 'all'],
      description:
        "session (default): stop this session's speech, playing or queued; all: stop everything voxd is saying for every session.",
    },
  },
  additionalProperties: false,
};

const STOP_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    scope: { type: 'string', enum: ['session', 'all'] },
    session: { ...str, description: "This session's label, when scope is session." },
    sessions: {
      ...strings,
      description: 'Every label this session has spoken under (a /clear gives a new one), when scope is session.',
    },
    stopped: { ...strings, description: 'The ids of the requests stopped, playing or queued.' },
    why: { ...str, description: 'Why nothing was stopped, when that is known.' },
  },
  required: ['scope', 'stopped'],
};

export const stop: McpTool = {
  name: 'stop',
  description:
    'Stop speech. By default stops only this session\'s speech (what is playing and what is queued, from the model and from this session\'s hooks); with scope "all", stops everything for every session. Use it when the user asks for silence.',
  input: STOP_INPUT,
  output: STOP_OUTPUT,
  async run(args, ctx) {
    const all = args.scope === 'all';
    const session = all ? undefined : await ctx.session();
    const { labelsUsed } = await import('../../project/session.js');
    // The current label last: what was queued under an older one is stopped first, so nothing of it starts.
    const sessions = all ? [] : [...labelsUsed().filter((l) => l !== session), session!];
    const out: Structured = all ? { scope: 'all' } : { scope: 'session', session, sessions };
    const { health } = await import('../../client/endpoint.js');
    // Starting voxd to stop nothing would be silly: no voxd, no speech.
    if (!(await health(ctx.env))) return toolResult({ ...out, stopped: [], why: 'voxd is not running' });
    const stopped: string[] = [];
    for (const body of all ? [{ scope: 'all' }] : sessions.map((s) => ({ scope: 'session', session: s }))) {
      const reply = await ctx.call<StopResponse | WireError>('POST', '/v1/stop', body, false);
      if (reply.status !== 200) return wireErrorResult(reply.status, reply.body);
      stopped.push(...(reply.body as StopResponse).stopped);
    }
    return toolResult({ ...out, stopped });
  },
};
