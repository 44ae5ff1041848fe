import type { FastifyPluginAsync } from 'fastify';
import type { VoicesResponse } from '@vox/protocol';
import type { Engine } from '../engines/engine.js';

export const voicesRoute: FastifyPluginAsync<{ resolve: (engine?: string) => Promise<Engine> }> = async (
  app,
  { resolve },
) => {
  app.get<{ Querystring: { engine?: string } }>(
    '/v1/voices',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { engine: { type: 'string', minLength: 1, maxLength: 50 } },
        },
      },
    },
    async (request): Promise<VoicesResponse> => {
      const engine = await resolve(request.query.engine);
      return { engine: engine.name, voices: await engine.voices() };
    },
  );
};
