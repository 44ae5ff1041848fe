import type { FastifyPluginAsync } from 'fastify';
import { speakRequestSchema, type SpeakRequest } from '@vox/protocol';
import type { Dispatcher } from '../dispatcher.js';

export const speakRoute: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.post<{ Body: SpeakRequest }>(
    '/v1/speak',
    {
      schema: { body: speakRequestSchema },
    },
    async (request, reply) => {
      const { wait, ...input } = request.body;
      const { response, settled } = await dispatcher.speak(input);
      request.log.info({ id: response.id, session: input.session, status: response.status }, 'speak');
      if (wait) return reply.code(200).send(await settled);
      return reply.code(response.status === 'queued' ? 202 : 200).send(response);
    },
  );
};
