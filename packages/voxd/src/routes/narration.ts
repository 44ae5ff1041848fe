import type { FastifyPluginAsync } from 'fastify';
import {
  narrationCutRequestSchema,
  narrationRequestSchema,
  type NarrationCutRequest,
  type NarrationCutResponse,
  type NarrationRequest,
  type NarrationResponse,
} from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';

/** POST /v1/narration (one batch of a message being written) and POST /v1/narration/cut (a new prompt). */
export const narrationRoute: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.post<{ Body: NarrationRequest }>(
    '/v1/narration',
    { schema: { body: narrationRequestSchema } },
    async (request, reply): Promise<NarrationResponse> => {
      const b = request.body;
      const r = await dispatcher.narrate(b);
      request.log.info(
        {
          id: r.id,
          session: b.session,
          message: b.message,
          index: b.index,
          final: b.final,
          status: r.status,
          sentences: r.sentences,
        },
        'narration',
      );
      reply.code(r.status === 'queued' ? 202 : 200);
      return r;
    },
  );
  app.post<{ Body: NarrationCutRequest }>(
    '/v1/narration/cut',
    { schema: { body: narrationCutRequestSchema } },
    async (request): Promise<NarrationCutResponse> => {
      const { session, earlier = [] } = request.body;
      const cut = [session, ...earlier].flatMap((s) => dispatcher.cutNarration(s));
      if (cut.length) request.log.info({ session, earlier, cut }, 'narration cut');
      return { cut };
    },
  );
};
