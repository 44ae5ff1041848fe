import type { FastifyPluginAsync } from 'fastify';
import { chimeRequestSchema, type ChimeRequest } from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { sendOutcome } from './speak.js';

export const chimeRoute: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.post<{ Body: ChimeRequest }>('/v1/chime', { schema: { body: chimeRequestSchema } }, async (request, reply) => {
    const { signal, wait, ...options } = request.body;
    const { response, settled } = await dispatcher.chime(signal, options);
    if (wait) return sendOutcome(reply, await settled);
    return reply.code(response.status === 'queued' ? 202 : 200).send(response);
  });
};
