import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { speakRequestSchema, type SpeakRequest, type SpeakResponse } from '@vox/protocol';
import { handedOver, type Dispatcher } from '../dispatch/dispatcher.js';

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
      if (wait) return sendOutcome(reply, await settled);
      return reply.code(response.status === 'queued' ? 202 : 200).send(response);
    },
  );
};

/**
 * The final outcome for a caller that waits. A request handed over to the
 * next voxd at shutdown (the journal) has none yet: the connection is
 * dropped, as a crash would, and the client re-sends to the new voxd, which
 * joins it to the replayed request.
 */
export function sendOutcome(reply: FastifyReply, result: SpeakResponse): FastifyReply {
  if (handedOver(result)) {
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  return reply.code(200).send(result);
}
