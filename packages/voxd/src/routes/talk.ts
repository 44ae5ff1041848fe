import type { FastifyPluginAsync } from 'fastify';
import {
  talkRequestSchema,
  talkWaitRequestSchema,
  type TalkRequest,
  type TalkResponse,
  type TalkWaitRequest,
  type TalkWaitResponse,
} from '@vox/protocol';
import { VoxError } from '../errors.js';
import type { TalkInbox } from '../talk/inbox.js';

/** POST /v1/talk (from `vox talk`) and POST /v1/talk/wait (the long poll of each `vox mcp`, which owns its label: talk/inbox.ts). */
export const talkRoute: FastifyPluginAsync<{
  inbox: TalkInbox;
  /** The person talked to a session: they are in it (dispatch/attention.ts). */
  talked?: (session: string) => void;
}> = async (app, { inbox, talked }) => {
  app.post<{ Body: TalkRequest }>(
    '/v1/talk',
    { schema: { body: talkRequestSchema } },
    async (request): Promise<TalkResponse> => {
      const r = inbox.deliver(request.body.session, request.body.text);
      if ('problem' in r) throw new VoxError('VOX_ERR_TALK_UNKNOWN_SESSION', r.problem);
      request.log.info(
        { session: r.delivered, chars: request.body.text.length, channelOpen: r.channel?.open },
        'talk delivered',
      );
      talked?.(r.delivered);
      return r;
    },
  );
  app.post<{ Body: TalkWaitRequest }>(
    '/v1/talk/wait',
    { schema: { body: talkWaitRequestSchema } },
    async (request, reply): Promise<TalkWaitResponse> => {
      // The response's close (not the request's, which fires once its body is read): the poller hung up.
      const hangUp = new AbortController();
      reply.raw.once('close', () => hangUp.abort());
      const { session, secret, waitMs, channel } = request.body;
      const r = await inbox.wait(session, secret, waitMs ?? 25_000, hangUp.signal, channel);
      if ('taken' in r) throw new VoxError('VOX_ERR_TALK_SESSION_TAKEN', session, r.taken);
      return r;
    },
  );
};
