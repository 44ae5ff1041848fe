import type { FastifyPluginAsync } from 'fastify';
import { focusRequestSchema, type AttentionStatus, type FocusRequest } from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';

/** GET /v1/focus: the session in focus and what is held; POST /v1/focus: the person is in this session now (dispatch/attention.ts). */
export const focusRoutes: FastifyPluginAsync<{ dispatcher: Dispatcher }> = async (app, { dispatcher }) => {
  app.get('/v1/focus', async (): Promise<AttentionStatus> => dispatcher.attention.status());
  app.post<{ Body: FocusRequest }>(
    '/v1/focus',
    { schema: { body: focusRequestSchema } },
    async (request): Promise<AttentionStatus> => {
      const { session, reason = 'named' } = request.body;
      dispatcher.attention.focus(session, reason);
      request.log.info({ session, reason }, 'focus');
      return dispatcher.attention.status();
    },
  );
};
