import type { FastifyPluginAsync } from 'fastify';
import { MAX_TEXT_CHARS, speakRequestSchema, type SpeakRequest } from '@vox/protocol';
import type { Dispatcher } from '../dispatcher.js';
import { VoxError } from '../errors.js';

export const speakRoute: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.post<{ Body: SpeakRequest }>(
    '/v1/speak',
    {
      schema: { body: speakRequestSchema },
      // 413 rather than the schema's 400: the fix is "send less", not "fix the field".
      preHandler: async (request) => {
        if (request.body.text.length > MAX_TEXT_CHARS) throw new VoxError('VOX_ERR_TEXT_TOO_LONG', request.body.text.length, MAX_TEXT_CHARS);
      },
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
