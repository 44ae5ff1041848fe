import type { FastifyPluginAsync } from 'fastify';
import {
  recapRequestSchema,
  replayRequestSchema,
  type HistoryResponse,
  type RecapRequest,
  type ReplayRequest,
} from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { sendOutcome } from './speak.js';

/** Most entries one GET /v1/history lists. */
const MAX_LIMIT = 500;

const historyQuerySchema = {
  type: 'object',
  additionalProperties: false,
  // Strings of digits: voxd's ajv does not coerce types, and a query string has no numbers.
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,6}$' }, session: { type: 'string', maxLength: 200 } },
} as const;

/** GET /v1/history, POST /v1/recap and POST /v1/replay: what was heard and missed (dispatch/recall.ts). */
export const recallRoutes: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.get<{ Querystring: { limit?: string; session?: string } }>(
    '/v1/history',
    { schema: { querystring: historyQuerySchema } },
    async (request): Promise<HistoryResponse> => {
      const limit = Math.min(MAX_LIMIT, Math.max(1, Number(request.query.limit ?? 20)));
      const recall = dispatcher.recall;
      return { entries: recall.list(limit, request.query.session), missed: recall.missed().length };
    },
  );
  app.post<{ Body: RecapRequest | undefined }>(
    '/v1/recap',
    {
      schema: { body: recapRequestSchema },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const { settled, response, items, sessions } = await dispatcher.recap();
      request.log.info({ id: response.id, items, sessions, status: response.status }, 'recap');
      if (request.body?.wait) return sendOutcome(reply, { ...(await settled), items, sessions } as typeof response);
      return reply.code(response.status === 'queued' ? 202 : 200).send({ ...response, items, sessions });
    },
  );
  app.post<{ Body: ReplayRequest | undefined }>(
    '/v1/replay',
    {
      schema: { body: replayRequestSchema },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const b = request.body ?? {};
      const { settled, response, of } = await dispatcher.replay(b.n ?? 1, b.session);
      request.log.info({ id: response.id, of, status: response.status }, 'replay');
      if (b.wait) return sendOutcome(reply, { ...(await settled), of } as typeof response);
      return reply.code(response.status === 'queued' ? 202 : 200).send({ ...response, of });
    },
  );
};
