import type { FastifyPluginAsync } from 'fastify';
import { stopRequestSchema, type StopRequest, type StopResponse } from '@vox/protocol';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { VoxError } from '../errors.js';
import type { ListenerSlot } from './listen.js';

export const stopRoute: FastifyPluginAsync<{ dispatcher: Dispatcher; listener?: ListenerSlot }> = async (
  app,
  { dispatcher, listener },
) => {
  app.post<{ Body: StopRequest | undefined }>(
    '/v1/stop',
    {
      schema: { body: stopRequestSchema },
      // No body at all means scope `all` (the wire default), not "body must be object".
      preValidation: async (request) => {
        request.body ??= {};
      },
      preHandler: async (request) => {
        const b = request.body ?? {};
        if (b.scope === 'session' && !b.session)
          throw new VoxError('VOX_ERR_BODY_INVALID', 'scope "session" needs the field "session"');
        if (b.scope === 'id' && !b.id) throw new VoxError('VOX_ERR_BODY_INVALID', 'scope "id" needs the field "id"');
      },
    },
    async (request): Promise<StopResponse> => {
      const b = request.body ?? {};
      // A listen in scope ends too (endedBy "stopped"); its id is listed first.
      const listens = listener?.loaded()?.stop(b.scope ?? 'all', b) ?? [];
      return { stopped: [...listens, ...(await dispatcher.stop(b.scope ?? 'all', b))] };
    },
  );
};
