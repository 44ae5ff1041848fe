/**
 * The recap tool: voxd says what the person missed since the last recap
 * (`vox recap`, docs/cli.md): speech that failed or that the queue dropped,
 * from every session, grouped by session. For "what did I miss?".
 */
import type { RecapResponse, WireError } from '@vox/protocol';
import { str, type InputSchema } from '../schema.js';
import { toolResult, wireErrorResult, type McpTool } from '../tool.js';

const RECAP_INPUT: InputSchema = { type: 'object', properties: {}, additionalProperties: false };

const RECAP_OUTPUT: InputSchema = {
  type: 'object',
  properties: {
    id: { ...str, description: 'The id of the recap as voxd speaks it.' },
    status: { ...str, description: 'queued, or why it was not (dropped, ...).' },
    text: { ...str, description: 'What the recap says.' },
    items: { type: 'integer', description: 'Missed items it covers (said, or counted as "and N more").' },
    sessions: { type: 'integer', description: 'The sessions they came from.' },
  },
  required: ['id', 'status', 'items', 'sessions'],
};

export const recap: McpTool = {
  name: 'recap',
  description:
    'Say aloud what the user missed since the last recap: speech from any session that failed, was dropped or cut for more important speech, or expired before it started, grouped by session, newest last. A second recap right after says "Nothing new since the last recap." Use it when the user asks what they missed.',
  input: RECAP_INPUT,
  output: RECAP_OUTPUT,
  async run(_args, ctx) {
    const reply = await ctx.call<RecapResponse | WireError>('POST', '/v1/recap', {});
    if (reply.status >= 300) return wireErrorResult(reply.status, reply.body);
    const r = reply.body as RecapResponse;
    return toolResult({
      id: r.id,
      status: r.status,
      ...(r.text !== undefined ? { text: r.text } : {}),
      items: r.items,
      sessions: r.sessions,
    });
  },
};
